import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import {
  anotherPet,
  boardingApp,
  booked,
  checkedIn,
  day,
  dayAfter,
  eventsOf,
  expectStatus,
  room,
  runJob,
  scopedClient,
  site,
  start,
  today,
} from './boarding-support.js';

/** Care plans, the append-only dose log, care items on the check-out invoice, and the care-plan-doses job. */
const planKeys = ['id', 'bookingId', 'petId', 'locationId', 'feeding', 'medications', 'notes', 'createdAt', 'updatedAt'].sort();
const doseKeys = ['id', 'carePlanId', 'bookingId', 'medication', 'scheduledFor', 'outcome', 'givenBy', 'notes', 'recordedBy', 'createdAt', 'supersedes'].sort();

const planBody = (bookingId: string, extra: Record<string, unknown> = {}) => ({
  bookingId,
  feeding: [
    { time: '07:30', food: 'Kibble', portion: '1 cup', notes: 'Soaked' },
    { time: '18:00', food: 'Kibble', portion: '1 cup' },
  ],
  medications: [
    { name: 'Apoquel', dose: '16 mg', times: ['20:00', '08:00'], withFood: true, notes: 'In cheese', administrationAmount: 250 },
    { name: 'Eye drops', dose: '1 drop', times: ['12:00'] },
  ],
  notes: 'Anxious at night',
  ...extra,
});

async function stayWithPlan(ctx: Awaited<ReturnType<typeof boardingApp>>, checkIn = true) {
  const { t, tokens } = ctx;
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5 });
  const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
  if (checkIn) await checkedIn(t, tokens.staff.accessToken, b.id);
  const plan = (
    await expectStatus(await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody(b.id) }), 201, 'care plan')
  ).body;
  return { s, b, plan };
}

const dose = (extra: Record<string, unknown> = {}) => ({
  medication: 'apoquel',
  scheduledFor: `${today}T20:00:00Z`,
  outcome: 'given',
  givenBy: 'Sam',
  ...extra,
});

