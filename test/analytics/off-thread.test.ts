import test from 'ava';
import { selectRows } from '../../src/db/database.js';
import { onReadPool, readPoolOf, type Reads, type ReadTask } from '../../src/db/read-pool.js';
import { computeTallies, type TallyInput, type TallyRow } from '../../src/modules/analytics/analytics.repository.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';

/**
 * Analytics' figures are a read-pool task (src/db/read-pool.ts `onReadPool`, analytics-tasks.ts):
 * on a worker where there is one, else the same function on this thread. The answers are compared
 * byte for byte in aggregates.test.ts; here, where each runs and what a failing task does.
 */
const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-10-20T09:00:00.000Z')) });

const tallyTask: ReadTask<TallyInput, TallyRow[][]> = {
  module: new URL('../../src/modules/analytics/analytics-tasks.ts', import.meta.url),
  name: 'computeTallies',
};

test.serial('a task runs on a worker, in a transaction on its connection, and without its module beside it on this thread', async (tt) => {
  const { location, parent } = await createHousehold(t);
  await createPet(t, parent.id, location.id);
  const store = t.stores.get('live');
  const pool = readPoolOf(store.db)!;
  const [found] = await selectRows<{ id: string; timezone: string; currency: string }>(store.db, 'select id, timezone, currency from locations where id = ?', [
    location.id,
  ]);
  const input: TallyInput = {
    names: ['new_pets', 'active_pets'],
    tenantId: t.tenantId,
    windows: { locations: [found!], from: '2026-10-01', to: '2026-10-31', interval: 'month' },
  };
  const expected = await computeTallies((sql, parameters) => selectRows(store.db, sql, parameters), input);
  tt.deepEqual(expected, [[{ bucket: '2026-10-01', key: '', num: 2, den: 0 }], [{ bucket: '2026-10-01', key: '', num: 2, den: 0 }]]);

  let inline = 0;
  const here = (reads: Reads) => {
    inline++;
    return computeTallies(reads, input);
  };
  const before = pool.queriesRun;
  tt.deepEqual(await onReadPool(store.db, tallyTask, input, here), expected);
  tt.is(inline, 0);
  tt.true(pool.queriesRun > before, 'on the worker');

  // A transaction reads its own writes: on its connection, uncommitted rows included (the month's whole
  // UTC days come from the aggregates, emptied here).
  await store.db
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom('analytics_daily').where('tenant_id', '=', t.tenantId).where('measure', '=', 'pets').execute();
      tt.deepEqual(await onReadPool(trx, tallyTask, input, here), [[], []]);
      throw new Error('rolled back');
    })
    .catch((err: Error) => tt.is(err.message, 'rolled back'));
  tt.is(inline, 1);

  // A module not beside its caller (a single-file bundle): this thread.
  const missing = { ...tallyTask, module: new URL('./no-such-tasks.js', tallyTask.module) };
  tt.deepEqual(await onReadPool(store.db, missing, input, here), expected);
  tt.is(inline, 2);
});

test.serial('a task that fails on the worker rejects with its error; one over no location reads nothing', async (tt) => {
  const store = t.stores.get('live');
  const bad = { ...tallyTask, name: 'noSuchTask' };
  await tt.throwsAsync(
    onReadPool(store.db, bad, {} as TallyInput, async () => []),
    { message: /noSuchTask is not exported/ },
  );
  // Windows over no location: no statement has a row to read.
  const input = {
    names: ['new_pets', 'active_pets'],
    tenantId: t.tenantId,
    windows: { locations: [], from: '2026-10-01', to: '2026-10-31', interval: 'week' },
  } as TallyInput;
  tt.deepEqual(await onReadPool(store.db, tallyTask, input, async () => []), [[], []]);
});
