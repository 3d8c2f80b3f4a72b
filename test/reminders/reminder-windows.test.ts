import test from 'ava';
import { randomBytes } from 'node:crypto';
import { newId } from '../../src/db/ids.js';
import { createHousehold } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { freshAdminToken, runJob } from '../notifications/notification-kit.js';

/**
 * Lead times come from config (PETCARE_VACCINATION_REMINDER_DAYS, PETCARE_APPOINTMENT_REMINDER_HOURS),
 * never from sleeping. No SMTP here: reminders are queued in the outbox and stay there.
 */
const clock = new TestClock(Date.parse('2026-11-23T09:30:00.000Z'));

const t = useTestApp(test, { clock, config: { vaccinationReminderDays: 7, appointmentReminderHours: 2, jobPollMs: 20 } });

test.serial('vaccinations: only due dates within the configured days (either side of today) are reminded', async (a) => {
  const { pet, parent } = await createHousehold(t);
  const token = await freshAdminToken(t);
  const record = async (vaccine: string, administeredOn: string, dueOn: string) => {
    const res = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, { token, body: { vaccine, administeredOn, dueOn } });
    if (res.status !== 201) throw new Error(res.text);
  };
  await record('Rabies', '2025-11-30', '2026-11-30'); // in 7 days: in
  await record('Distemper', '2025-12-01', '2026-12-01'); // in 8 days: out
  await record('Parvovirus', '2025-11-16', '2026-11-16'); // 7 days ago: in
  await record('Leptospirosis', '2025-11-15', '2026-11-15'); // 8 days ago: out
  const run = await runJob(t, 'vaccination-reminders');
  a.like(run.result, { due: 2, eventsEmitted: 2, notified: 2 });
  const list = await t.request('GET', `/v1/notifications?parentId=${parent.id}`, { token });
  a.is(list.body.data.length, 2);
  // No SMTP configured: the reminders wait in the outbox.
  for (const n of list.body.data) a.like(n, { status: 'queued', attempts: 0, kind: 'vaccination_reminder' });
  a.like((await runJob(t, 'notification-delivery')).result, { smtp: false, outboxWaiting: true });
});

test.serial('appointments: only those starting within the configured hours are reminded', async (a) => {
  const { pet, location } = await createHousehold(t);
  const db = t.stores.get('live').db;
  const at = new Date(clock.now()).toISOString();
  const providerId = newId('prv');
  await db
    .insertInto('providers')
    .values({
      id: providerId,
      tenant_id: t.tenantId,
      name: 'Dr. Lee',
      kind: 'vet',
      status: 'active',
      services: '[]',
      rating: null,
      rating_count: 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
  const insert = async (startsAt: string) => {
    const id = newId('apt');
    await db
      .insertInto('appointments')
      .values({
        id,
        tenant_id: t.tenantId,
        location_id: location.id,
        pet_id: pet.id,
        provider_id: providerId,
        type: 'checkup',
        status: 'confirmed',
        starts_at: startsAt,
        ends_at: startsAt,
        notes: null,
        created_at: at,
        updated_at: at,
        blocked_from: startsAt,
        blocked_until: startsAt,
        calendar_token: `ct_live_${randomBytes(8).toString('hex')}`,
        sequence: 0,
      })
      .execute();
    return id;
  };
  const inside = await insert('2026-11-23T11:30:00.000Z'); // exactly 2 h ahead: in
  await insert('2026-11-23T11:31:00.000Z'); // just beyond: out
  const run = await runJob(t, 'appointment-reminders');
  a.like(run.result, { upcoming: 1, notified: 1 });
  const list = await t.request('GET', `/v1/notifications?kind=appointment_reminder`, { token: await freshAdminToken(t) });
  a.deepEqual(
    list.body.data.map((n: { relatedId: string }) => n.relatedId),
    [inside],
  );
});
