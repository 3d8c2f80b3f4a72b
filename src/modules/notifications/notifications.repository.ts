import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { NotificationsTable } from './notifications.table.js';
import type { ListNotificationsFilters } from './notifications.schema.js';
import { inList } from '../../db/in-list.js';
import { isoAt as iso } from '../../clock.js';

/** The access policy lives here: tenant always, the parent's location when the caller is location-scoped. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('notifications').selectAll().where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return query;
}

export async function findNotification(db: Executor, actor: AccessFilter, id: string): Promise<NotificationsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listNotifications(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: ListNotificationsFilters,
): Promise<NotificationsTable[]> {
  let query = visible(db, actor);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.petId !== undefined) query = query.where('pet_id', '=', filters.petId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.channel !== undefined) query = query.where('channel', '=', filters.channel);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  return pageQuery(query, page).execute();
}

export async function insertNotification(db: Executor, row: NotificationsTable): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

/** Queued rows due now whose lease (if any) has lapsed, oldest first. */
export async function findDueNotifications(db: Executor, now: number, limit: number): Promise<NotificationsTable[]> {
  const at = iso(now);
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Takes a row for one delivery attempt: one conditional UPDATE, so two deliverers never both
 * win. Counts the attempt up front, so a process that dies mid-send still uses one up.
 */
export async function claimNotification(db: Executor, id: string, token: string, now: number, leaseMs: number): Promise<NotificationsTable | null> {
  const at = iso(now);
  const row = await db
    .updateTable('notifications')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: iso(now + leaseMs), lease_token: token, updated_at: at }))
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Settles an attempt; a no-op when the lease was lost to another deliverer meanwhile. */
async function settle(db: Executor, id: string, token: string, patch: Partial<NotificationsTable>): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({ ...patch, lease_until: null, lease_token: null })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const markSent = (db: Executor, id: string, token: string, messageId: string | null, now: number) =>
  settle(db, id, token, { status: 'sent', sent_at: iso(now), provider_message_id: messageId, last_error: null, updated_at: iso(now) });

export const markRetry = (db: Executor, id: string, token: string, error: string, retryAt: number, now: number) =>
  settle(db, id, token, { status: 'queued', last_error: error, next_attempt_at: iso(retryAt), updated_at: iso(now) });

export const markFailed = (db: Executor, id: string, token: string, error: string, now: number) =>
  settle(db, id, token, { status: 'failed', last_error: error, updated_at: iso(now) });

export const markCancelled = (db: Executor, id: string, token: string, reason: string, now: number) =>
  settle(db, id, token, { status: 'cancelled', last_error: reason, updated_at: iso(now) });

/**
 * Why a queued reminder should no longer go out, or null: consent is checked again at sending
 * (a long outbox wait or SMTP outage may outlast it), and an appointment reminder only goes out
 * while the visit is still confirmed, at the time reminded of, and ahead.
 */
export async function staleReminderReason(db: Executor, row: NotificationsTable, now: number): Promise<string | null> {
  if (row.kind === 'manual') return null;
  const parent = await db.selectFrom('pet_parents').select(['reminder_consent', 'email']).where('id', '=', row.parent_id).executeTakeFirst();
  if (!parent || parent.reminder_consent !== 1) return 'cancelled: the parent no longer consents to reminders';
  if (row.kind === 'appointment_reminder' && row.related_id) {
    const appointment = await db.selectFrom('appointments').select(['status', 'starts_at']).where('id', '=', row.related_id).executeTakeFirst();
    if (!appointment || appointment.status !== 'confirmed') return 'cancelled: the appointment is no longer confirmed';
    if (appointment.starts_at <= iso(now)) return 'cancelled: the appointment has already started';
    // The ledger keys an appointment reminder on id|starts_at: another time means the visit moved.
    const ledger = await db.selectFrom('reminder_ledger').select('reminder_key').where('notification_id', '=', row.id).executeTakeFirst();
    if (ledger && !ledger.reminder_key.endsWith(`|${appointment.starts_at}`))
      return 'cancelled: the appointment was moved (a reminder for the new time follows)';
  }
  return null;
}

/** Whether any message waits in the outbox (all tenants of this environment). */
export async function hasQueued(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('notifications').select('id').where('status', '=', 'queued').limit(1).executeTakeFirst();
  return row !== undefined;
}
