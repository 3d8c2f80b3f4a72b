import test from 'ava';
import { anotherPet, boardingApp, booked, checkedIn, dayAfter, room, site, today, type Site } from '../boarding/boarding-support.js';
import type { TestApp } from '../helpers/test-app.js';
import { book, createProvider, putSchedule } from '../appointments/scheduling-support.js';

let t: TestApp;
let admin: string;
let downtown: Site;
let uptown: Site;

test.before(async () => {
  const app = await boardingApp();
  t = app.t;
  admin = app.tokens.admin;
  downtown = await site(t, { name: 'Downtown' });
  uptown = await site(t, { name: 'Uptown' });
  for (let i = 0; i < 4; i++) await room(t, admin, downtown.location.id, { species: ['dog', 'cat'], capacity: 1 });
  await room(t, admin, uptown.location.id, { species: ['dog'], capacity: 2 });
  // Downtown tonight: two dogs (one checked in, one reserved) and a cat; a dog arriving tomorrow is not counted.
  const first = await booked(t, admin, downtown);
  await checkedIn(t, admin, first.id);
  await booked(t, admin, { ...downtown, pet: await anotherPet(t, downtown) });
  await booked(t, admin, { ...downtown, pet: await anotherPet(t, downtown, { species: 'cat', breed: 'Siamese' }) });
  await booked(t, admin, { ...downtown, pet: await anotherPet(t, downtown) }, { checkInOn: dayAfter(1), checkOutOn: dayAfter(3) });
  // Uptown tonight: one dog.
  await booked(t, admin, uptown);
  // Downtown appointments: two today (one cancelled afterwards does not count), one tomorrow.
  const vet = await createProvider(t, { locationIds: [downtown.location.id] });
  await putSchedule(t, vet.id, downtown.location.id);
  for (const startsAt of [`${today}T14:00:00Z`, `${today}T15:00:00Z`, `${today}T16:00:00Z`, `${dayAfter(1)}T10:00:00Z`]) {
    const res = await book(t, { petId: downtown.pet.id, providerId: vet.id, type: 'checkup', startsAt }, admin);
    if (res.status !== 201) throw new Error(`appointment: ${res.status} ${res.text}`);
    if (startsAt.endsWith('16:00:00Z')) {
      const cancel = await t.request('PATCH', `/v1/appointments/${res.body.id}`, { token: admin, body: { status: 'cancelled' } });
      if (cancel.status !== 200) throw new Error(`cancel: ${cancel.status} ${cancel.text}`);
    }
  }
});
test.after.always(async () => t?.close());

const agent = (body: unknown, token = admin) => t.request('POST', '/ai/agent/query', { token, body });

test('"how many dogs are boarded at Downtown tonight" is the number in the database, with its basis and as-of time', async (tt) => {
  const res = await agent({ question: 'How many dogs are boarded at Downtown tonight?', scope: 'tenant' });
  tt.is(res.status, 200, res.text);
  tt.false(res.body.abstained);
  const [count] = res.body.liveCounts;
  tt.is(count.metric, 'boarded_tonight');
  tt.is(count.value, 2);
  tt.is(count.unit, 'count');
  tt.deepEqual(count.locationIds, [downtown.location.id]);
  tt.is(count.asOf, new Date(t.clock.now()).toISOString());
  tt.regex(count.basis.formula, /checkInOn <= tonight < checkOutOn/);
  tt.is(count.basis.species, 'dog');
  tt.regex(res.body.answer, /^2 dogs are boarded tonight at Downtown/);
  const stored = await t.request('GET', `/v1/ai/answers/${res.body.id}`, { token: admin });
  tt.deepEqual(stored.body.liveCounts, res.body.liveCounts);
  tt.is(stored.body.kind, 'agent');
});

test('without a species every boarded pet counts; the scope alone picks the location', async (tt) => {
  const res = await agent({ question: 'How many pets are boarding tonight?', scope: downtown.location.id });
  tt.is(res.body.liveCounts[0].metric, 'boarded_tonight');
  tt.is(res.body.liveCounts[0].value, 3);
  const all = await agent({ question: 'How many pets are boarding tonight?', scope: 'tenant' });
  tt.is(all.body.liveCounts[0].value, 4);
});

