import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { AccessFilter, Actor } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findPetParent } from '../pet-parents/index.js';
import { findPet } from '../pets/index.js';
import { findNotification, insertNotification } from './notifications.repository.js';
import type { Channel, CreateNotificationInput, NotificationKind } from './notifications.schema.js';
import type { NotificationsTable } from './notifications.table.js';

export interface QueuedMessage {
  tenantId: string;
  locationId: string;
  parentId: string;
  petId: string | null;
  channel: Channel;
  kind: NotificationKind;
  relatedId: string | null;
  to: string;
  subject: string;
  body: string;
  createdByClientId: string | null;
}

/**
 * Writes a message to the outbox in the caller's transaction; the `notification-delivery` job
 * sends it after commit (never inside a transaction). Reminder jobs call this too. `access` is the
 * caller's (a reminder job passes the tenant of the row it reminds of).
 */
export async function queueNotification(db: Executor, access: AccessFilter, message: QueuedMessage, now: number): Promise<NotificationsTable> {
  const at = new Date(now).toISOString();
  const row: NotificationsTable = {
    id: newId('ntf'),
    tenant_id: message.tenantId,
    location_id: message.locationId,
    parent_id: message.parentId,
    pet_id: message.petId,
    channel: message.channel,
    kind: message.kind,
    related_id: message.relatedId,
    to_address: message.to,
    subject: message.subject,
    body: message.body,
    status: 'queued',
    attempts: 0,
    last_error: null,
    next_attempt_at: at,
    lease_until: null,
    lease_token: null,
    sent_at: null,
    provider_message_id: null,
    created_by_client_id: message.createdByClientId,
    created_at: at,
    updated_at: at,
  };
  await insertNotification(db, access, row);
  return row;
}

/**
 * A message from staff to a pet parent. Reminder consent is not required: it covers automatic
 * reminders, not a message a person at the clinic chose to send (pickup ready, results in).
 */
export async function createNotification(db: Executor, actor: Actor, input: CreateNotificationInput, now: number): Promise<NotificationsTable> {
  const parent = await findPetParent(db, actor, input.parentId);
  if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
  if (input.petId !== undefined) {
    const pet = await findPet(db, actor, input.petId);
    if (!pet) throw missingReference('petId', 'pet', input.petId);
    if (pet.owner_id !== parent.id) {
      throw validationFailed([{ field: 'petId', message: `pet '${pet.id}' does not belong to pet parent '${parent.id}'` }]);
    }
  }
  if (!parent.email) {
    throw new AppError('recipient_unreachable', `Pet parent '${parent.id}' has no email address; add one (PATCH /v1/pet-parents/{id}) first.`, {
      errors: [{ field: 'parentId', message: 'the pet parent has no email address' }],
    });
  }
  return queueNotification(
    db,
    actor,
    {
      tenantId: actor.tenantId,
      locationId: parent.location_id,
      parentId: parent.id,
      petId: input.petId ?? null,
      channel: input.channel,
      kind: 'manual',
      relatedId: null,
      to: parent.email,
      subject: input.subject,
      body: input.body,
      createdByClientId: actor.clientId,
    },
    now,
  );
}

export async function getNotification(db: Executor, actor: Actor, id: string): Promise<NotificationsTable> {
  return foundOr404(await findNotification(db, actor, id), 'notification', id);
}
