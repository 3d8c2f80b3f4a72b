import test from 'ava';
import { sql } from 'kysely';
import { databaseIdentity } from '../../src/db/database.js';
import { SliceYieldPlugin, slicedStore } from '../../src/jobs/job-slices.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Jobs' queries give the event loop a turn between slices: a catch-up looping over thousands of rows
 * lets requests in. The jobs' view of a store is the same connection, identity and write batches.
 */

const t = useTestApp(test, { jobs: false });

test('queries through the plugin let the event loop turn between slices; results are unchanged', async (a) => {
  const db = t.stores.get('live').db.withPlugin(new SliceYieldPlugin(0));
  let turned = false;
  setImmediate(() => (turned = true));
  const first = await sql<{ n: number }>`select 41 + 1 as n`.execute(db);
  a.deepEqual(first.rows, [{ n: 42 }]);
  a.true(turned, 'a turn of the event loop (setImmediate) ran before the query answered');
});

test('inside a transaction the turn is taken too, and the transaction commits as a whole', async (a) => {
  const store = t.stores.get('live');
  const db = store.db.withPlugin(new SliceYieldPlugin(0));
  const turns: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < 3; i++) {
      setImmediate(() => turns.push(`turn ${i}`));
      await sql`insert into tenants (id, name, created_at) values (${`ten_slice${i}`}, 'Slice', '2026-01-01T00:00:00Z')`.execute(trx);
      turns.push(`query ${i}`);
    }
  });
  a.deepEqual(turns, ['turn 0', 'query 0', 'turn 1', 'query 1', 'turn 2', 'query 2']);
  const rows = await store.db.selectFrom('tenants').select('id').where('id', 'like', 'ten_slice%').orderBy('id').execute();
  a.deepEqual(
    rows.map((r) => r.id),
    ['ten_slice0', 'ten_slice1', 'ten_slice2'],
  );
});

test("the jobs' view of a store: one per store, same connection identity, write batches and environment", (a) => {
  const store = t.stores.get('live');
  const view = slicedStore(store);
  a.is(slicedStore(store), view);
  a.not(view.db, store.db);
  a.is(databaseIdentity(view.db), databaseIdentity(store.db));
  a.is(view.writes, store.writes);
  a.is(view.env, store.env);
  a.is(view.sqlite, store.sqlite);
});
