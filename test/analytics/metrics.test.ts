import test from 'ava';
import { walk } from '../gateway/gateway-support.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { adminCredentials, TestClock, useTestApp } from '../helpers/test-app.js';
import { createProvider, putSchedule } from '../appointments/scheduling-support.js';
import { expectStatus } from '../payments/payments-support.js';

/**
 * The count and ratio metrics against records made through the API (appointments, invoices, pets,
 * vaccinations, boarding stays, grooms), the series (every bucket, each location's calendar, CSV)
 * and the records behind ratios.
 */
let admin = '';
const site = { id: '' };
const tokyo = { id: '' };
const kennel = { id: '' };
const salon = { id: '' };

/** Moves the clock (records are dated by it) and takes a fresh admin token: tokens expire an hour after they were issued. */
async function at(iso: string): Promise<void> {
  t.clock.set(Date.parse(iso));
  admin = (await expectStatus(await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret), 200, 'token')).body.access_token;
}

const send = async (method: string, path: string, body: Record<string, unknown>, status: number) =>
  (await expectStatus(await t.request(method, path, { token: admin, body }), status, `${method} ${path}`)).body;

const summaryOf = async (query: string) => {
  const res = await t.request('GET', `/v1/analytics/summary?${query}`, { token: admin });
  if (res.status !== 200) throw new Error(`summary: ${res.status} ${res.text}`);
  return new Map<string, any>(res.body.metrics.map((m: { name: string }) => [m.name, m]));
};

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-10-20T09:00:00.000Z')) });
test.before(async () => {
  // The factories take the cached admin token; hand them the fresh one.
  t.adminToken = async () => admin;
  await at('2026-10-20T09:00:00.000Z');
  Object.assign(site, await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0 }));
  Object.assign(tokyo, await createLocation(t, { timezone: 'Asia/Tokyo', currency: 'USD', taxRateBps: 0 }));
  Object.assign(kennel, await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0 }));
  Object.assign(salon, await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0 }));
  const parent = await createPetParent(t, site.id);
  // A pet from before November: active, not new.
  const old = await createPet(t, parent.id, site.id);
  await send('POST', `/v1/pets/${old.id}/vaccinations`, { vaccine: 'DHPP', administeredOn: '2026-01-01', dueOn: '2026-11-20' }, 201);

  await at('2026-11-02T08:00:00.000Z');
  const [fresh, lapsing] = [await createPet(t, parent.id, site.id), await createPet(t, parent.id, site.id)];
  await createPet(t, parent.id, site.id); // no vaccination record: outside the compliance denominator
  await send('POST', `/v1/pets/${fresh.id}/vaccinations`, { vaccine: 'Rabies', administeredOn: '2026-10-01', dueOn: '2027-10-01' }, 201);
  await send('POST', `/v1/pets/${lapsing.id}/vaccinations`, { vaccine: 'Rabies', administeredOn: '2025-10-01', dueOn: '2026-11-15' }, 201);

  // Appointments 3–6 November at 10:00 London, one on 1 December; then their statuses.
  const vet = await createProvider(t, { locationIds: [site.id] });
  await putSchedule(t, vet.id, site.id);
  const ids: string[] = [];
  for (const day of ['2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-12-01']) {
    ids.push((await send('POST', '/v1/appointments', { petId: fresh.id, providerId: vet.id, type: 'vet_consultation', startsAt: `${day}T10:00:00Z` }, 201)).id);
  }
  for (const status of ['checked_in', 'in_progress', 'completed']) await send('PATCH', `/v1/appointments/${ids[0]}`, { status }, 200);
  await send('PATCH', `/v1/appointments/${ids[1]}`, { status: 'no_show' }, 200);
  await send('PATCH', `/v1/appointments/${ids[2]}`, { status: 'cancelled' }, 200);

  // Invoices: one open from 3 November, one open 3–5 November then paid, a draft, one finalized in December.
  const invoice = (extra: Record<string, unknown>) =>
    send(
      'POST',
      '/v1/invoices',
      { parentId: parent.id, locationId: site.id, lines: [{ description: 'Exam', quantity: 1, unitAmount: 1_000, taxRateBps: 0 }], ...extra },
      201,
    );
  await at('2026-11-03T12:00:00.000Z');
  await invoice({ finalize: true });
  const paid = await invoice({ finalize: true });
  await invoice({});
  await at('2026-11-05T12:00:00.000Z');
  await send('POST', '/v1/payments', { parentId: parent.id, invoiceId: paid.id, amount: 1_000, currency: 'USD', method: 'cash' }, 201);

  // Tokyo (UTC+9): 14:00 UTC on 2 November is still the 2nd there, 16:00 UTC is the 3rd.
  const tokyoParent = await createPetParent(t, tokyo.id);
  await at('2026-11-02T14:00:00.000Z');
  await createPet(t, tokyoParent.id, tokyo.id);
  await at('2026-11-02T16:00:00.000Z');
  await createPet(t, tokyoParent.id, tokyo.id);

  // Kennel: two single rooms; a stay of 3 nights (10–12 November) and a cancelled one.
  await at('2026-11-02T09:00:00.000Z');
  const kennelParent = await createPetParent(t, kennel.id);
  const guest = await createPet(t, kennelParent.id, kennel.id);
  for (const name of ['A', 'B'])
    await send('POST', '/v1/boarding/rooms', { locationId: kennel.id, name, roomType: 'standard', capacity: 1, species: ['dog'], nightlyRate: 5_000 }, 201);
  await send(
    'POST',
    '/v1/boarding/bookings',
    { petId: guest.id, locationId: kennel.id, roomType: 'standard', checkInOn: '2026-11-10', checkOutOn: '2026-11-13' },
    201,
  );
  const cancelled = await send(
    'POST',
    '/v1/boarding/bookings',
    { petId: guest.id, locationId: kennel.id, roomType: 'standard', checkInOn: '2026-11-20', checkOutOn: '2026-11-22' },
    201,
  );
  await send('POST', `/v1/boarding/bookings/${cancelled.id}/cancel`, {}, 200);

  // Salon: one groom completed on 9 November, one left confirmed.
  const salonParent = await createPetParent(t, salon.id);
  const dog = await createPet(t, salonParent.id, salon.id, { size: 'medium' });
  const stylist = await createProvider(t, { kind: 'groomer', locationIds: [salon.id], services: ['grooming'] });
  await putSchedule(t, stylist.id, salon.id);
  const pkg = await send(
    'POST',
    '/v1/grooming/packages',
    {
      name: 'Full groom',
      locationId: salon.id,
      services: ['bath'],
      durationMinutes: { small: 60, medium: 60, large: 60, xlarge: 60 },
      price: { small: 4_000, medium: 4_000, large: 4_000, xlarge: 4_000 },
    },
    201,
  );
  const groomed = await send(
    'POST',
    '/v1/grooming/appointments',
    { petId: dog.id, packageId: pkg.id, locationId: salon.id, startsAt: '2026-11-09T10:00:00Z', stylistId: stylist.id },
    201,
  );
  await send(
    'POST',
    '/v1/grooming/appointments',
    { petId: dog.id, packageId: pkg.id, locationId: salon.id, startsAt: '2026-11-10T10:00:00Z', stylistId: stylist.id },
    201,
  );
  await at('2026-11-09T11:30:00.000Z');
  for (const status of ['checked_in', 'in_progress', 'completed']) await send('PATCH', `/v1/grooming/appointments/${groomed.id}`, { status }, 200);

  await at('2026-11-18T09:00:00.000Z');
  // A later DHPP dose replaces the one that would lapse on the 20th.
  await send('POST', `/v1/pets/${old.id}/vaccinations`, { vaccine: 'dhpp', administeredOn: '2026-11-18', dueOn: '2027-11-18' }, 201);
  await at('2026-12-03T09:00:00.000Z');
  await invoice({ finalize: true });
});

