import test from 'ava';
import { Value } from '@sinclair/typebox/value';
import '../../src/http/validation.js'; // registers the date-time and date formats the data schemas use
import { emit } from '../../src/modules/events/emit.js';
import { canonicalEventTypes, canonicalOf, eventTypeInfo } from '../../src/modules/events/event-types.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';

/** GET /v1/events, /v1/events/:id and /v1/event-types. */
let admin: string;
const start = Date.parse('2026-11-23T09:00:00.000Z');

const t = useTestApp(test, { clock: new TestClock(start), jobs: false });
test.before(async () => {
  admin = await t.adminToken();
});

const db = () => t.stores.get('live').db;

test.serial('events are listed newest first as the seed envelope, and read one by one', async (a) => {
  const { location, parent, pet } = await createHousehold(t);
  t.clock.advance(1000);
  const second = await createPet(t, parent.id, location.id);
  const res = await t.request('GET', '/v1/events?type=pet.registered', { token: admin });
  a.is(res.status, 200, res.text);
  const [newest, older] = res.body.data;
  a.deepEqual(Object.keys(newest), ['id', 'type', 'createdAt', 'data']);
  a.like(newest, { type: 'pet.registered', data: { petId: second.id, ownerId: parent.id, locationId: location.id } });
  a.like(older, { type: 'pet.registered', data: { petId: pet.id } });
  a.true(newest.createdAt > older.createdAt);
  const one = await t.request('GET', `/v1/events/${newest.id}`, { token: admin });
  a.is(one.status, 200);
  a.deepEqual(one.body, newest);
  const missing = await t.request('GET', '/v1/events/evt_01abcdefghjkmnpqrstvwxyz00', { token: admin });
  a.is(missing.status, 404);
  a.is(missing.body.code, 'not_found');
});

test.serial('filters: since, type by canonical name or alias (shown under the alias), cursor paging', async (a) => {
  t.clock.advance(60_000);
  const since = new Date(t.clock.now()).toISOString();
  const emitted = [];
  for (let i = 0; i < 3; i++) {
    emitted.push(await emit(db(), 'payment.completed', { paymentId: `pay_${i}`, amount: 100 * i, currency: 'USD' }, t.tenantId, t.clock.now()));
    t.clock.advance(10);
  }
  await emit(db(), 'pet.vaccination_due', { petId: 'pet_x', vaccine: 'Rabies', dueOn: '2026-12-01' }, t.tenantId, t.clock.now());

  const recent = await t.request('GET', `/v1/events?since=${encodeURIComponent(since)}`, { token: admin });
  a.deepEqual(
    recent.body.data.map((e: { type: string }) => e.type),
    ['pet.vaccination_due', 'payment.completed', 'payment.completed', 'payment.completed'],
  );
  const offset = await t.request('GET', `/v1/events?since=${encodeURIComponent(since.replace('Z', '+00:00'))}`, { token: admin });
  a.is(offset.body.data.length, 4, 'offsets are accepted');

  const canonical = await t.request('GET', '/v1/events?type=payment.completed', { token: admin });
  a.deepEqual(
    canonical.body.data.map((e: { id: string }) => e.id),
    emitted.map((e) => e.id).reverse(),
  );
  a.true(canonical.body.data.every((e: { type: string }) => e.type === 'payment.completed'));
  const alias = await t.request('GET', '/v1/events?type=payment.succeeded', { token: admin });
  a.deepEqual(
    alias.body.data.map((e: { id: string }) => e.id),
    emitted.map((e) => e.id).reverse(),
  );
  a.true(alias.body.data.every((e: { type: string }) => e.type === 'payment.succeeded'));
  const vaccination = await t.request('GET', '/v1/events?type=vaccination.due', { token: admin });
  a.deepEqual(
    vaccination.body.data.map((e: { type: string; data: { dueOn: string } }) => [e.type, e.data.dueOn]),
    [['vaccination.due', '2026-12-01']],
  );

  const page1 = await t.request('GET', '/v1/events?type=payment.completed&limit=2', { token: admin });
  a.is(page1.body.data.length, 2);
  a.true(page1.body.hasMore);
  const page2 = await t.request('GET', `/v1/events?type=payment.completed&limit=2&cursor=${page1.body.nextCursor}`, { token: admin });
  a.deepEqual(
    page2.body.data.map((e: { id: string }) => e.id),
    [emitted[0]!.id],
  );
  a.false(page2.body.hasMore);
  a.is(page2.body.nextCursor, null);
});

test('validation: unknown type, bad since, bad cursor, unknown parameter', async (a) => {
  for (const query of ['type=pet.exploded', 'type=webhook.test', 'since=yesterday', 'cursor=zzz', 'limit=0', 'color=blue']) {
    const res = await t.request('GET', `/v1/events?${query}`, { token: admin });
    a.is(res.status, 400, `${query}: ${res.text}`);
  }
});

test('GET /v1/event-types lists both seed lists, the aliases and each data schema', async (a) => {
  const res = await t.request('GET', '/v1/event-types', { token: admin });
  a.is(res.status, 200, res.text);
  const byType = new Map(res.body.data.map((e: { type: string }) => [e.type, e]));
  a.is(byType.size, canonicalEventTypes().length + 2);
  for (const type of canonicalEventTypes()) {
    const info = byType.get(type) as {
      canonical: boolean;
      aliasOf: null;
      dataSchema: { type: string; properties: object };
      description: string;
      emittedBy: string;
    };
    a.true(info.canonical, type);
    a.is(info.aliasOf, null);
    a.is(info.dataSchema.type, 'object');
    a.true(Object.keys(info.dataSchema.properties).length > 0, type);
    a.truthy(info.description);
    a.truthy(info.emittedBy);
  }
  a.like(byType.get('payment.succeeded'), { canonical: false, aliasOf: 'payment.completed' });
  a.like(byType.get('vaccination.due'), { canonical: false, aliasOf: 'pet.vaccination_due' });
  a.deepEqual((byType.get('payment.completed') as { aliases: string[] }).aliases, ['payment.succeeded']);
  const due = byType.get('pet.vaccination_due') as { dataSchema: { required: string[] } };
  a.deepEqual(due.dataSchema.required.slice(0, 3), ['petId', 'vaccine', 'dueOn']);
  const booking = byType.get('booking.created') as { dataSchema: { required: string[] } };
  a.deepEqual(booking.dataSchema.required, ['bookingId', 'petId', 'service', 'amount', 'currency']);
  a.is(res.body.testEvent.type, 'webhook.test');
});

test.serial('every event the modules emitted matches its catalogue data schema', async (a) => {
  const rows = await db().selectFrom('events').selectAll().execute();
  a.true(rows.length > 0);
  for (const row of rows) {
    const type = canonicalOf(row.type);
    const schema = type === null ? undefined : eventTypeInfo(type).data;
    a.truthy(schema, row.type);
    a.true(Value.Check(schema!, JSON.parse(row.data)), `${row.type} ${row.data}`);
  }
});

test('sandbox events are not listed in live', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const pet = await t.request('POST', '/v1/pets', {
    token: sandboxAdmin,
    body: { name: 'Sandy', breed: 'x', species: 'dog', ownerId: 'usr_demo_alex', locationId: 'loc_demo_downtown' },
  });
  const sandboxEvents = await t.request('GET', '/v1/events?type=pet.registered', { token: sandboxAdmin });
  const event = sandboxEvents.body.data.find((e: { data: { petId: string } }) => e.data.petId === pet.body.id);
  a.truthy(event);
  a.is((await t.request('GET', `/v1/events/${event.id}`, { token: admin })).status, 404);
});
