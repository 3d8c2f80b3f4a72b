import type { Executor } from '../../db/database.js';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { NotificationsTable } from './notifications.table.js';
import type { ListNotificationsFilters } from './notifications.schema.js';
import { isoAt as iso } from '../../clock.js';

/** Tenant always, the parent's location (kept on the row) when the caller is location-scoped: the manifest's policy. */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('notifications').selectAll();
}

/** The delivery job works on one tenant's row at a time: that row's whole tenant. */
const tenantOf = (row: Pick<NotificationsTable, 'tenant_id'>): AccessFilter => ({ tenantId: row.tenant_id, locationIds: null });

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

export async function insertNotification(db: Executor, access: AccessFilter, row: NotificationsTable): Promise<void> {
  await scoped(db, access).insert('notifications', row);
}

/** Queued rows due now whose lease (if any) has lapsed, oldest first. */
export async function findDueNotifications(db: Executor, now: number, limit: number): Promise<NotificationsTable[]> {
  const at = iso(now);
  return acrossTenants(db, "the outbox poller sends every tenant's queued messages")
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
export async function claimNotification(
  db: Executor,
  due: Pick<NotificationsTable, 'id' | 'tenant_id'>,
  token: string,
  now: number,
  leaseMs: number,
): Promise<NotificationsTable | null> {
  const at = iso(now);
  const row = await scoped(db, tenantOf(due))
    .updateTable('notifications')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: iso(now + leaseMs), lease_token: token, updated_at: at }))
    .where('id', '=', due.id)
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** A claimed row: the id and the tenant the settling update is confined to. */
type Claimed = Pick<NotificationsTable, 'id' | 'tenant_id'>;

/** Settles an attempt; a no-op when the lease was lost to another deliverer meanwhile. */
async function settle(db: Executor, row: Claimed, token: string, patch: Partial<NotificationsTable>): Promise<boolean> {
  const result = await scoped(db, tenantOf(row))
    .updateTable('notifications')
    .set({ ...patch, lease_until: null, lease_token: null })
    .where('id', '=', row.id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const markSent = (db: Executor, row: Claimed, token: string, messageId: string | null, now: number) =>
  settle(db, row, token, { status: 'sent', sent_at: iso(now), provider_message_id: messageId, last_error: null, updated_at: iso(now) });

export const markRetry = (db: Executor, row: Claimed, token: string, error: string, retryAt: number, now: number) =>
  settle(db, row, token, { status: 'queued', last_error: error, next_attempt_at: iso(retryAt), updated_at: iso(now) });

export const markFailed = (db: Executor, row: Claimed, token: string, error: string, now: number) =>
  settle(db, row, token, { status: 'failed', last_error: error, updated_at: iso(now) });

export const markCancelled = (db: Executor, row: Claimed, token: string, reason: string, now: number) =>
  settle(db, row, token, { status: 'cancelled', last_error: reason, updated_at: iso(now) });

/**
 * Why a queued reminder should no longer go out, or null: consent is checked again at sending
 * (a long outbox wait or SMTP outage may outlast it), and an appointment reminder only goes out
 * while the visit is still confirmed, at the time reminded of, and ahead.
 */
export async function staleReminderReason(db: Executor, row: NotificationsTable, now: number): Promise<string | null> {
  if (row.kind === 'manual') return null;
  const tenant = scoped(db, tenantOf(row));
  const parent = await tenant.selectFrom('pet_parents').select(['reminder_consent', 'email']).where('id', '=', row.parent_id).executeTakeFirst();
  if (!parent || parent.reminder_consent !== 1) return 'cancelled: the parent no longer consents to reminders';
  if (row.kind === 'appointment_reminder' && row.related_id) {
    const appointment = await tenant.selectFrom('appointments').select(['status', 'starts_at']).where('id', '=', row.related_id).executeTakeFirst();
    if (!appointment || appointment.status !== 'confirmed') return 'cancelled: the appointment is no longer confirmed';
    if (appointment.starts_at <= iso(now)) return 'cancelled: the appointment has already started';
    // The ledger keys an appointment reminder on id|starts_at: another time means the visit moved.
    const ledger = await tenant.selectFrom('reminder_ledger').select('reminder_key').where('notification_id', '=', row.id).executeTakeFirst();
    if (ledger && !ledger.reminder_key.endsWith(`|${appointment.starts_at}`))
      return 'cancelled: the appointment was moved (a reminder for the new time follows)';
  }
  return null;
}

/** Whether any message waits in the outbox (all tenants of this environment). */
export async function hasQueued(db: Executor): Promise<boolean> {
  const row = await acrossTenants(db, 'the outbox of every tenant of this environment')
    .selectFrom('notifications')
    .select('id')
    .where('status', '=', 'queued')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
