import { addDays, utcDate as isoDate } from '../../calendar-dates.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { emit } from '../events/index.js';
import { queueNotification } from '../notifications/index.js';
import { businessNow } from '../business-clock/index.js';
import type { NotificationKind } from '../notifications/index.js';
import { appointmentReminderText, humanType, vaccinationReminderText, type MailText } from './reminder-messages.js';
import {
  appointmentReminderKey,
  findAudience,
  findDueVaccinations,
  type DueVaccination,
  findUpcomingAppointments,
  insertLedgerEntry,
  isReminded,
  vaccinationReminderKey,
  type ReminderAudience,
  type ReminderKind,
} from './reminders.repository.js';

export type Outcome = 'notified' | 'no_consent' | 'no_email' | 'skipped';

/** A reminder is about one tenant's row: the job reads and writes that tenant's rows, at any of its locations. */
const tenantOf = (row: { tenant_id: string }): AccessFilter => ({ tenantId: row.tenant_id, locationIds: null });

/**
 * The consent rule of automatic reminders: only to a parent who consented
 * (pet_parents.reminder_consent) and has an email address. The outcome is recorded either way.
 */
async function notifyParent(
  trx: Executor,
  audience: ReminderAudience | null,
  reminder: { tenantId: string; kind: NotificationKind; relatedId: string; text: (a: ReminderAudience) => MailText },
  now: number,
): Promise<{ outcome: Exclude<Outcome, 'skipped'>; notificationId: string | null }> {
  const outcome = consentOutcome(audience);
  const parent = audience?.parent;
  if (outcome !== 'notified') return { outcome, notificationId: null };
  if (!audience || !parent?.email) return { outcome: 'no_email', notificationId: null }; // narrows the types; consentOutcome checked it
  const text = reminder.text(audience);
  const row = await queueNotification(
    trx,
    { tenantId: reminder.tenantId, locationIds: null },
    {
      tenantId: reminder.tenantId,
      locationId: parent.location_id,
      parentId: parent.id,
      petId: audience.pet.id,
      channel: 'email',
      kind: reminder.kind,
      relatedId: reminder.relatedId,
      to: parent.email,
      subject: text.subject,
      body: text.body,
      createdByClientId: null,
    },
    now,
  );
  return { outcome: 'notified', notificationId: row.id };
}

const placeOf = (audience: ReminderAudience) => ({
  name: audience.location?.name ?? 'your clinic',
  timezone: audience.location?.timezone ?? 'UTC',
});

function tally(outcomes: Outcome[]) {
  const count = (o: Outcome) => outcomes.filter((x) => x === o).length;
  return { notified: count('notified'), noConsent: count('no_consent'), noEmail: count('no_email'), alreadyReminded: count('skipped') };
}

/** What the consent rule decides for a parent, without writing anything (a recall's dry run). */
export function consentOutcome(audience: ReminderAudience | null): Exclude<Outcome, 'skipped'> {
  const parent = audience?.parent;
  if (!audience || !parent) return 'no_email';
  if (parent.reminder_consent !== 1) return 'no_consent';
  if (!parent.email) return 'no_email';
  return 'notified';
}

/**
 * One vaccination reminder, at most once per pet + vaccine + due date (the reminder ledger's key),
 * whoever asks: the daily job or a recall campaign (POST /v1/ai/recall). In the caller's
 * transaction: the ledger row, `pet.vaccination_due` and, under the consent rule, the email.
 * 'skipped' when the key is in the ledger already (reminded by the job or recalled before).
 */
export async function remindVaccination(
  trx: Executor,
  vaccination: DueVaccination,
  today: string,
  now: number,
): Promise<{ outcome: Outcome; notificationId: string | null }> {
  const kind: ReminderKind = 'vaccination';
  const key = vaccinationReminderKey(vaccination);
  const tenant = tenantOf(vaccination);
  if (await isReminded(trx, tenant, kind, key)) return { outcome: 'skipped', notificationId: null };
  const event = await emit(
    trx,
    'pet.vaccination_due',
    { petId: vaccination.pet_id, vaccine: vaccination.vaccine, dueOn: vaccination.due_on, vaccinationId: vaccination.id },
    vaccination.tenant_id,
    now,
  );
  const audience = await findAudience(trx, tenant, vaccination.pet_id);
  const sent = await notifyParent(
    trx,
    audience,
    {
      tenantId: vaccination.tenant_id,
      kind: 'vaccination_reminder',
      relatedId: vaccination.id,
      text: (a) =>
        vaccinationReminderText({
          parentName: a.parent?.name ?? 'pet parent',
          petName: a.pet.name,
          vaccine: vaccination.vaccine,
          dueOn: vaccination.due_on,
          today,
          place: placeOf(a),
        }),
    },
    now,
  );
  await insertLedgerEntry(trx, tenant, {
    tenant_id: vaccination.tenant_id,
    kind,
    reminder_key: key,
    related_id: vaccination.id,
    pet_id: vaccination.pet_id,
    event_id: event.id,
    notification_id: sent.notificationId,
    outcome: sent.outcome,
    created_at: new Date(now).toISOString(),
  });
  return sent;
}

