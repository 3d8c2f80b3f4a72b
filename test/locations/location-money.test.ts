import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/** A location's currency and taxRateBps (DESIGN §7, §9): set on POST and PATCH, used by invoices. */
let admin: string;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
});

test('currency and taxRateBps are set on create, default to USD and 0, and change with PATCH', async (a) => {
  const plain = await createLocation(t);
  a.like(plain, { currency: 'USD', taxRateBps: 0 });
  const euro = await createLocation(t, { currency: 'EUR', taxRateBps: 2100 });
  a.like(euro, { currency: 'EUR', taxRateBps: 2100 });
  const patched = await t.request('PATCH', `/v1/locations/${euro.id}`, { token: admin, body: { currency: 'GBP', taxRateBps: 825 } });
  a.is(patched.status, 200, patched.text);
  a.like(patched.body, { currency: 'GBP', taxRateBps: 825, name: euro.name });
  const read = await t.request('GET', `/v1/locations/${euro.id}`, { token: admin });
  a.like(read.body, { currency: 'GBP', taxRateBps: 825 });
  const zero = await t.request('PATCH', `/v1/locations/${euro.id}`, { token: admin, body: { taxRateBps: 0 } });
  a.like(zero.body, { currency: 'GBP', taxRateBps: 0 });
});

test('unknown or malformed currencies and rates outside 0–10000 basis points are 400 on the field', async (a) => {
  const loc = await createLocation(t);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ currency: 'XYZ' }, 'currency'],
    [{ currency: 'usd' }, 'currency'],
    [{ currency: 'US' }, 'currency'],
    [{ taxRateBps: -1 }, 'taxRateBps'],
    [{ taxRateBps: 10_001 }, 'taxRateBps'],
    [{ taxRateBps: 8.25 }, 'taxRateBps'],
    [{ taxRateBps: '825' }, 'taxRateBps'],
  ];
  for (const [body, field] of cases) {
    const created = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Bad money', timezone: 'UTC', ...body } });
    a.is(created.status, 400, `${JSON.stringify(body)}: ${created.text}`);
    a.deepEqual(
      created.body.errors.map((e: { field: string }) => e.field),
      [field],
    );
    const patched = await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body });
    a.is(patched.status, 400);
    a.deepEqual(
      patched.body.errors.map((e: { field: string }) => e.field),
      [field],
    );
  }
  const read = await t.request('GET', `/v1/locations/${loc.id}`, { token: admin });
  a.like(read.body, { currency: 'USD', taxRateBps: 0 });
});

test('a new rate applies to invoices written after it; finalized ones keep theirs', async (a) => {
  const loc = await createLocation(t, { currency: 'USD', taxRateBps: 1000 });
  const parent = await t.request('POST', '/v1/pet-parents', { token: admin, body: { name: 'Payer', locationId: loc.id } });
  const body = { parentId: parent.body.id, locationId: loc.id, lines: [{ description: 'Visit', quantity: 1, unitAmount: 5000 }], finalize: true };
  const before = await t.request('POST', '/v1/invoices', { token: admin, body });
  a.is(before.body.tax, 500);
  await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { taxRateBps: 2000, currency: 'CAD' } });
  const after = await t.request('POST', '/v1/invoices', { token: admin, body });
  a.like(after.body, { tax: 1000, currency: 'CAD' });
  const old = await t.request('GET', `/v1/invoices/${before.body.id}`, { token: admin });
  a.like(old.body, { tax: 500, currency: 'USD', total: 5500 });
});
