import test from 'ava';
import { randomBytes } from 'node:crypto';
import { newId } from '../../src/db/ids.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { deliverOutbox, freshAdminToken, runJob, waitForNotification, type NotificationBody } from '../notifications/notification-kit.js';
import { startSmtpSink, type SmtpSink } from '../notifications/smtp-sink.js';

/**
 * `appointment-reminders` (hourly): confirmed appointments starting within the next 24 h and not
 * started get one email to a consenting parent, per appointment and start time. Appointments are
 * inserted as rows (their booking API needs schedules and notice rules this test is not about).
 */
let smtp: SmtpSink;
const clock = new TestClock(Date.parse('2026-11-23T09:30:00.000Z'));
const hour = 3_600_000;

let nyc: { id: string };
let london: { id: string };
let bella: { id: string };
let oscar: { id: string };
let luna: { id: string };
let providerId: string;

const db = () => t.stores.get('live').db;

async function insertProvider(): Promise<string> {
  const at = new Date(clock.now()).toISOString();
  const id = newId('prv');
  await db()
    .insertInto('providers')
    .values({
      id,
      tenant_id: t.tenantId,
      name: 'Dr. Rivera',
      kind: 'vet',
      status: 'active',
      services: '[]',
      rating: null,
      rating_count: 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

async function insertAppointment(pet: { id: string }, locationId: string, startsAt: string, status = 'confirmed', type = 'vet_consultation'): Promise<string> {
  const at = new Date(clock.now()).toISOString();
  const id = newId('apt');
  const endsAt = new Date(Date.parse(startsAt) + 30 * 60_000).toISOString();
  await db()
    .insertInto('appointments')
    .values({
      id,
      tenant_id: t.tenantId,
      location_id: locationId,
      pet_id: pet.id,
      provider_id: providerId,
      type,
      status,
      starts_at: startsAt,
      ends_at: endsAt,
      notes: null,
      created_at: at,
      updated_at: at,
      blocked_from: startsAt,
      blocked_until: endsAt,
      calendar_token: `ct_live_${randomBytes(8).toString('hex')}`,
      sequence: 0,
    })
    .execute();
  return id;
}

async function reminders(): Promise<NotificationBody[]> {
  const res = await t.request('GET', '/v1/notifications?kind=appointment_reminder&limit=100', { token: await freshAdminToken(t) });
  return res.body.data;
}

const apt: Record<string, string> = {};

test.before(async () => {
  smtp = await startSmtpSink();
});
const t = useTestApp(test, () => ({ clock, config: { smtpUrl: smtp.url, jobPollMs: 20 } }));
test.before(async () => {
  nyc = await createLocation(t, { name: 'Downtown Clinic', timezone: 'America/New_York' });
  london = await createLocation(t, { name: 'Riverside Clinic', timezone: 'Europe/London' });
  const alex = await createPetParent(t, nyc.id, { name: 'Alex Morgan', email: 'alex@example.com', reminderConsent: true });
  const jo = await createPetParent(t, london.id, { name: 'Jo Williams', email: 'jo@example.org', reminderConsent: true });
  const sam = await createPetParent(t, nyc.id, { name: 'Sam Patel', email: 'sam@example.com', reminderConsent: false });
  bella = await createPet(t, alex.id, nyc.id, { name: 'Bella' });
  oscar = await createPet(t, jo.id, london.id, { name: 'Oscar' });
  luna = await createPet(t, sam.id, nyc.id, { name: 'Luna' });
  providerId = await insertProvider();

  apt.soon = await insertAppointment(bella, nyc.id, '2026-11-24T08:00:00.000Z'); // in 22.5 h
  apt.tomorrowLate = await insertAppointment(oscar, london.id, '2026-11-24T10:00:00.000Z', 'confirmed', 'dental'); // in 24.5 h
  apt.cancelled = await insertAppointment(bella, nyc.id, '2026-11-23T15:00:00.000Z', 'cancelled');
  apt.checkedIn = await insertAppointment(bella, nyc.id, '2026-11-23T10:00:00.000Z', 'checked_in');
  apt.started = await insertAppointment(bella, nyc.id, '2026-11-23T09:00:00.000Z'); // began half an hour ago
  apt.noConsent = await insertAppointment(luna, nyc.id, '2026-11-23T18:00:00.000Z');
});
test.after.always(async () => {
  await smtp?.close();
});

test.serial('a run reminds consenting parents of confirmed appointments in the next 24 h, in the location time zone', async (a) => {
  const run = await runJob(t, 'appointment-reminders');
  a.like(run.result, { upcoming: 2, notified: 1, noConsent: 1, noEmail: 0 });

  const list = await reminders();
  a.is(list.length, 1);
  const [n] = list;
  a.like(n, { petId: bella.id, relatedId: apt.soon, to: 'alex@example.com', kind: 'appointment_reminder', locationId: nyc.id });
  await waitForNotification(t, await freshAdminToken(t), n!.id, (x) => x.status === 'sent');

  const [mail] = await smtp.waitForMessages(1);
  // 08:00 UTC is 03:00 in New York (EST in November).
  a.is(mail!.subject, "Reminder: Bella's appointment on Tuesday 24 November 2026 at 03:00 EST (Vet consultation)");
  a.regex(mail!.text, /^Hello Alex Morgan,/);
  a.regex(mail!.text, /Bella's appointment at Downtown Clinic:/);
  a.regex(mail!.text, /Vet consultation\n {2}Tuesday 24 November 2026 at 03:00 EST/);
  a.regex(mail!.text, /Kind regards,\nDowntown Clinic/);
});

test.serial('running again sends nothing more; an hour later the next appointment comes into the window', async (a) => {
  a.like((await runJob(t, 'appointment-reminders')).result, { upcoming: 0, notified: 0 });
  await deliverOutbox(t);
  a.is(smtp.messages.length, 1);

  clock.advance(hour);
  const run = await runJob(t, 'appointment-reminders');
  a.like(run.result, { upcoming: 1, notified: 1 });
  const mails = await smtp.waitForMessages(2);
  a.deepEqual(mails[1]!.to, ['jo@example.org']);
  // London is on GMT in November.
  a.is(mails[1]!.subject, "Reminder: Oscar's appointment on Tuesday 24 November 2026 at 10:00 GMT (Dental cleaning)");
  a.regex(mails[1]!.text, /Riverside Clinic/);
  a.is((await reminders()).length, 2);
});

test.serial('a rescheduled appointment is reminded again for its new time; cancelled ones never are', async (a) => {
  await db().updateTable('appointments').set({ starts_at: '2026-11-24T09:00:00.000Z' }).where('id', '=', apt.soon!).execute();
  const run = await runJob(t, 'appointment-reminders');
  a.like(run.result, { upcoming: 1, notified: 1 });
  const mails = await smtp.waitForMessages(3);
  a.is(mails[2]!.subject, "Reminder: Bella's appointment on Tuesday 24 November 2026 at 04:00 EST (Vet consultation)");

  a.like((await runJob(t, 'appointment-reminders')).result, { upcoming: 0 });
  const ledger = await db().selectFrom('reminder_ledger').selectAll().where('kind', '=', 'appointment').execute();
  const ids = ledger.map((r) => r.related_id);
  a.false(ids.includes(apt.cancelled!));
  a.false(ids.includes(apt.checkedIn!));
  a.false(ids.includes(apt.started!));
  a.is(ledger.filter((r) => r.related_id === apt.soon).length, 2);
  a.deepEqual(ledger.find((r) => r.related_id === apt.noConsent)?.outcome, 'no_consent');
  await deliverOutbox(t);
  a.is(smtp.messages.length, 3);
});

test('the job is listed with its hourly schedule', async (a) => {
  const res = await t.request('GET', '/v1/jobs/appointment-reminders', { token: await freshAdminToken(t) });
  a.is(res.status, 200);
  a.deepEqual(res.body.schedule, { type: 'cron', expression: '0 * * * *' });
});