test('appointments_by_status and no_show_rate count appointments starting in the window by status', async (a) => {
  const m = await summaryOf(`from=2026-11-01&to=2026-11-30&locationId=${site.id}`);
  a.like(m.get('appointments_by_status'), {
    value: 4,
    unit: 'count',
    breakdown: [
      { key: 'cancelled', value: 1 },
      { key: 'completed', value: 1 },
      { key: 'confirmed', value: 1 },
      { key: 'no_show', value: 1 },
    ],
  });
  a.like(m.get('no_show_rate'), { value: 0.5, unit: 'ratio', numerator: 1, denominator: 2 });
  const december = await summaryOf(`from=2026-12-01&to=2026-12-31&locationId=${site.id}`);
  a.like(december.get('appointments_by_status'), { value: 1, breakdown: [{ key: 'confirmed', value: 1 }] });
  a.like(december.get('no_show_rate'), { value: 0, numerator: 0, denominator: 0 });

  const records = await walk<{ sourceType: string; counted: string; status: string }>(
    t,
    `/v1/analytics/metrics/no_show_rate/records?from=2026-11-01&to=2026-11-30&locationId=${site.id}`,
    admin,
  );
  a.deepEqual(records.map((r) => [r.sourceType, r.status, r.counted]).sort(), [
    ['appointment', 'completed', 'denominator'],
    ['appointment', 'no_show', 'both'],
  ]);
});

