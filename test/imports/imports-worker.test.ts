import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { useTestApp } from '../helpers/test-app.js';
import { postImport } from './import-helpers.js';

// The job runner starts once the files are queued, so the test knows which run is which.
const t = useTestApp(test, { jobs: false });

test('a file of 1 MB or more is imported on a worker thread: the same counts, and a cancel stops it between batches', async (a) => {
  const admin = await t.adminToken();
  const loc = await createLocation(t);
  const rows = 30_000;
  const csv = `externalId,name,email\n${Array.from({ length: rows }, (_, i) => `W-${i},Worker Parent ${i},w${i}@example.com`).join('\n')}\n`;
  a.true(csv.length >= 1024 * 1024);
  const small = await postImport(t.url, admin, 'externalId,name\nW-small,Ada\n', { type: 'pet-parents', locationId: loc.id });
  const big = await postImport(t.url, admin, csv, { type: 'pet-parents', locationId: loc.id });
  const cancelled = await postImport(
    t.url,
    admin,
    `externalId,name,email\n${Array.from({ length: rows * 2 }, (_, i) => `Z-${i},Worker Parent ${i},z${i}@example.com`).join('\n')}\n`,
    { type: 'pet-parents', locationId: loc.id },
  );
  a.is(big.status, 202);
  await t.app.runner.start();
  const runs = await t.stores.get('live').db.selectFrom('jobs').select(['id', 'payload']).where('name', '=', 'imports').execute();
  const runOf = (id: string) => runs.find((r) => JSON.parse(r.payload).importId === id)?.id as string;
  const smallJob = await t.app.runner.waitFor('live', runOf(small.body.id), 60_000);
  a.like(JSON.parse(smallJob?.result ?? '{}'), { status: 'done', onWorker: false });
  const bigJob = await t.app.runner.waitFor('live', runOf(big.body.id), 120_000);
  a.like(JSON.parse(bigJob?.result ?? '{}'), { status: 'done', processed: rows, onWorker: true });
  const report = (await t.request('GET', `/v1/imports/${big.body.id}`, { token: admin })).body;
  a.like(report, { status: 'done', total: rows, created: rows, failed: 0 });
  a.is((await t.request('GET', `/v1/pet-parents?externalId=W-${rows - 1}`, { token: admin })).body.data.length, 1);
  // Cancelled once it has started on its worker: what committed stays, the rest is not written.
  await eventually(async () => (await t.request('GET', `/v1/imports/${cancelled.body.id}`, { token: admin })).body.processed > 0, {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: 'the third import to commit a batch',
  });
  a.is((await t.request('POST', `/v1/imports/${cancelled.body.id}/cancel`, { token: admin })).status, 200);
  const cancelledJob = await t.app.runner.waitFor('live', runOf(cancelled.body.id), 120_000);
  a.like(JSON.parse(cancelledJob?.result ?? '{}'), { status: 'cancelled', onWorker: true });
  const after = (await t.request('GET', `/v1/imports/${cancelled.body.id}`, { token: admin })).body;
  a.is(after.status, 'cancelled');
  a.true(after.processed < rows * 2, `stopped before the end (${after.processed})`);
  a.is((await t.request('GET', `/v1/pet-parents?externalId=Z-${rows * 2 - 1}`, { token: admin })).body.data.length, 0);
});
