import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after.always(async () => {
  await t?.close();
});

test('GET /v1/pets/:id returns the seed fields', async (a) => {
  const { pet, parent } = await createHousehold(t);
  const res = await t.request('GET', `/v1/pets/${pet.id}`, { token: await t.adminToken() });
  a.is(res.status, 200);
  a.is(res.body.id, pet.id);
  a.is(res.body.ownerId, parent.id);
  a.is(res.body.vaccinationStatus, 'No records');
  a.is(res.body.lastVisit, null);
});
