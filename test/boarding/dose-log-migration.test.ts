import test from 'ava';
import type SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/database.js';
import { newId } from '../../src/db/ids.js';
import { createMigrator } from '../../src/db/migrator.js';
import { databaseFile } from '../../src/db/stores.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, TestClock } from '../helpers/test-app.js';
import { dayAfter, expectStatus, room, start, today } from './boarding-support.js';

/**
 * The upgrade to one entry per dose (2026_11_26_1700_add_dose_supersedes) on a data dir whose dose
 * log holds duplicates logged under the old rule: nothing is deleted, each later entry of a dose
 * becomes a correction of the one before it, and check-out then bills each dose once.
 */
const migration = '2026_11_26_1700_add_dose_supersedes';

const all = <T>(sqlite: SQLite.Database, text: string, ...params: unknown[]): T[] => sqlite.prepare(text).all(...params) as T[];

test('duplicates logged before the rule become chains (the latest counts); check-out bills each dose given once', async (a) => {
  const clock = new TestClock(start);
  let t = await startTestApp({ clock });
  const { dataDir } = t;
  let admin = await t.adminToken();
  const { location, pet } = await createHousehold(t);
  await room(t, admin, location.id, { capacity: 2, nightlyRate: 5_000 });
  const stay = await expectStatus(
    await t.request('POST', '/v1/boarding/bookings', {
      token: admin,
      body: { petId: pet.id, locationId: location.id, roomType: 'standard', checkInOn: today, checkOutOn: dayAfter(3) },
    }),
    201,
    'booking',
  );
  await expectStatus(await t.request('POST', '/v1/boarding/check-in', { token: admin, body: { bookingId: stay.body.id } }), 200, 'check-in');
  const plan = await expectStatus(
    await t.request('POST', '/v1/boarding/care-plans', {
      token: admin,
      body: { bookingId: stay.body.id, feeding: [], medications: [{ name: 'Apoquel', dose: '16 mg', times: ['08:00', '20:00'], administrationAmount: 250 }] },
    }),
    201,
    'plan',
  );
  const log = (scheduledFor: string) =>
    t.request('POST', `/v1/boarding/care-plans/${plan.body.id}/doses`, {
      token: admin,
      body: { medication: 'Apoquel', scheduledFor, outcome: 'given', givenBy: 'Sam' },
    });
  const tonight = (await expectStatus(await log(`${today}T20:00:00Z`), 201, 'tonight')).body.id as string;
  const morning = (await expectStatus(await log(`${dayAfter(1)}T08:00:00Z`), 201, 'morning')).body.id as string;
  await t.close({ keepData: true });

  // The data dir as the old rule left it: the schema before the migration, and the same doses logged again.
  const handle = openDatabase(databaseFile(dataDir, 'live'));
  try {
    // Down to the migration just before this one (whatever was added since stays out of the way).
    const names = (await createMigrator(handle.db).getMigrations()).map((m) => m.name);
    const previous = names[names.indexOf(migration) - 1]!;
    const down = await createMigrator(handle.db).migrateTo(previous);
    a.falsy(down.error);
    a.false(
      all<{ name: string }>(handle.sqlite, 'PRAGMA table_info(boarding_doses)').some((c) => c.name === 'supersedes'),
      'down drops the column',
    );
    const copy = handle.sqlite.prepare(`
      INSERT INTO boarding_doses (id, tenant_id, care_plan_id, booking_id, medication, medication_key, scheduled_for, outcome, given_by, notes, recorded_by_client_id, created_at)
      SELECT ?, tenant_id, care_plan_id, booking_id, medication, medication_key, scheduled_for, ?, given_by, 'logged again', recorded_by_client_id, created_at FROM boarding_doses WHERE id = ?`);
    const tonight2 = newId('dos');
    const tonight3 = newId('dos');
    const morning2 = newId('dos');
    copy.run(tonight2, 'given', tonight);
    copy.run(tonight3, 'given', tonight);
    copy.run(morning2, 'refused', morning);
    a.is(all(handle.sqlite, 'SELECT id FROM boarding_doses').length, 5);

    const up = await createMigrator(handle.db).migrateToLatest();
    a.falsy(up.error);
    a.true(up.results?.some((r) => r.migrationName === migration && r.status === 'Success'));
    a.deepEqual(
      all<{ id: string; supersedes: string | null }>(handle.sqlite, 'SELECT id, supersedes FROM boarding_doses ORDER BY id'),
      [
        { id: tonight, supersedes: null },
        { id: morning, supersedes: null },
        { id: tonight2, supersedes: tonight },
        { id: tonight3, supersedes: tonight2 },
        { id: morning2, supersedes: morning },
      ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      'every entry kept; each later one corrects the one before it',
    );
    a.throws(() => handle.sqlite.prepare("UPDATE boarding_doses SET notes = 'x'").run(), { message: /append-only/ }, 'the append-only trigger is back');
  } finally {
    await handle.db.destroy();
  }

  // Restarted on the upgraded data dir: a third entry is refused, check-out bills 1 Dec 20:00 once and 2 Dec 08:00 (latest: refused) not at all.
  clock.set(start + 2 * 86_400_000);
  t = await startTestApp({ clock, dataDir });
  try {
    admin = await t.adminToken();
    const again = await log(`${today}T20:00:00Z`);
    a.is(again.status, 409, again.text);
    a.is(again.body.code, 'dose_already_logged');
    const out = await expectStatus(await t.request('POST', '/v1/boarding/check-out', { token: admin, body: { bookingId: stay.body.id } }), 200, 'check-out');
    const invoice = (await t.request('GET', `/v1/invoices/${out.body.invoiceId}`, { token: admin })).body;
    a.deepEqual(
      invoice.lines.map((l: Record<string, unknown>) => [l.quantity, l.unitAmount]),
      [
        [2, 5_000],
        [1, 250],
      ],
    );
  } finally {
    await t.close();
  }
});
