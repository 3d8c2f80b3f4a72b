export { queueNotification, type QueuedMessage } from './notifications.service.js';
export type { NotificationKind } from './notifications.schema.js';
export type { ReminderLedgerTable } from './notifications.table.js';
export { notificationDeliveryJob, notificationMaxAttempts, notificationRetryDelays } from './notification-delivery.js';
export { notificationsModule } from './notifications.module.js';