test('invoices_open is the state at the end of to; pets new in the window and active at its end', async (a) => {
  const november = await summaryOf(`from=2026-11-01&to=2026-11-30&locationId=${site.id}`);
  a.like(november.get('invoices_open'), { value: 1 });
  a.like(november.get('new_pets'), { value: 3 });
  a.like(november.get('active_pets'), { value: 4 });
  const early = await summaryOf(`from=2026-11-01&to=2026-11-04&locationId=${site.id}`);
  a.like(early.get('invoices_open'), { value: 2 }, 'the paid one was still open on the 4th');
  const december = await summaryOf(`from=2026-12-01&to=2026-12-31&locationId=${site.id}`);
  a.like(december.get('invoices_open'), { value: 2 });
  a.like(december.get('new_pets'), { value: 0 });
  const records = await walk<{ sourceType: string; status: string }>(
    t,
    `/v1/analytics/metrics/invoices_open/records?from=2026-11-01&to=2026-11-04&locationId=${site.id}`,
    admin,
  );
  a.deepEqual(
    records.map((r) => r.sourceType),
    ['invoice', 'invoice'],
  );
});

test('vaccination_compliance_rate reads the latest dose of each vaccine as of to; pets without records are outside it', async (a) => {
  const tenth = await summaryOf(`from=2026-11-01&to=2026-11-10&locationId=${site.id}`);
  a.like(tenth.get('vaccination_compliance_rate'), { value: 1, numerator: 3, denominator: 3 });
  const end = await summaryOf(`from=2026-11-01&to=2026-11-30&locationId=${site.id}`);
  // The lapsing Rabies dose (due the 15th) is overdue; the old pet's DHPP was renewed on the 18th.
  a.like(end.get('vaccination_compliance_rate'), { numerator: 2, denominator: 3 });
  a.is(end.get('vaccination_compliance_rate').value, 2 / 3);
  const nineteenth = await summaryOf(`from=2026-11-19&to=2026-11-21&locationId=${site.id}`);
  a.like(nineteenth.get('vaccination_compliance_rate'), { numerator: 2, denominator: 3 });
  const records = await walk<{ counted: string; status: string }>(
    t,
    `/v1/analytics/metrics/vaccination_compliance_rate/records?from=2026-11-01&to=2026-11-30&locationId=${site.id}`,
    admin,
  );
  a.deepEqual(records.map((r) => r.counted).sort(), ['both', 'both', 'denominator']);
});

test('boarding_occupancy_rate: booked room-nights over room-nights of capacity; grooming_completed', async (a) => {
  const november = await summaryOf(`from=2026-11-01&to=2026-11-30&locationId=${kennel.id}`);
  a.like(november.get('boarding_occupancy_rate'), { numerator: 3, denominator: 60 });
  a.is(november.get('boarding_occupancy_rate').value, 3 / 60);
  const stay = await summaryOf(`from=2026-11-10&to=2026-11-11&locationId=${kennel.id}`);
  a.like(stay.get('boarding_occupancy_rate'), { value: 0.5, numerator: 2, denominator: 4 });
  const records = await walk<{ sourceType: string; counted: string }>(
    t,
    `/v1/analytics/metrics/boarding_occupancy_rate/records?from=2026-11-01&to=2026-11-30&locationId=${kennel.id}`,
    admin,
  );
  a.deepEqual(records.map((r) => `${r.sourceType}:${r.counted}`).sort(), ['boarding_room:denominator', 'boarding_room:denominator', 'booking:numerator']);

  const groomed = await summaryOf(`from=2026-11-01&to=2026-11-30&locationId=${salon.id}`);
  a.like(groomed.get('grooming_completed'), { value: 1 });
  const all = await summaryOf('from=2026-11-01&to=2026-11-30');
  a.like(all.get('grooming_completed'), { value: 1 });
  a.like(all.get('new_pets'), { value: 3 + 2 + 1 + 1 });
});

