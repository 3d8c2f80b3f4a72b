import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/** Date and date-time inputs are checked field by field: never rolled over to another instant. */
const t = useTestApp(test, { jobs: false });

const fieldsOf = (res: { body: { errors?: Array<{ field: string }> } }) => (res.body.errors ?? []).map((e) => e.field);

test('impossible date-times are 400 on their field, in queries and bodies alike', async (a) => {
  const token = await t.adminToken();
  for (const bad of [
    '2026-02-30T00:00:00Z',
    '2026-11-23T24:00:00Z',
    '2026-11-23T10:60:00Z',
    '2026-11-23T10:00:61Z',
    '2026-11-23T10:00:00+24:00',
    '0000-01-01T00:00:00Z',
  ]) {
    const res = await t.request('GET', `/v1/appointments?from=${encodeURIComponent(bad)}`, { token });
    a.is(res.status, 400, bad);
    a.deepEqual(fieldsOf(res), ['from'], bad);
  }
  const ok = await t.request('GET', `/v1/appointments?from=${encodeURIComponent('2028-02-29T23:59:59.999+05:30')}`, { token });
  a.is(ok.status, 200, 'a leap day and an offset are fine');
});

test('impossible dates are 400 on their field', async (a) => {
  const token = await t.adminToken();
  const { pet } = await createHousehold(t);
  for (const bad of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-1-01']) {
    const res = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, { token, body: { vaccine: 'Rabies', administeredOn: bad, dueOn: '2027-01-01' } });
    a.is(res.status, 400, bad);
    a.deepEqual(fieldsOf(res), ['administeredOn'], bad);
  }
});

test('a vaccination cannot predate 1900 or the pet itself', async (a) => {
  const token = await t.adminToken();
  const { pet } = await createHousehold(t);
  const early = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
    token,
    body: { vaccine: 'Rabies', administeredOn: '0202-01-01', dueOn: '2027-01-01' },
  });
  a.is(early.status, 400);
  a.deepEqual(fieldsOf(early), ['administeredOn']);
  await t.request('PATCH', `/v1/pets/${pet.id}`, { token, body: { birthDate: '2024-05-01' } });
  const beforeBirth = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
    token,
    body: { vaccine: 'Rabies', administeredOn: '2024-04-30', dueOn: '2025-04-30' },
  });
  a.is(beforeBirth.status, 400);
  a.regex(beforeBirth.body.errors[0].message, /birthDate/);
});
