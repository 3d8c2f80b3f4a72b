import test from 'ava';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { useTestApp } from '../helpers/test-app.js';
import { postImport } from './import-helpers.js';

/**
 * The import worker writes its batches in turns the main thread grants while holding the API's
 * connection (src/db/write-turns.ts): API writes made meanwhile queue for the connection and all
 * succeed, the import's counts are those of a run alone, and neither a cancel nor a worker
 * terminated mid-run leaves the API's connection held.
 */

// The job runner starts once the files are queued, so the test knows which run is which.
const t = useTestApp(test, { jobs: false });

const rows = 30_000;
const csv = (prefix: string) =>
  `externalId,name,email\n${Array.from({ length: rows }, (_, i) => `${prefix}-${i},Turn Parent ${i},${prefix.toLowerCase()}${i}@example.com`).join('\n')}\n`;

async function runOf(importId: string): Promise<string> {
  const runs = await t.stores.get('live').db.selectFrom('jobs').select(['id', 'payload']).where('name', '=', 'imports').execute();
  return runs.find((r) => JSON.parse(r.payload).importId === importId)?.id as string;
}

const importedSoFar = (token: string, id: string) =>
  eventually(async () => (await t.request('GET', `/v1/imports/${id}`, { token })).body.processed > 0, {
    timeoutMs: 60_000,
    intervalMs: 50,
    what: `import ${id} to commit a batch`,
  });

/** A client that writes pets, over the default rate limit: the writer below sends requests back to back. */
const petWriter = async () => (await t.client({ role: 'admin', scopes: ['pets'], rateLimitPerMinute: 100_000_000 })).accessToken;

const newPet = async (token: string, ownerId: string, locationId: string, name: string) =>
  t.request('POST', '/v1/pets', { token, body: { name, species: 'dog', breed: 'Beagle', ownerId, locationId } });

test.serial('API writes made while a worker import runs all succeed, and the import counts every row', async (a) => {
  const admin = await t.adminToken();
  const pets = await petWriter();
  const loc = await createLocation(t);
  const owner = await createPetParent(t, loc.id);
  const big = await postImport(t.url, admin, csv('T'), { type: 'pet-parents', locationId: loc.id });
  a.is(big.status, 202);
  await t.app.runner.start();
  const run = await runOf(big.body.id);
  const statuses: number[] = [];
  let importing = true;
  const writer = (async () => {
    while (importing) statuses.push((await newPet(pets, owner.id, loc.id, `During ${statuses.length}`)).status);
  })();
  const job = await t.app.runner.waitFor('live', run, 120_000).finally(() => (importing = false));
  await writer;
  a.like(JSON.parse(job?.result ?? '{}'), { status: 'done', processed: rows, onWorker: true });
  a.like((await t.request('GET', `/v1/imports/${big.body.id}`, { token: admin })).body, {
    status: 'done',
    total: rows,
    processed: rows,
    created: rows,
    failed: 0,
  });
  a.true(statuses.length > 0);
  a.deepEqual(
    statuses.filter((s) => s !== 201),
    [],
  );
  const count = t.stores.get('live').sqlite.prepare('select count(*) as n from pets where owner_id = ?').get(owner.id) as { n: number };
  a.is(count.n, statuses.length);
});

test.serial('neither a cancel nor a worker terminated mid-run leaves the API connection held', async (a) => {
  const admin = await t.adminToken();
  const pets = await petWriter();
  const loc = await createLocation(t);
  const owner = await createPetParent(t, loc.id);
  const cancelled = await postImport(t.url, admin, csv('C'), { type: 'pet-parents', locationId: loc.id });
  await importedSoFar(admin, cancelled.body.id);
  a.is((await t.request('POST', `/v1/imports/${cancelled.body.id}/cancel`, { token: admin })).status, 200);
  a.like(JSON.parse((await t.app.runner.waitFor('live', await runOf(cancelled.body.id), 120_000))?.result ?? '{}'), { status: 'cancelled' });
  a.is((await newPet(pets, owner.id, loc.id, 'After the cancel')).status, 201);

  const stopped = await postImport(t.url, admin, csv('S'), { type: 'pet-parents', locationId: loc.id });
  await importedSoFar(admin, stopped.body.id);
  // No time to stop between batches: the worker is terminated where it is, maybe in its turn.
  await t.app.runner.stop(0);
  a.is((await newPet(pets, owner.id, loc.id, 'After the stop')).status, 201);
  const left = (await t.request('GET', `/v1/imports/${stopped.body.id}`, { token: admin })).body;
  a.true(left.processed < rows, `stopped before the end (${left.processed})`);
});
