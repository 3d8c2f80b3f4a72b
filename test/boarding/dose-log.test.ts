import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import { boardingApp, booked, checkedIn, day, dayAfter, expectStatus, room, site, start, today, type Site } from './boarding-support.js';

/**
 * The dose log's one-entry-per-dose rule (DESIGN §10): scheduledFor is one of the plan's times on a
 * day of the stay (else 422 dose_not_scheduled), a second entry for a dose is 409 dose_already_logged,
 * a correction supersedes the latest entry of its dose, and check-out bills each dose given once.
 */

type Ctx = Awaited<ReturnType<typeof boardingApp>>;

const medications = [
  { name: 'Apoquel', dose: '16 mg', times: ['08:00', '20:00'], administrationAmount: 250 },
  { name: 'Eye drops', dose: '1 drop', times: ['12:00'] },
];

/** A checked-in stay from today to today + 3 (nights 1, 2 and 3 Dec) with a plan of two medications. */
async function stayWithPlan(ctx: Ctx, location: Record<string, unknown> = {}) {
  const { t, tokens } = ctx;
  const s: Site = await site(t, location);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5, nightlyRate: 5_000 });
  const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
  await checkedIn(t, tokens.staff.accessToken, b.id);
  const plan = (
    await expectStatus(
      await t.request('POST', '/v1/boarding/care-plans', { token: tokens.staff.accessToken, body: { bookingId: b.id, feeding: [], medications } }),
      201,
      'care plan',
    )
  ).body as { id: string };
  const log = (body: Record<string, unknown>) =>
    t.request('POST', `/v1/boarding/care-plans/${plan.id}/doses`, {
      token: tokens.staff.accessToken,
      body: { medication: 'Apoquel', outcome: 'given', givenBy: 'Sam', ...body },
    });
  return { s, b, plan, log };
}

async function checkOutLines(ctx: Ctx, bookingId: string) {
  const { t, tokens } = ctx;
  const out = await expectStatus(await t.request('POST', '/v1/boarding/check-out', { token: tokens.staff.accessToken, body: { bookingId } }), 200, 'check-out');
  const invoice = (await t.request('GET', `/v1/invoices/${out.body.invoiceId}`, { token: tokens.admin })).body;
  return invoice.lines.map((l: Record<string, unknown>) => [l.description, l.quantity, l.unitAmount]) as Array<[string, number, number]>;
}

test('24 parallel POSTs of the same dose: exactly one 201, the rest 409 dose_already_logged; check-out bills the dose once', async (a) => {
  const ctx = await boardingApp();
  const { t } = ctx;
  try {
    const { b, plan, log } = await stayWithPlan(ctx);
    const scheduledFor = `${dayAfter(1)}T08:00:00Z`;
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => log({ scheduledFor, givenBy: `Nurse ${i}` })));
    const created = answers.filter((r) => r.status === 201);
    a.is(created.length, 1, answers.map((r) => r.status).join(','));
    for (const r of answers.filter((x) => x.status !== 201)) {
      assertProblem(a, r, 409, 'dose_already_logged');
      a.is(r.body.doseId, created[0]!.body.id, 'the conflict names the entry to supersede');
    }
    // The same instant written another way is the same dose.
    assertProblem(a, await log({ scheduledFor: `${dayAfter(1)}T09:00:00+01:00`, medication: 'APOQUEL' }), 409, 'dose_already_logged');
    const rows = await t.stores.get('live').db.selectFrom('boarding_doses').select(['id', 'supersedes']).where('care_plan_id', '=', plan.id).execute();
    a.deepEqual(rows, [{ id: created[0]!.body.id, supersedes: null }]);

    await ctx.move(start + 2 * day);
    const lines = await checkOutLines(ctx, b.id);
    a.deepEqual(
      lines.map(([, quantity, unitAmount]) => [quantity, unitAmount]),
      [
        [2, 5_000],
        [1, 250],
      ],
      'two nights and one dose',
    );
    a.is(lines[1]![0], 'Medication: Apoquel 16 mg (1 dose given)');
  } finally {
    await t.close();
  }
});

