import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { postImport } from './import-helpers.js';

// No job runner: the import stays queued until the test says otherwise.
const t = useTestApp(test, { jobs: false });

test('an import cancelled while queued never writes; its run then ends at once', async (a) => {
  const admin = await t.adminToken();
  const loc = await createLocation(t);
  const res = await postImport(t.url, admin, 'externalId,name\nX-1,Ada\n', { type: 'pet-parents', locationId: loc.id });
  a.is(res.status, 202);
  a.like(res.body, { status: 'queued', total: null, processed: 0 });
  const cancelled = await t.request('POST', `/v1/imports/${res.body.id}/cancel`, { token: admin });
  a.is(cancelled.status, 200);
  a.is(cancelled.body.status, 'cancelled');
  a.truthy(cancelled.body.finishedAt);
  await t.app.runner.start();
  const run = await t.stores.get('live').db.selectFrom('jobs').select('id').where('name', '=', 'imports').executeTakeFirstOrThrow();
  const job = await t.app.runner.waitFor('live', run.id, 30_000);
  a.is(job?.status, 'succeeded');
  a.is((await t.request('GET', `/v1/imports/${res.body.id}`, { token: admin })).body.status, 'cancelled');
  a.is((await t.request('GET', '/v1/pet-parents?externalId=X-1', { token: admin })).body.data.length, 0);
  const again = await t.request('POST', `/v1/imports/${res.body.id}/cancel`, { token: admin });
  a.is(again.status, 409);
});