test('care plans: create with every field, read, list with filters, patch; validation and closed stays', async (a) => {
  const ctx = await boardingApp();
  const { t, tokens } = ctx;
  try {
    const { s, b, plan } = await stayWithPlan(ctx, false);
    a.deepEqual(Object.keys(plan).sort(), planKeys);
    a.regex(plan.id, /^cpl_[a-z0-9]{26}$/);
    a.deepEqual(plan, {
      id: plan.id,
      bookingId: b.id,
      petId: s.pet.id,
      locationId: s.location.id,
      feeding: [
        { time: '07:30', food: 'Kibble', portion: '1 cup', notes: 'Soaked' },
        { time: '18:00', food: 'Kibble', portion: '1 cup', notes: null },
      ],
      medications: [
        { name: 'Apoquel', dose: '16 mg', times: ['08:00', '20:00'], withFood: true, notes: 'In cheese', administrationAmount: 250 },
        { name: 'Eye drops', dose: '1 drop', times: ['12:00'], withFood: false, notes: null, administrationAmount: 0 },
      ],
      notes: 'Anxious at night',
      createdAt: new Date(start).toISOString(),
      updatedAt: new Date(start).toISOString(),
    });
    a.deepEqual((await t.request('GET', `/v1/boarding/care-plans/${plan.id}`, { token: tokens.reader.accessToken })).body, plan);

    const other = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: dayAfter(5), checkOutOn: dayAfter(7) });
    const plan2 = (
      await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: { bookingId: other.id, feeding: [], medications: [] } })
    ).body;
    const ids = async (query: string) =>
      ((await t.request('GET', `/v1/boarding/care-plans?${query}`, { token: tokens.reader.accessToken })).body.data as Array<{ id: string }>).map((p) => p.id);
    a.deepEqual(await ids(`locationId=${s.location.id}`), [plan2.id, plan.id]);
    a.deepEqual(await ids(`bookingId=${b.id}`), [plan.id]);
    a.deepEqual(await ids(`petId=${s.pet.id}`), [plan.id]);
    a.deepEqual(await ids(`locationId=${s.location.id}&activeOn=${dayAfter(2)}`), [plan.id]);
    a.deepEqual(await ids(`locationId=${s.location.id}&activeOn=${dayAfter(3)}`), [], 'the check-out day is not a night of the stay');
    a.deepEqual(await ids(`locationId=${s.location.id}&activeOn=${dayAfter(6)}`), [plan2.id]);

    const patched = await t.request('PATCH', `/v1/boarding/care-plans/${plan.id}`, {
      token: tokens.staff.accessToken,
      body: { medications: [{ name: 'Apoquel', dose: '8 mg', times: ['09:00'] }], notes: null },
    });
    a.is(patched.status, 200, patched.text);
    a.like(patched.body, {
      feeding: plan.feeding,
      notes: null,
      medications: [{ name: 'Apoquel', dose: '8 mg', times: ['09:00'], withFood: false, notes: null, administrationAmount: 0 }],
    });

    for (const [body, field] of [
      [
        planBody(b.id, {
          medications: [
            { name: 'A', dose: '1', times: ['08:00'] },
            { name: ' a ', dose: '2', times: ['09:00'] },
          ],
        }),
        'medications[1].name',
      ],
      [planBody(b.id, { medications: [{ name: 'A', dose: '1', times: ['24:00'] }] }), 'medications[0].times[0]'],
      [planBody(b.id, { medications: [{ name: 'A', dose: '1', times: [] }] }), 'medications[0].times'],
      [planBody(b.id, { feeding: [{ time: '7am', food: 'x', portion: 'y' }] }), 'feeding[0].time'],
      [planBody(b.id, { medications: [{ name: 'A', dose: '1', times: ['08:00'], administrationAmount: -5 }] }), 'medications[0].administrationAmount'],
      [{ feeding: [], medications: [] }, 'bookingId'],
    ] as const) {
      const res = await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body });
      assertProblem(a, res, 400, 'validation_failed');
      a.deepEqual(fieldsOf(res), [field]);
    }
    assertProblem(
      a,
      await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody('bkg_unknown') }),
      400,
      'resource_missing',
    );
    a.is((await t.stores.get('live').db.selectFrom('boarding_care_plans').select('id').where('booking_id', '=', b.id).execute()).length, 1, 'nothing written');

    await t.request('POST', `/v1/boarding/bookings/${other.id}/cancel`, { token: tokens.staff.accessToken, body: {} });
    const closed = await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody(other.id) });
    assertProblem(a, closed, 409, 'invalid_state_transition');
    a.is(closed.body.currentStatus, 'cancelled');
    assertProblem(
      a,
      await t.request('PATCH', `/v1/boarding/care-plans/${plan2.id}`, { token: tokens.staff.accessToken, body: { notes: 'x' } }),
      409,
      'invalid_state_transition',
    );
    assertProblem(
      a,
      await t.request('POST', `/v1/boarding/care-plans/${plan2.id}/doses`, { token: tokens.staff.accessToken, body: dose({ medication: 'x' }) }),
      400,
      'validation_failed',
    );
  } finally {
    await t.close();
  }
});