test('pets_total and appointments_today are point-in-time counts in SQL', async (tt) => {
  const cats = await agent({ question: 'How many cats do we have at Downtown?', scope: 'tenant' });
  tt.is(cats.body.liveCounts[0].metric, 'pets_total');
  tt.is(cats.body.liveCounts[0].value, 1);
  const pets = await agent({ question: 'How many pets are registered?', scope: downtown.location.id });
  tt.is(pets.body.liveCounts[0].value, 4);
  const appointments = await agent({ question: 'How many appointments do we have today?', scope: downtown.location.id });
  tt.is(appointments.body.liveCounts[0].metric, 'appointments_today');
  tt.is(appointments.body.liveCounts[0].value, 2);
  const uptownAppointments = await agent({ question: 'How many appointments do we have today?', scope: uptown.location.id });
  tt.is(uptownAppointments.body.liveCounts[0].value, 0);
  tt.regex(appointments.body.liveCounts[0].basis.date, /time zone/);
});

test('§14 metrics come from the analytics module with their window and basis', async (tt) => {
  const res = await agent({ question: 'What is the boarding occupancy at Downtown this month?', scope: 'tenant' });
  tt.is(res.status, 200, res.text);
  const [count] = res.body.liveCounts;
  tt.is(count.metric, 'boarding_occupancy_rate');
  tt.is(count.unit, 'ratio');
  tt.is(count.from, `${today.slice(0, 8)}01`);
  tt.is(count.to, today);
  tt.deepEqual(count.locationIds, [downtown.location.id]);
  tt.true(count.value > 0 && count.value <= 1);
  tt.truthy(count.basis.formula);
  const open = await agent({ question: 'How many open invoices are there today?', scope: uptown.location.id });
  tt.is(open.body.liveCounts[0].metric, 'invoices_open');
  tt.deepEqual(open.body.liveCounts[0].locationIds, [uptown.location.id]);
});

test('a money metric over locations in several currencies is one count per currency, never a 400', async (tt) => {
  const lyon = await site(t, { name: 'Lyon', timezone: 'Europe/Paris', currency: 'EUR' });
  const pay = async (s: Site, currency: string, amount: number) => {
    const res = await t.request('POST', '/v1/payments', { token: admin, body: { parentId: s.parent.id, amount, currency, method: 'cash' } });
    if (res.status !== 201) throw new Error(`payment: ${res.status} ${res.text}`);
  };
  await pay(lyon, 'EUR', 4_250);
  await pay(downtown, 'USD', 1_999);
  const res = await agent({ question: 'What was our revenue this month?', scope: 'tenant' });
  tt.is(res.status, 200, res.text);
  const revenue = res.body.liveCounts as Array<{ metric: string; currency: string; value: number; locationIds: string[] }>;
  tt.deepEqual(
    revenue.map((c) => c.metric),
    ['revenue_net', 'revenue_net'],
  );
  tt.deepEqual(
    revenue.map((c) => c.currency),
    ['EUR', 'USD'],
  );
  tt.is(revenue[0]?.value, 4_250);
  tt.true(revenue[1]!.value >= 1_999);
  tt.regex(res.body.answer, /42\.50 EUR and \d+\.\d{2} USD/);
  // The same figures as the analytics API gives each currency.
  const month = `from=${today.slice(0, 8)}01&to=${today}`;
  for (const count of revenue) {
    const metric = await t.request('GET', `/v1/analytics/metrics/revenue_net/records?${month}&currency=${count.currency}&limit=100`, { token: admin });
    tt.is(metric.status, 200, metric.text);
    tt.is(
      metric.body.data.reduce((sum: number, r: { amount: number }) => sum + r.amount, 0),
      count.value,
    );
  }
  // Named locations narrow the metric to them: Lyon alone is EUR only.
  const named = await agent({ question: 'What was the revenue at Lyon this month?', scope: 'tenant' });
  tt.deepEqual(
    named.body.liveCounts.map((c: { currency: string; value: number }) => [c.currency, c.value]),
    [['EUR', 4_250]],
  );
  const two = await agent({ question: 'What was the revenue at Lyon and Uptown this month?', scope: 'tenant' });
  tt.deepEqual(two.body.liveCounts[0].locationIds, [lyon.location.id, uptown.location.id].sort());
});

