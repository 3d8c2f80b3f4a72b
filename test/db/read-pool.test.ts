import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scoped } from '../../src/db/access-policy.js';
import { openDatabase, selectRows } from '../../src/db/database.js';
import { attachReadPool, offThread, ReadPoolClosed, readPoolOf } from '../../src/db/read-pool.js';
import { recordRows, referenceTallies } from '../../src/modules/analytics/analytics.repository.js';
import { metricNames } from '../../src/modules/analytics/analytics.schema.js';
import { bucketsOf, windowRows } from '../../src/modules/analytics/metric-windows.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { startTestApp, TestClock, useTestApp } from '../helpers/test-app.js';

/**
 * Heavy reads run on the read pool (worker threads with read-only connections, src/db/read-pool.ts):
 * the answers equal the main connection's, a write is seen by the next read, the pool ends with the
 * appliance, and a database the pool cannot open is read on the main connection.
 */
const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-10-20T09:00:00.000Z')) });

test.serial('analytics summaries, series, CSV and records pages run on the pool and answer what the main connection does', async (tt) => {
  const token = await t.adminToken();
  const { location, parent, pet } = await createHousehold(t);
  const vaccination = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
    token,
    body: { vaccine: 'Rabies', administeredOn: '2026-10-01', dueOn: '2027-10-01' },
  });
  tt.is(vaccination.status, 201);
  const store = t.stores.get('live');
  const pool = readPoolOf(store.db)!;
  tt.truthy(pool);

  const before = pool.queriesRun;
  const summary = await t.request('GET', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31', { token });
  tt.is(summary.status, 200);
  const newPets = () => summary.body.metrics.find((m: { name: string }) => m.name === 'new_pets').value;
  tt.is(newPets(), 1);
  tt.true(pool.queriesRun > before, 'the summary was computed on the pool');

  // A write, then a read: the pool's next read starts after the commit and sees it.
  await createPet(t, parent.id, location.id);
  const again = await t.request('GET', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31', { token });
  tt.is(again.body.metrics.find((m: { name: string }) => m.name === 'new_pets').value, 2);

  const beforeCsv = pool.queriesRun;
  const csv = await t.request('GET', '/v1/analytics/metrics/new_pets?from=2026-10-01&to=2026-10-31&format=csv', { token });
  tt.is(csv.status, 200);
  tt.true(csv.text.includes('2026-10-20,2'));
  tt.true(pool.queriesRun > beforeCsv, 'the series behind the CSV was computed on the pool');

  const beforeRecords = pool.queriesRun;
  const records = await t.request('GET', '/v1/analytics/metrics/new_pets/records?from=2026-01-01&to=2026-12-31&limit=1', { token });
  tt.is(records.status, 200);
  tt.is(records.body.data.length, 1);
  tt.true(pool.queriesRun > beforeRecords, 'the records page was read on the pool');

  // The same statements on the main connection and on the pool: the same rows, for every metric.
  const locations = await selectRows<{ id: string; timezone: string; currency: string }>(
    store.db,
    'select id, timezone, currency from locations where tenant_id = ? order by id',
    [t.tenantId],
  );
  const windows = windowRows(locations, bucketsOf('2026-01-01', '2026-12-31', 'month'));
  for (const name of metricNames) {
    tt.deepEqual(await referenceTallies(offThread(store.db), name, t.tenantId, windows), await referenceTallies(store.db, name, t.tenantId, windows), name);
    const page = { limit: 50, afterId: undefined };
    tt.deepEqual(
      await recordRows(offThread(store.db), name, t.tenantId, windows, page, undefined, 'walk'),
      await recordRows(store.db, name, t.tenantId, windows, page, undefined, 'walk'),
      `${name} records`,
    );
  }

  // Kysely through scoped() compiles here and runs there: the access policy still filters.
  const access = { tenantId: t.tenantId, locationIds: [location.id] };
  const viaPool = await scoped(offThread(store.db), access).selectFrom('pets').select(['id', 'name']).orderBy('id').execute();
  tt.deepEqual(viaPool, await scoped(store.db, access).selectFrom('pets').select(['id', 'name']).orderBy('id').execute());
  tt.is(viaPool.length, 2);
  const nobody = await scoped(offThread(store.db), { tenantId: 'ten_other', locationIds: null }).selectFrom('pets').select('id').execute();
  tt.deepEqual(nobody, []);

  // A statement's error comes back as SQLite gave it.
  await tt.throwsAsync(selectRows(offThread(store.db), 'select * from no_such_table', []), { message: /no such table/, code: 'SQLITE_ERROR' });

  // The pool's connections are read-only; a transaction reads on its own connection.
  await tt.throwsAsync(offThread(store.db).deleteFrom('pets').execute(), { message: /readonly|query_only|read-only/i });
  await store.db.transaction().execute(async (trx) => {
    tt.is(offThread(trx), trx);
  });
});

test.serial('closing the appliance ends the read threads', async (tt) => {
  const app = await startTestApp({ jobs: false });
  try {
    const token = await app.adminToken();
    await createHousehold(app);
    const res = await app.request('GET', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31', { token });
    tt.is(res.status, 200);
    const pools = app.stores.all().map((s) => s.reads!);
    tt.true(pools.every((p) => p !== null));
    tt.true(pools[0]!.alive > 0, 'a read thread is running after the summary');
    await app.close();
    for (const pool of pools) tt.is(pool.alive, 0);
    await tt.throwsAsync(pools[0]!.run('select 1', []), { instanceOf: ReadPoolClosed });
  } finally {
    await app.close();
  }
});

test.serial('a database the pool cannot open is read on the main connection; a database in memory has no pool', async (tt) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-read-pool-'));
  const handle = openDatabase(path.join(dir, 'x.sqlite'));
  try {
    handle.sqlite.exec("create table t (v text); insert into t values ('a'), ('b')");
    const pool = attachReadPool(handle.db, path.join(dir, 'missing.sqlite'))!;
    tt.deepEqual(await selectRows(offThread(handle.db), 'select v from t order by v', []), [{ v: 'a' }, { v: 'b' }]);
    tt.is(pool.queriesRun, 0);
    tt.is(pool.alive, 0);
    await pool.close();

    const memory = openDatabase(':memory:');
    tt.is(attachReadPool(memory.db, memory.file), null);
    tt.is(offThread(memory.db), memory.db);
    await memory.db.destroy();
  } finally {
    await handle.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
