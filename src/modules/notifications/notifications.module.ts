import type { Config } from '../../config.js';
import type { ModuleManifest } from '../../module-manifest.js';
import type { NotificationsTables } from './notifications.table.js';
import { notificationDeliveryJob } from './notification-delivery.js';
import { notificationRoutes } from './notifications.routes.js';
import { notificationsErrorCodes } from './notifications.errors.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends NotificationsTables {}
}

export const notificationsModule: ModuleManifest<Parameters<typeof notificationRoutes>[0] & { config: Config }> = {
  name: 'notifications',
  errors: notificationsErrorCodes,
  sdk: {
    notifications: {
      create: 'createNotification',
      list: 'listNotifications',
      get: 'getNotification',
    },
  },
  routes: (deps) => notificationRoutes(deps),
  // The outbox poller that sends queued notifications.
  jobs: (deps) => [notificationDeliveryJob({ config: deps.config })],
  tags: { Notifications: 'Email to pet parents (ntf_ ids) through SMTP, with an outbox and retries.' },
  tables: ['notifications', 'reminder_ledger'],
  access: {
    notifications: { location: 'location_id' },
    reminder_ledger: { location: null, why: "the reminders job's record of what it sent, tenant-wide" },
  },
  reset: { rows: ['notifications', 'reminder_ledger'] },
};