test('the dose log: only while checked in, medication from the plan, append-only in SQLite; doses given are billed at check-out as care items', async (a) => {
  const ctx = await boardingApp();
  const { t, tokens, move } = ctx;
  try {
    const s = await site(t);
    await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5, nightlyRate: 5_000 });
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
    const plan = (await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody(b.id) })).body;
    const early = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.staff.accessToken, body: dose() });
    assertProblem(a, early, 409, 'invalid_state_transition');
    a.is(early.body.currentStatus, 'reserved');
    await checkedIn(t, tokens.staff.accessToken, b.id);

    const res = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
      token: tokens.staff.accessToken,
      body: dose({ scheduledFor: `${today}T20:00:00+00:00`, notes: 'Took it well' }),
    });
    a.is(res.status, 201, res.text);
    a.deepEqual(Object.keys(res.body).sort(), doseKeys);
    a.regex(res.body.id, /^dos_/);
    a.like(res.body, {
      carePlanId: plan.id,
      bookingId: b.id,
      medication: 'Apoquel',
      scheduledFor: `${today}T20:00:00.000Z`,
      outcome: 'given',
      givenBy: 'Sam',
      notes: 'Took it well',
      recordedBy: { clientId: tokens.staff.id },
    });
    await expectStatus(
      await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
        token: tokens.staff.accessToken,
        body: dose({ scheduledFor: `${dayAfter(1)}T08:00:00Z` }),
      }),
      201,
      'dose 2',
    );
    await expectStatus(
      await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
        token: tokens.staff.accessToken,
        body: dose({ scheduledFor: `${dayAfter(1)}T20:00:00Z`, outcome: 'refused' }),
      }),
      201,
      'dose 3',
    );
    await expectStatus(
      await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
        token: tokens.staff.accessToken,
        body: dose({ medication: 'EYE DROPS', scheduledFor: `${today}T12:00:00Z` }),
      }),
      201,
      'dose 4',
    );
    for (const [body, field] of [
      [dose({ medication: 'Aspirin' }), 'medication'],
      [dose({ outcome: 'maybe' }), 'outcome'],
      [dose({ scheduledFor: '2026-12-01 20:00' }), 'scheduledFor'],
      [dose({ givenBy: '' }), 'givenBy'],
    ] as const) {
      const bad = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.staff.accessToken, body });
      assertProblem(a, bad, 400, 'validation_failed');
      a.deepEqual(fieldsOf(bad), [field]);
    }
    const list = await t.request('GET', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.reader.accessToken });
    a.is(list.body.data.length, 4);
    a.is(list.body.data[3].id, res.body.id, 'newest first');

    const db = t.stores.get('live').db;
    await a.throwsAsync(db.updateTable('boarding_doses').set({ outcome: 'skipped' }).where('id', '=', res.body.id).execute(), { message: /append-only/ });
    await a.throwsAsync(db.deleteFrom('boarding_doses').where('id', '=', res.body.id).execute(), { message: /append-only/ });

    await move(start + 2 * day);
    const out = await t.request('POST', '/v1/boarding/check-out', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    a.is(out.status, 200, out.text);
    const invoice = (await t.request('GET', `/v1/invoices/${out.body.invoiceId}`, { token: tokens.admin })).body;
    a.deepEqual(
      invoice.lines.map((l: Record<string, unknown>) => [l.quantity, l.unitAmount, l.amount, l.sourceId]),
      [
        [2, 5_000, 10_000, b.id],
        [2, 250, 500, b.id],
      ],
      'two nights, and two given doses of the one medication with an administrationAmount',
    );
    a.is(invoice.status, 'open');
    a.is(invoice.total, 10_500);
    const after = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.staff.accessToken, body: dose() });
    assertProblem(a, after, 409, 'invalid_state_transition');
    a.is(after.body.currentStatus, 'checked_out');
  } finally {
    await t.close();
  }
});

test('care-plan-doses job: one boarding.dose_overdue per missed dose (local times), none for logged ones, once across runs', async (a) => {
  const ctx = await boardingApp();
  const { t, tokens, move } = ctx;
  try {
    // New York: 08:00 local = 13:00Z, 20:00 local = 01:00Z next day (EST, UTC−5). Checked in at 10:00Z = 05:00 local on 1 Dec.
    const s = await site(t, { timezone: 'America/New_York' });
    await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5 });
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(-1), checkOutOn: dayAfter(3) }).catch(() => null);
    a.is(b, null, 'a check-in day before today (30 Nov in New York at 05:00) is refused');
    const stay = await booked(t, tokens.staff.accessToken, s, { checkInOn: '2026-12-01', checkOutOn: dayAfter(3) });
    await checkedIn(t, tokens.staff.accessToken, stay.id);
    const plan = (
      await t.request('POST', '/v1/boarding/care-plans', {
        token: tokens.staff.accessToken,
        body: { bookingId: stay.id, feeding: [], medications: [{ name: 'Apoquel', dose: '16 mg', times: ['08:00', '20:00'] }] },
      })
    ).body;
    const reserved = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: today, checkOutOn: dayAfter(2) });
    await t.request('POST', '/v1/boarding/care-plans', {
      token: tokens.staff.accessToken,
      body: { bookingId: reserved.id, feeding: [], medications: [{ name: 'X', dose: '1', times: ['08:00'] }] },
    });

    // 2 Dec 15:00Z = 10:00 local: due so far 08:00 local 1 Dec (13:00Z), 20:00 local 1 Dec (01:00Z 2 Dec), 08:00 local 2 Dec (13:00Z).
    // Logged ahead of the clock move, so no scheduled run in between can see that dose as missed.
    await expectStatus(
      await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
        token: tokens.staff.accessToken,
        body: dose({ scheduledFor: '2026-12-01T20:00:00-05:00', outcome: 'skipped' }),
      }),
      201,
      'dose',
    );
    await move(Date.parse('2026-12-02T15:00:00Z'));
    await runJob(t, tokens.admin, 'care-plan-doses');
    await runJob(t, tokens.admin, 'care-plan-doses');
    const events = await eventsOf(t, 'boarding.dose_overdue', 'carePlanId', plan.id);
    a.deepEqual(
      events.map((e) => e.data),
      [
        {
          carePlanId: plan.id,
          bookingId: stay.id,
          petId: s.pet.id,
          locationId: s.location.id,
          medication: 'Apoquel',
          scheduledFor: '2026-12-01T13:00:00.000Z',
        },
        {
          carePlanId: plan.id,
          bookingId: stay.id,
          petId: s.pet.id,
          locationId: s.location.id,
          medication: 'Apoquel',
          scheduledFor: '2026-12-02T13:00:00.000Z',
        },
      ],
    );
    a.is((await eventsOf(t, 'boarding.dose_overdue', 'bookingId', reserved.id)).length, 0, 'stays not checked in are not watched');

    // 20:00 local on 2 Dec (01:00Z on 3 Dec) is overdue from 02:00Z (PETCARE_DOSE_OVERDUE_MINUTES = 60); not at 01:30Z.
    await move(Date.parse('2026-12-03T01:30:00Z'));
    await runJob(t, tokens.admin, 'care-plan-doses');
    a.is((await eventsOf(t, 'boarding.dose_overdue', 'carePlanId', plan.id)).length, 2);
    await move(Date.parse('2026-12-03T02:01:00Z'));
    await Promise.all([runJob(t, tokens.admin, 'care-plan-doses'), runJob(t, tokens.admin, 'care-plan-doses')]);
    const later = await eventsOf(t, 'boarding.dose_overdue', 'carePlanId', plan.id);
    a.deepEqual(
      later.map((e) => e.data.scheduledFor),
      ['2026-12-01T13:00:00.000Z', '2026-12-02T13:00:00.000Z', '2026-12-03T01:00:00.000Z'],
    );
  } finally {
    await t.close();
  }
});