test("a caller confined to Uptown never gets Downtown's count: naming Downtown counts nothing of it, and scoping to it is 404", async (tt) => {
  const up = await t.client({ role: 'doctor', scopes: ['ai.read', 'analytics.read'], locationIds: [uptown.location.id] });
  const res = await agent({ question: 'How many dogs are boarded at Downtown tonight?', scope: 'tenant' }, up.accessToken);
  tt.is(res.status, 200);
  tt.deepEqual(res.body.liveCounts[0].locationIds, [uptown.location.id]);
  tt.is(res.body.liveCounts[0].value, 1);
  tt.notRegex(res.body.answer, /Downtown/);
  tt.is((await agent({ question: 'How many dogs are boarded tonight?', scope: downtown.location.id }, up.accessToken)).status, 404);
  const occupancy = await agent({ question: 'What is the boarding occupancy at Downtown this month?', scope: 'tenant' }, up.accessToken);
  tt.deepEqual(occupancy.body.liveCounts[0].locationIds, [uptown.location.id]);
  const admins = await agent({ question: 'How many pets are boarding tonight?', scope: 'tenant' });
  tt.is((await t.request('GET', `/v1/ai/answers/${admins.body.id}`, { token: up.accessToken })).status, 404);
});

test("in the sandbox, live counts follow the sandbox clock: tonight is the test clock's night", async (tt) => {
  const sandbox = await t.adminToken('sandbox');
  const arrives = dayAfter(10);
  await room(t, sandbox, 'loc_demo_downtown', { species: ['dog'], capacity: 1 });
  const stay = await t.request('POST', '/v1/boarding/bookings', {
    token: sandbox,
    body: { petId: 'pet_demo_bella', locationId: 'loc_demo_downtown', roomType: 'standard', checkInOn: arrives, checkOutOn: dayAfter(12) },
  });
  tt.is(stay.status, 201, stay.text);
  const ask = () => agent({ question: 'How many dogs are boarded tonight?', scope: 'loc_demo_downtown' }, sandbox);
  tt.is((await ask()).body.liveCounts[0].value, 0, 'not tonight on the real clock');
  const moved = await t.request('POST', '/v1/sandbox/clock', { token: sandbox, body: { advanceTo: `${arrives}T23:00:00Z` } });
  tt.is(moved.status, 200, moved.text);
  const res = await ask();
  tt.is(res.body.liveCounts[0].value, 1, res.text);
  tt.is(res.body.liveCounts[0].asOf, `${arrives}T23:00:00.000Z`);
});

test('a §14 metric needs analytics.read: a front desk with ai.read gets no revenue through the agent, but its point-in-time counts', async (tt) => {
  const desk = await t.client({ role: 'staff', scopes: ['ai.read', 'payments', 'bookings'] });
  const revenue = await agent({ question: 'What was our revenue this month?', scope: 'tenant' }, desk.accessToken);
  tt.is(revenue.status, 200, revenue.text);
  tt.deepEqual(revenue.body.liveCounts, []);
  tt.regex(revenue.body.answer, /^The revenue net figure needs the analytics\.read scope/);
  tt.notRegex(revenue.body.answer, /\d+\.\d{2} USD/);
  tt.is(
    (await t.request('GET', '/v1/analytics/summary?from=2026-11-01&to=2026-11-30', { token: desk.accessToken })).status,
    403,
    'as the analytics API refuses it',
  );
  const stored = await t.request('GET', `/v1/ai/answers/${revenue.body.id}`, { token: admin });
  tt.deepEqual(stored.body.liveCounts, []);
  const boarded = await agent({ question: 'How many dogs are boarded at Downtown tonight?', scope: 'tenant' }, desk.accessToken);
  tt.is(boarded.body.liveCounts[0]?.value, 2);
});

test('a question that is neither covered by documents nor a count abstains', async (tt) => {
  const res = await agent({ question: 'What is the recipe for chocolate cake?', scope: 'tenant' });
  tt.true(res.body.abstained);
  tt.deepEqual(res.body.liveCounts, []);
  tt.deepEqual(res.body.citations, []);
});
