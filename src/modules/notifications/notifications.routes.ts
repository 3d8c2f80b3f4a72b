import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { notificationMaxAttempts, notificationRetryDelays } from './notification-delivery.js';
import { presentNotification } from './notifications.presenter.js';
import { listNotifications } from './notifications.repository.js';
import { CreateNotificationSchema, ListNotificationsQuery, NotificationParams, NotificationSchema } from './notifications.schema.js';
import { createNotification, getNotification } from './notifications.service.js';

const tags = ['Notifications'];

export interface NotificationRouteDeps {
  clock: Clock;
  /** Wakes the job runner so the new message goes out now rather than at the next poll. */
  runner?: { kick(): void };
}

export function notificationRoutes(deps: NotificationRouteDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/notifications',
      operationId: 'createNotification',
      summary: 'Send a message to a pet parent',
      description:
        'Queues an email to the pet parent (their address now) and answers 202 with the notification in status `queued`; ' +
        'the `notification-delivery` job sends it after the request commits: `queued` → `sent`, or `failed` after ' +
        `${notificationMaxAttempts} attempts (backoff ${notificationRetryDelays.join(', ')} s; an SMTP 5xx rejection fails at once). ` +
        'Without SMTP configured (PETCARE_SMTP_URL) the message stays `queued` in the outbox and is sent once the appliance runs with SMTP. ' +
        'Reminder consent is not required for a message a person sends (it governs automatic reminders). ' +
        'The parent (and the pet, which must be theirs) must be visible to the caller; a parent without an email address answers 422 `recipient_unreachable`.',
      tags,
      access: { scope: 'notifications' },
      body: CreateNotificationSchema,
      response: { status: 202, description: 'The queued notification', schema: NotificationSchema },
      errors: ['resource_missing', 'recipient_unreachable'],
      handler: async ({ db, actor, body, afterCommit }) => {
        const row = await createNotification(db, actor, body, deps.clock.now());
        afterCommit(() => deps.runner?.kick());
        return { body: presentNotification(row) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/notifications',
      operationId: 'listNotifications',
      summary: 'List notifications',
      description: 'Newest first, manual messages and reminders alike; filter by parentId, petId, status, channel or kind.',
      tags,
      access: { scope: 'notifications.read' },
      query: ListNotificationsQuery,
      response: { status: 200, description: 'A page of notifications', schema: pageSchema(NotificationSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listNotifications(db, actor, page, query), page, presentNotification) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/notifications/:id',
      operationId: 'getNotification',
      summary: 'Get a notification',
      description: 'Its delivery state: status, attempts, lastError, nextAttemptAt and sentAt.',
      tags,
      access: { scope: 'notifications.read' },
      params: NotificationParams,
      response: { status: 200, description: 'The notification', schema: NotificationSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentNotification(await getNotification(db, actor, params.id)) }),
    }),
  ];
}