test('401, 403, another location’s client gets 404; Idempotency-Key replays plans and doses', async (a) => {
  const ctx = await boardingApp();
  const { t, tokens } = ctx;
  try {
    const { s, b, plan } = await stayWithPlan(ctx);
    assertProblem(a, await t.request('GET', `/v1/boarding/care-plans/${plan.id}`, {}), 401, 'unauthorized');
    assertProblem(
      a,
      await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.reader.accessToken, body: dose() }),
      403,
      'insufficient_scope',
    );
    const elsewhere = await site(t);
    const scoped = await scopedClient(t, [elsewhere.location.id]);
    assertProblem(a, await t.request('GET', `/v1/boarding/care-plans/${plan.id}`, { token: scoped.accessToken }), 404, 'not_found');
    assertProblem(a, await t.request('PATCH', `/v1/boarding/care-plans/${plan.id}`, { token: scoped.accessToken, body: { notes: 'x' } }), 404, 'not_found');
    assertProblem(a, await t.request('GET', `/v1/boarding/care-plans/${plan.id}/doses`, { token: scoped.accessToken }), 404, 'not_found');
    assertProblem(a, await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: scoped.accessToken, body: dose() }), 404, 'not_found');
    assertProblem(a, await t.request('POST', '/v1/boarding/care-plans', { token: scoped.accessToken, body: planBody(b.id) }), 400, 'resource_missing');
    a.deepEqual((await t.request('GET', '/v1/boarding/care-plans', { token: scoped.accessToken })).body.data, []);

    const p1 = await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody(b.id), idempotencyKey: 'plan-1' });
    const p2 = await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: planBody(b.id), idempotencyKey: 'plan-1' });
    a.is(p2.headers.get('idempotent-replayed'), 'true');
    a.deepEqual(p2.body, p1.body);
    const d1 = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.staff.accessToken, body: dose(), idempotencyKey: 'dose-1' });
    const d2 = await t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.staff.accessToken, body: dose(), idempotencyKey: 'dose-1' });
    a.is(d2.status, 201);
    a.deepEqual(d2.body, d1.body);
    a.is((await t.stores.get('live').db.selectFrom('boarding_doses').select('id').where('care_plan_id', '=', plan.id).execute()).length, 1);
    a.is(s.location.id, plan.locationId);
  } finally {
    await t.close();
  }
});