test('a day series has every bucket, each location on its own calendar; CSV by Accept or format', async (a) => {
  const res = await t.request('GET', `/v1/analytics/metrics/new_pets?from=2026-11-01&to=2026-11-05&locationId=${tokyo.id}&interval=day`, { token: admin });
  a.is(res.status, 200, res.text);
  a.like(res.body, { name: 'new_pets', unit: 'count', interval: 'day', from: '2026-11-01', to: '2026-11-05', locationIds: [tokyo.id] });
  a.deepEqual(
    res.body.points.map((p: { bucket: string; value: number }) => [p.bucket, p.value]),
    [
      ['2026-11-01', 0],
      ['2026-11-02', 1],
      ['2026-11-03', 1],
      ['2026-11-04', 0],
      ['2026-11-05', 0],
    ],
  );
  const csv = await t.request('GET', `/v1/analytics/metrics/new_pets?from=2026-11-01&to=2026-11-05&locationId=${tokyo.id}`, {
    token: admin,
    headers: { accept: 'text/csv' },
  });
  a.is(csv.status, 200);
  a.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  a.is(csv.text, 'bucket,value\r\n2026-11-01,0\r\n2026-11-02,1\r\n2026-11-03,1\r\n2026-11-04,0\r\n2026-11-05,0\r\n');
  const byQuery = await t.request('GET', `/v1/analytics/metrics/new_pets?from=2026-11-01&to=2026-11-05&locationId=${tokyo.id}&format=csv`, { token: admin });
  a.is(byQuery.text, csv.text);
  a.regex(byQuery.headers.get('content-type') ?? '', /^text\/csv/);
});

test('week and month series: natural buckets clipped to the range; state metrics at each bucket end; ratios carry their parts', async (a) => {
  const weeks = await t.request('GET', `/v1/analytics/metrics/invoices_open?from=2026-11-01&to=2026-11-30&locationId=${site.id}&interval=week`, {
    token: admin,
  });
  a.is(weeks.status, 200, weeks.text);
  a.deepEqual(
    weeks.body.points.map((p: { bucket: string; from: string; to: string; value: number }) => [p.bucket, p.from, p.to, p.value]),
    [
      ['2026-10-26', '2026-11-01', '2026-11-01', 0],
      ['2026-11-02', '2026-11-02', '2026-11-08', 1],
      ['2026-11-09', '2026-11-09', '2026-11-15', 1],
      ['2026-11-16', '2026-11-16', '2026-11-22', 1],
      ['2026-11-23', '2026-11-23', '2026-11-29', 1],
      ['2026-11-30', '2026-11-30', '2026-11-30', 1],
    ],
  );
  const months = await t.request('GET', `/v1/analytics/metrics/no_show_rate?from=2026-10-15&to=2026-12-15&locationId=${site.id}&interval=month`, {
    token: admin,
  });
  a.is(months.status, 200, months.text);
  a.deepEqual(
    months.body.points.map((p: { bucket: string; value: number; numerator: number; denominator: number }) => [p.bucket, p.value, p.numerator, p.denominator]),
    [
      ['2026-10-01', 0, 0, 0],
      ['2026-11-01', 0.5, 1, 2],
      ['2026-12-01', 0, 0, 0],
    ],
  );
  const active = await t.request('GET', `/v1/analytics/metrics/active_pets?from=2026-10-01&to=2026-11-30&locationId=${site.id}&interval=month`, {
    token: admin,
  });
  a.deepEqual(
    active.body.points.map((p: { value: number }) => p.value),
    [1, 4],
  );
  const year = await t.request('GET', `/v1/analytics/metrics/new_pets?from=2025-01-01&to=2026-12-31&interval=day`, { token: admin });
  a.is(year.status, 200);
  a.is(year.body.points.length, 730);
  a.is(
    year.body.points.reduce((sum: number, p: { value: number }) => sum + p.value, 0),
    8,
  );
});

test("marketplace metrics answer 0, in the locations' currency, where no order was paid", async (a) => {
  const m = await summaryOf('from=2026-11-01&to=2026-11-30');
  for (const name of ['marketplace_gmv', 'commission_earned']) {
    a.like(m.get(name), { value: 0, unit: 'minor', currency: 'USD' });
    a.true(m.get(name).basis.formula.length > 20);
  }
});