/** What `remindVaccination` would do now, writing nothing: 'skipped' when already in the ledger, else the consent rule's outcome. */
export async function previewVaccinationReminder(db: Executor, vaccination: DueVaccination): Promise<Outcome> {
  if (await isReminded(db, tenantOf(vaccination), 'vaccination', vaccinationReminderKey(vaccination))) return 'skipped';
  return consentOutcome(await findAudience(db, tenantOf(vaccination), vaccination.pet_id));
}

/**
 * Daily: each pet's latest dose per vaccine due within the next N days (PETCARE_VACCINATION_REMINDER_DAYS,
 * default 30) — or overdue by at most N days and never reminded (recorded late, appliance down) —
 * emits `pet.vaccination_due` and emails the parent, once per pet + vaccine + due date.
 */
export function vaccinationRemindersJob(): JobDefinition {
  return {
    name: 'vaccination-reminders',
    description:
      'Daily 06:00 UTC. For the latest dose per pet and vaccine due within PETCARE_VACCINATION_REMINDER_DAYS (or overdue by at most as many days): ' +
      'emits pet.vaccination_due and emails the parent if they consented, once per pet, vaccine and due date however often it runs ' +
      '(the ledger is shared with recall campaigns, POST /v1/ai/recall: what one handled the other skips).',
    schedule: { cron: '0 6 * * *' },
    maxAttempts: 3,
    async run(ctx) {
      const { db } = ctx.store;
      const now = ctx.clock.now();
      // What is due follows the business clock (the sandbox test clock); the records keep real time.
      const today = isoDate(await businessNow(db, ctx.env, ctx.clock));
      const days = ctx.config.vaccinationReminderDays;
      const due = await findDueVaccinations(db, addDays(today, -days), addDays(today, days));
      const outcomes: Outcome[] = [];
      for (const vaccination of due) {
        if (ctx.signal.aborted) break;
        // One transaction per reminder: ledger row, event and notification exist together or not at all.
        const outcome = await db.transaction().execute(async (trx) => (await remindVaccination(trx, vaccination, today, now)).outcome);
        outcomes.push(outcome);
      }
      const counts = tally(outcomes);
      return { due: due.length, eventsEmitted: outcomes.length - counts.alreadyReminded, ...counts };
    },
  };
}

/**
 * Hourly: confirmed appointments starting within the next N hours (PETCARE_APPOINTMENT_REMINDER_HOURS,
 * default 24) and not started yet get one email to a consenting parent. Keyed on appointment id and
 * start time, so a rescheduled visit is reminded again for its new time.
 */
export function appointmentRemindersJob(): JobDefinition {
  const kind: ReminderKind = 'appointment';
  return {
    name: 'appointment-reminders',
    description:
      'Hourly. Emails the parent (if they consented) about each confirmed appointment starting within PETCARE_APPOINTMENT_REMINDER_HOURS, ' +
      'once per appointment and start time (a rescheduled visit is reminded again).',
    schedule: { cron: '0 * * * *' },
    maxAttempts: 3,
    async run(ctx) {
      const { db } = ctx.store;
      const now = ctx.clock.now();
      // The window follows the business clock (the sandbox test clock); the records keep real time.
      const from = await businessNow(db, ctx.env, ctx.clock);
      const until = from + ctx.config.appointmentReminderHours * 3_600_000;
      const upcoming = await findUpcomingAppointments(db, new Date(from).toISOString(), new Date(until).toISOString());
      const outcomes: Outcome[] = [];
      for (const appointment of upcoming) {
        if (ctx.signal.aborted) break;
        const key = appointmentReminderKey(appointment);
        const outcome = await db.transaction().execute(async (trx): Promise<Outcome> => {
          const tenant = tenantOf(appointment);
          if (await isReminded(trx, tenant, kind, key)) return 'skipped';
          const audience = await findAudience(trx, tenant, appointment.pet_id, appointment.location_id);
          const sent = await notifyParent(
            trx,
            audience,
            {
              tenantId: appointment.tenant_id,
              kind: 'appointment_reminder',
              relatedId: appointment.id,
              text: (a) =>
                appointmentReminderText({
                  parentName: a.parent?.name ?? 'pet parent',
                  petName: a.pet.name,
                  type: appointment.type_name ?? humanType(appointment.type),
                  startsAt: appointment.starts_at,
                  place: placeOf(a),
                }),
            },
            now,
          );
          await insertLedgerEntry(trx, tenant, {
            tenant_id: appointment.tenant_id,
            kind,
            reminder_key: key,
            related_id: appointment.id,
            pet_id: appointment.pet_id,
            event_id: null,
            notification_id: sent.notificationId,
            outcome: sent.outcome,
            created_at: new Date(now).toISOString(),
          });
          return sent.outcome;
        });
        outcomes.push(outcome);
      }
      return { upcoming: upcoming.length, ...tally(outcomes) };
    },
  };
}