test('scheduledFor must be one of the medication’s times (local at the location) on a day of the stay, else 422 dose_not_scheduled', async (a) => {
  const ctx = await boardingApp();
  const { t } = ctx;
  try {
    const { log } = await stayWithPlan(ctx);
    for (const [scheduledFor, why] of [
      ['1900-01-01T08:00:00Z', 'in 1900'],
      ['9999-12-31T08:00:00Z', 'in 9999'],
      [`${today}T08:15:00Z`, 'not a plan time'],
      [`${today}T12:00:00Z`, 'the eye drops’ time, not Apoquel’s'],
      [`${today}T20:00:00.001Z`, 'a millisecond off'],
      [`${dayAfter(-1)}T20:00:00Z`, 'the day before check-in'],
      [`${dayAfter(3)}T08:00:00Z`, 'the check-out day (not a night of the stay), while it is still ahead'],
      [`${dayAfter(10)}T08:00:00Z`, 'after the stay'],
    ] as const) {
      const res = await log({ scheduledFor });
      assertProblem(a, res, 422, 'dose_not_scheduled');
      a.like(res.body, { times: ['08:00', '20:00'], timezone: 'Europe/London', checkInOn: today, checkOutOn: dayAfter(3) }, why);
    }
    await expectStatus(await log({ scheduledFor: `${today}T20:00:00Z` }), 201, 'tonight');
    await expectStatus(await log({ scheduledFor: `${dayAfter(2)}T21:00:00+01:00` }), 201, 'the last night, with an offset');
    await expectStatus(await log({ medication: 'eye drops', scheduledFor: `${dayAfter(1)}T12:00:00Z`, outcome: 'skipped' }), 201, 'eye drops');

    // The pet stays past its check-out day: the doses of the days it is in house can be logged, not later ones.
    await ctx.move(Date.parse(`${dayAfter(3)}T09:00:00Z`));
    await expectStatus(await log({ scheduledFor: `${dayAfter(3)}T08:00:00Z` }), 201, 'the check-out day, in house');
    await ctx.move(Date.parse(`${dayAfter(4)}T09:00:00Z`));
    await expectStatus(await log({ scheduledFor: `${dayAfter(4)}T08:00:00Z` }), 201, 'an overstay day');
    assertProblem(a, await log({ scheduledFor: `${dayAfter(5)}T08:00:00Z` }), 422, 'dose_not_scheduled');
    a.is((await t.stores.get('live').db.selectFrom('boarding_doses').select('id').execute()).length, 5, 'only the scheduled doses were written');
  } finally {
    await t.close();
  }
});

test('times are local at the stay’s location (New York: 08:00 is 13:00Z in December)', async (a) => {
  const ctx = await boardingApp(Date.parse('2026-12-01T15:00:00Z'));
  const { t } = ctx;
  try {
    const { log } = await stayWithPlan(ctx, { timezone: 'America/New_York' });
    assertProblem(a, await log({ scheduledFor: '2026-12-01T08:00:00Z' }), 422, 'dose_not_scheduled');
    const res = await expectStatus(await log({ scheduledFor: '2026-12-01T08:00:00-05:00' }), 201, 'local 08:00');
    a.is(res.body.scheduledFor, '2026-12-01T13:00:00.000Z');
    // 20:00 local on 3 Dec, the last night, is 01:00Z on 4 Dec (the check-out day in UTC).
    await expectStatus(await log({ scheduledFor: '2026-12-04T01:00:00Z' }), 201, 'the last night’s 20:00');
    assertProblem(a, await log({ scheduledFor: '2026-12-01T13:00:00Z' }), 409, 'dose_already_logged');
  } finally {
    await t.close();
  }
});

