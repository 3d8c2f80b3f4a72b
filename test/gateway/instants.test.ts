import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { salon, groom } from '../grooming/grooming-support.js';
import { market } from '../marketplace/orders-support.js';
import { assertProblem, fieldsOf } from './gateway-support.js';

/**
 * One rule for every date-time a client sends (DESIGN §5): Z or an offset within −14:00…+14:00 with
 * minutes below 60, years 0001–9999, the same on every field, whether a schema format, a service
 * or a date-or-instant filter reads it. Issue 24 item 2.
 * The clock stands on Monday 2026-12-21 08:00 UTC (London on GMT).
 */
const now = Date.parse('2026-12-21T08:00:00.000Z');
let admin: string;

const t = useTestApp(test, { clock: new TestClock(now), jobs: false });
test.before(async () => {
  admin = await t.adminToken();
});

// 2027-01-04T14:00:00+99:99 was read as 2026-12-31T09:21Z: a Thursday inside working hours, so it booked.
const outOfRange = ['+99:99', '-25:30', '+14:01', '-14:30', '+13:60', '-23:59', '+15:00'];
const q = encodeURIComponent;

test('POST /v1/grooming/appointments: an offset outside ±14:00 is 400 on startsAt, never a groom four days early', async (a) => {
  const s = await salon(t);
  const body = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, stylistId: s.stylist.id };
  for (const offset of outOfRange) {
    const res = await groom(t, { ...body, startsAt: `2027-01-04T14:00:00${offset}` }, admin);
    assertProblem(a, res, 400, 'validation_failed', '/v1/grooming/appointments');
    a.deepEqual(fieldsOf(res), ['startsAt'], offset);
  }
  a.is((await t.stores.get('live').db.selectFrom('bookings').select('id').where('pet_id', '=', s.pet.id).execute()).length, 0);
  // The edges are fine: 23:00 at +14:00 is 09:00 UTC, 19:00 at −14:00 is 09:00 UTC the next day.
  const east = await groom(t, { ...body, startsAt: '2026-12-30T23:00:00+14:00' }, admin);
  a.is(east.status, 201, east.text);
  a.is(east.body.startsAt, '2026-12-30T09:00:00.000Z');
  const west = await groom(t, { ...body, startsAt: '2026-12-30T19:00:00-14:00' }, admin);
  a.is(west.status, 201, west.text);
  a.is(west.body.startsAt, '2026-12-31T09:00:00.000Z');
});

test('POST /v1/orders: an offset outside ±14:00 is 400 on lines[0].startsAt', async (a) => {
  const m = await market(t);
  const body = (startsAt: string) => ({
    parentId: m.parent.id,
    petId: m.pet.id,
    lines: [{ providerId: m.walker.id, listingId: m.walker.listingId, startsAt }],
  });
  for (const offset of outOfRange) {
    const res = await t.request('POST', '/v1/orders', { token: admin, body: body(`2027-01-04T14:00:00${offset}`) });
    assertProblem(a, res, 400, 'validation_failed', '/v1/orders');
    a.deepEqual(fieldsOf(res), ['lines[0].startsAt'], offset);
  }
  const edge = await t.request('POST', '/v1/orders', { token: admin, body: body('2026-12-29T23:00:00+14:00') });
  a.is(edge.status, 201, edge.text);
  a.is(edge.body.lines[0].startsAt, '2026-12-29T09:00:00.000Z');
});

test('every date-time field takes the same offsets: schema formats, service parsers and date-or-instant filters', async (a) => {
  const s = await salon(t);
  const fields: Array<[string, string, (v: string) => string]> = [
    ['/v1/appointments', 'from', (v) => `/v1/appointments?from=${q(v)}`], // format date-time
    ['/v1/events', 'since', (v) => `/v1/events?since=${q(v)}`], // format date-time
    ['/v1/audit-events', 'from', (v) => `/v1/audit-events?from=${q(v)}`], // format date-time and a pattern
    ['/v1/grooming/appointments', 'from', (v) => `/v1/grooming/appointments?from=${q(v)}`], // the grooming routes' own parser
    ['/v1/payments', 'from', (v) => `/v1/payments?from=${q(v)}`], // a date-or-instant filter (pattern)
    ['/v1/appointments/availability', 'from', (v) => `/v1/appointments/availability?locationId=${s.location.id}&type=vet_consultation&from=${q(v)}`],
  ];
  for (const [path, field, url] of fields) {
    for (const offset of outOfRange) {
      const res = await t.request('GET', url(`2026-12-22T10:00:00${offset}`), { token: admin });
      assertProblem(a, res, 400, 'validation_failed', path);
      a.deepEqual(fieldsOf(res), [field], `${path} ${offset}`);
    }
    for (const offset of ['+14:00', '-14:00', '+05:45', 'Z']) {
      const res = await t.request('GET', url(`2026-12-22T10:00:00${offset}`), { token: admin });
      a.is(res.status, 200, `${path} ${offset}: ${res.text}`);
    }
  }
  // A body field of the date-time format: POST /v1/appointments refused −23:59 before (its rule was ±23:59).
  const { pet } = await createHousehold(t);
  const res = await t.request('POST', '/v1/appointments', {
    token: admin,
    body: { petId: pet.id, providerId: 'prv_nobody', type: 'vet_consultation', startsAt: '2026-12-22T10:00:00-23:59' },
  });
  assertProblem(a, res, 400, 'validation_failed');
  a.true(fieldsOf(res).includes('startsAt'), res.text);
});

test('years 0001–9999 are dates and instants alike; year 0000 is not', async (a) => {
  for (const since of ['0040-08-27T11:36:50Z', '0100-08-27T11:36:50Z', '0001-01-01T00:00:00Z', '0009-02-28T23:59:59.999+14:00', '9999-12-31T23:59:59.999Z']) {
    const res = await t.request('GET', `/v1/events?since=${q(since)}`, { token: admin });
    a.is(res.status, 200, `${since}: ${res.text}`);
  }
  for (const since of ['0000-08-27T11:36:50Z', '0040-02-30T00:00:00Z']) {
    const res = await t.request('GET', `/v1/events?since=${q(since)}`, { token: admin });
    assertProblem(a, res, 400, 'validation_failed', '/v1/events');
    a.deepEqual(fieldsOf(res), ['since'], since);
  }
  // Leap years before 100 count as they do after: 0040 is one, 0100 is not.
  a.is((await t.request('GET', `/v1/audit-events?from=${q('0040-02-29T00:00:00Z')}`, { token: admin })).status, 200);
  a.is((await t.request('GET', `/v1/audit-events?from=${q('0100-02-29T00:00:00Z')}`, { token: admin })).status, 400);

  // Dates (the `date` format, and services that read a date themselves).
  a.is((await t.request('GET', '/v1/boarding/bookings?from=0040-08-27&to=0040-09-27', { token: admin })).status, 200);
  a.is((await t.request('GET', '/v1/boarding/bookings?from=0000-08-27', { token: admin })).status, 400);
  const { pet } = await createHousehold(t);
  const ancient = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { birthDate: '0040-08-27' } });
  a.is(ancient.status, 200, ancient.text);
  a.is(ancient.body.birthDate, '0040-08-27');
  const zero = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { birthDate: '0000-08-27' } });
  assertProblem(a, zero, 400, 'validation_failed');
  a.deepEqual(fieldsOf(zero), ['birthDate']);
});
