import test from 'ava';
import { createProvider } from '../appointments/scheduling-support.js';
import { createLocation } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

test('a location-scoped client filtering by a location it cannot see learns nothing about who works there', async (a) => {
  const t = await startTestApp({ jobs: false });
  a.teardown(() => t.close());
  const [locA, locB] = [await createLocation(t), await createLocation(t)];
  const shared = await createProvider(t, { locationIds: [locA.id, locB.id] });
  const scoped = await t.client({ role: 'staff', scopes: ['bookings'], locationIds: [locA.id] });

  const own = await t.request('GET', `/v1/providers?locationId=${locA.id}`, { token: scoped.accessToken });
  a.deepEqual(
    own.body.data.map((p: { id: string }) => p.id),
    [shared.id],
  );
  a.deepEqual(own.body.data[0].locationIds, [locA.id], 'B is hidden from its location list');

  const other = await t.request('GET', `/v1/providers?locationId=${locB.id}`, { token: scoped.accessToken });
  a.is(other.status, 200);
  a.deepEqual(other.body.data, [], 'the same answer as for a location that does not exist');
});
