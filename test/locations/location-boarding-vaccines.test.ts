import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/** boardingRequiredVaccines (DESIGN §10): per species, set on POST and PATCH (replaced whole), read by boarding check-in. */
let admin: string;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
});

test('defaults to {}, is set on create, replaced whole on PATCH, trimmed and de-duplicated case-insensitively', async (a) => {
  const plain = await createLocation(t);
  a.deepEqual((plain as unknown as { boardingRequiredVaccines: unknown }).boardingRequiredVaccines, {});
  const created = await createLocation(t, { boardingRequiredVaccines: { dog: ['Rabies', ' DHPP ', 'rabies'], cat: [] } });
  a.deepEqual((created as unknown as { boardingRequiredVaccines: unknown }).boardingRequiredVaccines, { dog: ['Rabies', 'DHPP'] });
  const patched = await t.request('PATCH', `/v1/locations/${created.id}`, { token: admin, body: { boardingRequiredVaccines: { cat: ['FVRCP'] } } });
  a.is(patched.status, 200, patched.text);
  a.deepEqual(patched.body.boardingRequiredVaccines, { cat: ['FVRCP'] });
  const read = await t.request('GET', `/v1/locations/${created.id}`, { token: admin });
  a.deepEqual(read.body.boardingRequiredVaccines, { cat: ['FVRCP'] });
  const other = await t.request('PATCH', `/v1/locations/${created.id}`, { token: admin, body: { name: 'Renamed' } });
  a.deepEqual(other.body.boardingRequiredVaccines, { cat: ['FVRCP'] }, 'untouched by a PATCH that does not name it');
});

test('an unknown species, a blank name or a non-list is 400 naming the field, and nothing changes', async (a) => {
  const loc = await createLocation(t, { boardingRequiredVaccines: { dog: ['Rabies'] } });
  for (const [value, field] of [
    [{ dragon: ['Rabies'] }, 'boardingRequiredVaccines.dragon'],
    [{ dog: ['  '] }, 'boardingRequiredVaccines.dog[0]'],
    [{ dog: 'Rabies' }, 'boardingRequiredVaccines.dog'],
    [['Rabies'], 'boardingRequiredVaccines'],
  ] as const) {
    const res = await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { boardingRequiredVaccines: value } });
    a.is(res.status, 400, JSON.stringify(value));
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      [field],
    );
  }
  const read = await t.request('GET', `/v1/locations/${loc.id}`, { token: admin });
  a.deepEqual(read.body.boardingRequiredVaccines, { dog: ['Rabies'] });
});
