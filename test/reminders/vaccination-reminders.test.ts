import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { deliverOutbox, freshAdminToken, runJob, waitForNotification, type NotificationBody } from '../notifications/notification-kit.js';
import { startSmtpSink, type SmtpSink } from '../notifications/smtp-sink.js';

/**
 * `vaccination-reminders` (DESIGN §6): the latest dose per pet and vaccine due within 30 days (or
 * overdue by at most 30) → one pet.vaccination_due and one email per pet + vaccine + due date,
 * however often the job runs. Vaccinations are recorded through their HTTP API.
 */
let smtp: SmtpSink;
const clock = new TestClock(Date.parse('2026-11-23T05:00:00.000Z'));
const day = 86_400_000;

let bella: { id: string };
let luna: { id: string };
let max: { id: string };
let consenting: { id: string };
const vac: Record<string, string> = {};

async function vaccinate(petId: string, vaccine: string, administeredOn: string, dueOn: string): Promise<string> {
  const res = await t.request('POST', `/v1/pets/${petId}/vaccinations`, { token: await freshAdminToken(t), body: { vaccine, administeredOn, dueOn } });
  if (res.status !== 201) throw new Error(`vaccination: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const db = () => t.stores.get('live').db;

async function dueEvents() {
  const rows = await db().selectFrom('events').selectAll().where('type', '=', 'pet.vaccination_due').orderBy('id').execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, string> }));
}

test.before(async () => {
  smtp = await startSmtpSink();
});
const t = useTestApp(test, () => ({ clock, config: { smtpUrl: smtp.url, mailFrom: 'Downtown Clinic <hello@downtown.test>', jobPollMs: 20 } }));
test.before(async () => {
  const downtown = await createLocation(t, { name: 'Downtown Clinic', timezone: 'America/New_York' });
  consenting = await createPetParent(t, downtown.id, { name: 'Alex Morgan', email: 'alex@example.com', reminderConsent: true });
  const declined = await createPetParent(t, downtown.id, { name: 'Sam Patel', email: 'sam@example.com', reminderConsent: false });
  const noEmail = await createPetParent(t, downtown.id, { name: 'Jo Williams', email: null, reminderConsent: true });
  bella = await createPet(t, consenting.id, downtown.id, { name: 'Bella' });
  luna = await createPet(t, declined.id, downtown.id, { name: 'Luna' });
  max = await createPet(t, noEmail.id, downtown.id, { name: 'Max' });

  vac.rabies = await vaccinate(bella.id, 'Rabies', '2025-12-10', '2026-12-10'); // due in 17 days
  vac.parvo = await vaccinate(bella.id, 'Parvovirus', '2025-11-13', '2026-11-13'); // overdue 10 days, never reminded
  // Superseded: the older dose's due date is in the window, but a newer dose moved it a year out.
  vac.leptoOld = await vaccinate(bella.id, 'Leptospirosis', '2025-12-01', '2026-12-01');
  vac.leptoNew = await vaccinate(bella.id, 'leptospirosis', '2026-11-20', '2027-11-20');
  vac.bordetella = await vaccinate(bella.id, 'Bordetella', '2026-03-01', '2027-03-01'); // beyond 30 days
  vac.felv = await vaccinate(bella.id, 'FeLV', '2025-09-01', '2026-09-01'); // overdue by more than 30 days
  vac.lunaRabies = await vaccinate(luna.id, 'Rabies', '2025-12-01', '2026-12-01');
  vac.maxRabies = await vaccinate(max.id, 'Rabies', '2025-12-02', '2026-12-02');
});
test.after.always(async () => {
  await smtp?.close();
});

test.serial('a run emits pet.vaccination_due for each due latest dose and emails consenting parents', async (a) => {
  const run = await runJob(t, 'vaccination-reminders');
  a.like(run.result, { due: 4, eventsEmitted: 4, notified: 2, noConsent: 1, noEmail: 1, alreadyReminded: 0 });

  const events = await dueEvents();
  a.deepEqual(
    events.map((e) => [e.data.petId, e.data.vaccine, e.data.dueOn]).sort(),
    [
      [bella.id, 'Parvovirus', '2026-11-13'],
      [bella.id, 'Rabies', '2026-12-10'],
      [luna.id, 'Rabies', '2026-12-01'],
      [max.id, 'Rabies', '2026-12-02'],
    ].sort(),
  );
  const rabies = events.find((e) => e.data.vaccinationId === vac.rabies)!;
  a.deepEqual(rabies.data, { petId: bella.id, vaccine: 'Rabies', dueOn: '2026-12-10', vaccinationId: vac.rabies });
  a.is(rabies.created_at, new Date(clock.now()).toISOString());
  a.is(rabies.tenant_id, t.tenantId);

  const admin = await freshAdminToken(t);
  const list = await t.request('GET', `/v1/notifications?kind=vaccination_reminder`, { token: admin });
  a.is(list.status, 200);
  const reminders = list.body.data as NotificationBody[];
  a.is(reminders.length, 2);
  for (const n of reminders) a.like(n, { parentId: consenting.id, petId: bella.id, to: 'alex@example.com', kind: 'vaccination_reminder', channel: 'email' });
  a.deepEqual(reminders.map((n) => n.relatedId).sort(), [vac.rabies, vac.parvo].sort());
  for (const n of reminders) await waitForNotification(t, admin, n.id, (x) => x.status === 'sent');

  const mails = await smtp.waitForMessages(2);
  a.true(mails.every((m) => m.to.length === 1 && m.to[0] === 'alex@example.com'));
  const rabiesMail = mails.find((m) => m.subject.includes('Rabies'))!;
  a.is(rabiesMail.subject, "Bella's Rabies vaccination is due on Thursday 10 December 2026");
  a.regex(rabiesMail.text, /^Hello Alex Morgan,/);
  a.regex(rabiesMail.text, /Please contact Downtown Clinic to book a visit\./);
  const parvoMail = mails.find((m) => m.subject.includes('Parvovirus'))!;
  a.is(parvoMail.subject, "Bella's Parvovirus vaccination is overdue (due Friday 13 November 2026)");
  a.regex(parvoMail.text, /was due on Friday 13 November 2026 and is now overdue/);
});

test.serial('running it again (and the next days) emits nothing more and sends no second email', async (a) => {
  const again = await runJob(t, 'vaccination-reminders');
  a.like(again.result, { due: 0, eventsEmitted: 0, notified: 0 });
  clock.advance(day);
  const tomorrow = await runJob(t, 'vaccination-reminders');
  a.like(tomorrow.result, { eventsEmitted: 0, notified: 0 });
  await deliverOutbox(t);
  a.is((await dueEvents()).length, 4);
  a.is(smtp.messages.length, 2);
  const ledger = await db().selectFrom('reminder_ledger').selectAll().where('kind', '=', 'vaccination').execute();
  a.is(ledger.length, 4);
  a.deepEqual(ledger.map((r) => r.outcome).sort(), ['no_consent', 'no_email', 'notified', 'notified']);
});

test.serial('a new dose with a new due date in the window is reminded once more; one moving it out is not', async (a) => {
  // Rabies again, now due in 20 days: a new due date → a new reminder.
  const newRabies = await vaccinate(bella.id, 'Rabies', '2026-11-22', '2026-12-14');
  // Luna's Rabies renewed for a year: out of the window, nothing.
  await vaccinate(luna.id, 'Rabies', '2026-11-22', '2027-11-22');
  const run = await runJob(t, 'vaccination-reminders');
  a.like(run.result, { due: 1, eventsEmitted: 1, notified: 1 });
  const events = await dueEvents();
  a.is(events.length, 5);
  a.deepEqual(events.at(-1)!.data, { petId: bella.id, vaccine: 'Rabies', dueOn: '2026-12-14', vaccinationId: newRabies });
  const mails = await smtp.waitForMessages(3);
  a.is(mails[2]!.subject, "Bella's Rabies vaccination is due on Monday 14 December 2026");
  a.like((await runJob(t, 'vaccination-reminders')).result, { due: 0, eventsEmitted: 0 });
});

test.serial('a parent who consents later is reminded of the next due date, not of one already handled', async (a) => {
  const admin = await freshAdminToken(t);
  const luna2 = await t.request('GET', `/v1/pets/${luna.id}`, { token: admin });
  const parentId = luna2.body.ownerId as string;
  const patch = await t.request('PATCH', `/v1/pet-parents/${parentId}`, { token: admin, body: { reminderConsent: true } });
  a.is(patch.status, 200);
  a.like((await runJob(t, 'vaccination-reminders')).result, { due: 0, notified: 0 });
  await vaccinate(luna.id, 'Distemper', '2025-12-05', '2026-12-05');
  a.like((await runJob(t, 'vaccination-reminders')).result, { due: 1, notified: 1 });
  const mails = await smtp.waitForMessages(4);
  a.deepEqual(mails[3]!.to, ['sam@example.com']);
  a.regex(mails[3]!.subject, /^Luna's Distemper vaccination is due on Saturday 5 December 2026$/);
});

test('the job is listed with its daily schedule', async (a) => {
  const res = await t.request('GET', '/v1/jobs/vaccination-reminders', { token: await freshAdminToken(t) });
  a.is(res.status, 200);
  a.is(res.body.name, 'vaccination-reminders');
  a.deepEqual(res.body.schedule, { type: 'cron', expression: '0 6 * * *' });
});
