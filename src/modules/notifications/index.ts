import type { Config } from '../../config.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { notificationDeliveryJob } from './notification-delivery.js';

export { notificationRoutes } from './notifications.routes.js';
export { queueNotification, type QueuedMessage } from './notifications.service.js';
export type { NotificationKind } from './notifications.schema.js';
export type { ReminderLedgerTable } from './notifications.table.js';
export { notificationDeliveryJob, notificationMaxAttempts, notificationRetryDelays } from './notification-delivery.js';

/** The module's jobs: the outbox poller that sends queued notifications. */
export function notificationJobs(deps: { config: Config }): JobDefinition[] {
  return [notificationDeliveryJob({ config: deps.config })];
}
export { notificationsModule } from './notifications.module.js';