test('a correction supersedes the latest entry of its dose; only the latest counts, at check-out too; SQLite holds the rule', async (a) => {
  const ctx = await boardingApp();
  const { t, tokens } = ctx;
  try {
    const { b, plan, log } = await stayWithPlan(ctx);
    const tonight = `${today}T20:00:00Z`;
    const first = (await expectStatus(await log({ scheduledFor: tonight }), 201, 'first')).body;
    a.is(first.supersedes, null);
    const again = await log({ scheduledFor: tonight, outcome: 'refused' });
    assertProblem(a, again, 409, 'dose_already_logged');
    a.is(again.body.doseId, first.id);

    const refused = (
      await expectStatus(await log({ scheduledFor: tonight, outcome: 'refused', notes: 'Spat it out', supersedes: first.id }), 201, 'correction')
    ).body;
    a.like(refused, { supersedes: first.id, outcome: 'refused', scheduledFor: `${today}T20:00:00.000Z` });
    const stale = await log({ scheduledFor: tonight, supersedes: first.id });
    assertProblem(a, stale, 409, 'dose_already_logged');
    a.is(stale.body.doseId, refused.id, 'an entry already corrected: supersede the latest');

    const wrongDose = await log({ scheduledFor: `${dayAfter(1)}T08:00:00Z`, supersedes: refused.id });
    assertProblem(a, wrongDose, 400, 'validation_failed');
    a.deepEqual(fieldsOf(wrongDose), ['supersedes']);
    const wrongMedication = await log({ medication: 'Eye drops', scheduledFor: `${today}T12:00:00Z`, supersedes: refused.id });
    assertProblem(a, wrongMedication, 400, 'validation_failed');
    a.deepEqual(fieldsOf(wrongMedication), ['supersedes']);
    const unknown = await log({ scheduledFor: tonight, supersedes: 'dos_unknown' });
    assertProblem(a, unknown, 400, 'resource_missing');
    a.deepEqual(fieldsOf(unknown), ['supersedes']);
    const malformed = await log({ scheduledFor: tonight, supersedes: 'cpl_x' });
    assertProblem(a, malformed, 400, 'validation_failed');
    a.deepEqual(fieldsOf(malformed), ['supersedes']);
    // Another plan's entry is not this plan's.
    const other = await stayWithPlan(ctx);
    const elsewhere = (await expectStatus(await other.log({ scheduledFor: tonight }), 201, 'other plan')).body;
    assertProblem(a, await log({ scheduledFor: tonight, supersedes: elsewhere.id }), 400, 'resource_missing');

    // Parallel corrections of the same entry: one wins.
    const racing = await Promise.all(Array.from({ length: 20 }, () => log({ scheduledFor: tonight, supersedes: refused.id })));
    a.is(racing.filter((r) => r.status === 201).length, 1, racing.map((r) => r.status).join(','));
    for (const r of racing.filter((x) => x.status !== 201)) assertProblem(a, r, 409, 'dose_already_logged');
    const latest = racing.find((r) => r.status === 201)!.body;

    // 2 Dec 08:00 given; 2 Dec 20:00 given, then corrected to skipped.
    await expectStatus(await log({ scheduledFor: `${dayAfter(1)}T08:00:00Z` }), 201, '2 Dec 08:00');
    const wrong = (await expectStatus(await log({ scheduledFor: `${dayAfter(1)}T20:00:00Z` }), 201, '2 Dec 20:00')).body;
    await expectStatus(await log({ scheduledFor: `${dayAfter(1)}T20:00:00Z`, outcome: 'skipped', supersedes: wrong.id }), 201, '2 Dec 20:00 corrected');

    const listed = (await t.request('GET', `/v1/boarding/care-plans/${plan.id}/doses`, { token: tokens.reader.accessToken })).body.data as Array<{
      id: string;
      supersedes: string | null;
    }>;
    a.deepEqual(
      listed.slice(3).map((d) => [d.id, d.supersedes]),
      [
        [latest.id, refused.id],
        [refused.id, first.id],
        [first.id, null],
      ],
      'the log keeps every entry, newest first',
    );

    // SQLite refuses a second entry for a dose, a second correction of an entry, and a correction of another dose.
    const db = t.stores.get('live').db;
    const row = await db.selectFrom('boarding_doses').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    await a.throwsAsync(
      db
        .insertInto('boarding_doses')
        .values({ ...row, id: 'dos_sqlite_root' })
        .execute(),
      { message: /UNIQUE/ },
    );
    await a.throwsAsync(
      db
        .insertInto('boarding_doses')
        .values({ ...row, id: 'dos_sqlite_fork', supersedes: first.id })
        .execute(),
      { message: /UNIQUE/ },
    );
    await a.throwsAsync(
      db
        .insertInto('boarding_doses')
        .values({ ...row, id: 'dos_sqlite_other', scheduled_for: `${dayAfter(2)}T08:00:00.000Z`, supersedes: latest.id })
        .execute(),
      {
        message: /same plan, medication and scheduled time/,
      },
    );

    // Billed: 1 Dec 20:00 (latest: given) and 2 Dec 08:00; not 2 Dec 20:00 (latest: skipped), nor the corrected entries.
    await ctx.move(start + 2 * day);
    const lines = await checkOutLines(ctx, b.id);
    a.deepEqual(lines[1], ['Medication: Apoquel 16 mg (2 doses given)', 2, 250]);
    a.is(lines.length, 2);
  } finally {
    await t.close();
  }
});
