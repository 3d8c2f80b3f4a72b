import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { createProvider, putSchedule } from '../appointments/scheduling-support.js';
import { complete, expectStatus, packageBody } from './grooming-support.js';

/** Sandbox reset erases the tenant's grooming rows (packages, grooms, memberships, bundles, spent credits) before the shared bookings go. */
const now = Date.parse('2026-11-23T08:00:00.000Z');

const t = useTestApp(test, { clock: new TestClock(now) });

test('POST /v1/sandbox/reset removes every grooming row of the sandbox and leaves live ones', async (a) => {
  const token = await t.adminToken('sandbox');
  const location = await createLocation(t, { currency: 'USD' }, 'sandbox');
  const parent = await createPetParent(t, location.id, {}, token);
  const pet = await createPet(t, parent.id, location.id, { size: 'small' }, token);
  const stylist = await createProvider(t, { kind: 'groomer', locationIds: [location.id], services: ['grooming'] }, token);
  await putSchedule(t, stylist.id, location.id, undefined, [], token);
  const pkg = await expectStatus(
    await t.request('POST', '/v1/grooming/packages', { token, body: packageBody({ locationId: location.id, sessions: 2 }) }),
    201,
    'package',
  );
  await expectStatus(
    await t.request('POST', '/v1/grooming/package-credits', {
      token,
      body: { parentId: parent.id, packageId: pkg.body.id, locationId: location.id, size: 'small' },
    }),
    201,
    'bundle',
  );
  await expectStatus(
    await t.request('POST', '/v1/grooming/memberships', {
      token,
      body: {
        parentId: parent.id,
        packageId: pkg.body.id,
        locationId: location.id,
        sessionsPerPeriod: 1,
        price: 1_000,
        interval: 'month',
        collection: 'send_invoice',
      },
    }),
    201,
    'membership',
  );
  const g = await expectStatus(
    await t.request('POST', '/v1/grooming/appointments', {
      token,
      body: { petId: pet.id, packageId: pkg.body.id, locationId: location.id, startsAt: '2026-11-24T09:00:00Z', payWith: 'package_credit' },
    }),
    201,
    'groom',
  );
  // A groom is completed from its start on: the sandbox's business clock moves there (the test clock of §18).
  await expectStatus(await t.request('POST', '/v1/sandbox/clock', { token, body: { advanceTo: g.body.startsAt } }), 200, 'sandbox clock');
  a.is((await complete(t, g.body.id, token)).status, 200);

  // A live package stays.
  const liveLocation = await createLocation(t);
  const live = await expectStatus(
    await t.request('POST', '/v1/grooming/packages', { token: await t.adminToken(), body: packageBody({ locationId: liveLocation.id }) }),
    201,
    'live package',
  );

  const sandboxDb = t.stores.get('sandbox').db;
  const tables = ['grooming_packages', 'grooming_appointments', 'grooming_memberships', 'grooming_package_credits', 'grooming_credit_uses'] as const;
  for (const table of tables) a.true((await sandboxDb.selectFrom(table).selectAll().execute()).length > 0, table);
  const reset = await t.request('POST', '/v1/sandbox/reset', { token });
  a.is(reset.status, 200, reset.text);
  // What the test made is gone; what is left is the demo practice's grooming, seeded again.
  a.deepEqual(await sandboxDb.selectFrom('grooming_packages').select('id').where('location_id', '=', location.id).execute(), []);
  a.deepEqual(await sandboxDb.selectFrom('grooming_package_credits').select('id').where('parent_id', '=', parent.id).execute(), []);
  a.deepEqual(await sandboxDb.selectFrom('grooming_memberships').select('id').where('parent_id', '=', parent.id).execute(), []);
  for (const table of ['grooming_appointments', 'grooming_credit_uses'] as const)
    a.deepEqual(await sandboxDb.selectFrom(table).select('booking_id').where('booking_id', '=', g.body.id).execute(), [], table);
  a.deepEqual(await sandboxDb.selectFrom('bookings').select('id').where('kind', '=', 'grooming').where('location_id', '=', location.id).execute(), []);
  const demoGrooms = await sandboxDb.selectFrom('bookings').select('location_id').where('kind', '=', 'grooming').execute();
  a.true(demoGrooms.length > 0 && demoGrooms.every((b) => b.location_id.startsWith('loc_demo_')), 'the demo practice grooms again');
  a.is((await t.request('GET', `/v1/grooming/packages/${live.body.id}`, { token: await t.adminToken() })).status, 200);
});
