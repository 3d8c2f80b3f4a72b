import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';

export const channels = ['email'] as const;
export const notificationKinds = ['manual', 'vaccination_reminder', 'appointment_reminder'] as const;
export const notificationStatuses = ['queued', 'sent', 'failed', 'cancelled'] as const;

export type Channel = (typeof channels)[number];
export type NotificationKind = (typeof notificationKinds)[number];
export type NotificationStatus = (typeof notificationStatuses)[number];

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const ChannelField = literals(channels, 'Delivery channel. Only `email` today; the enum will grow (sms) without a new version.');
const KindField = literals(notificationKinds, '`manual` (POST /v1/notifications) or a reminder queued by a job.');
const StatusField = literals(
  notificationStatuses,
  '`queued` (in the outbox, or between retries) → `sent` | `failed`; a reminder no longer wanted when its turn comes (consent withdrawn, visit cancelled, moved or past) → `cancelled`.',
);

export const NotificationSchema = Type.Object(
  {
    id: Type.String({ description: 'Notification id (ntf_…).' }),
    parentId: Type.String({ description: 'The pet parent (usr_…) it is addressed to.' }),
    petId: Type.Union([Type.String(), Type.Null()], { description: 'The pet it is about, if any.' }),
    locationId: Type.String({ description: "The parent's location when it was queued." }),
    channel: ChannelField,
    kind: KindField,
    relatedId: Type.Union([Type.String(), Type.Null()], { description: 'The vaccination (vac_…) or appointment (apt_…) a reminder is about.' }),
    to: Type.String({ description: "The parent's email address when it was queued." }),
    subject: Type.String(),
    body: Type.String({ description: 'Plain text.' }),
    status: StatusField,
    attempts: Type.Integer({ minimum: 0, description: 'Delivery attempts so far.' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed.' }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'While queued: not sent before this instant (retry backoff). Null once sent or failed.',
    }),
    sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the SMTP server accepted it.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateNotificationSchema = Type.Object(
  {
    parentId: Type.String({ pattern: '^usr_[a-z0-9_]{1,60}$', description: 'Pet parent id (usr_…); must have an email address.' }),
    petId: Type.Optional(Type.String({ pattern: '^pet_[a-z0-9_]{1,60}$', description: 'A pet of this parent the message is about.' })),
    channel: ChannelField,
    // One line: a header value never carries a line break (no header injection).
    subject: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n]*\\S[^\\r\\n]*$', description: 'One line, not blank.' }),
    body: Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S', description: 'Plain text, not blank.' }),
  },
  { additionalProperties: false },
);

export const NotificationParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Notification id (ntf_…).' }) });

export const ListNotificationsQuery = Type.Object(
  {
    ...pageQueryFields,
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    petId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(StatusField),
    channel: Type.Optional(ChannelField),
    kind: Type.Optional(KindField),
  },
  { additionalProperties: false },
);

export type CreateNotificationInput = Static<typeof CreateNotificationSchema>;
export type ListNotificationsFilters = Static<typeof ListNotificationsQuery>;
export type NotificationOut = Static<typeof NotificationSchema>;
