import test from 'ava';
import { newId } from '../../src/db/ids.js';
import { emit } from '../../src/modules/events/emit.js';
import { deliveryRow } from '../../src/modules/webhooks/webhooks.service.js';
import { useTestApp } from '../helpers/test-app.js';
import { createEndpoint, deliveryPass, startReceiver, type Receiver } from '../webhooks/webhook-support.js';

/**
 * The webhook dispatcher's prepared statements work across tenants by design (delivery-statements.ts,
 * through acrossTenants): what keeps a tenant's events to its own endpoints is in the statements.
 * Another tenant's events in the same file reach no endpoint of this one, and a delivery row that
 * names another tenant's event is cancelled, never sent with that tenant's data.
 */
const t = useTestApp(test, { config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20, webhookRetrySchedule: [1, 1], webhookTimeoutMs: 5_000 } });
let receiver: Receiver;
const other = 'ten_webhook_other';

test.before(async () => {
  receiver = await startReceiver();
  const at = new Date(t.clock.now()).toISOString();
  await t.stores.get('live').db.insertInto('tenants').values({ id: other, name: 'Other group', created_at: at }).execute();
});
test.after.always(async () => {
  await receiver?.close();
});

const registered = (name: string) => ({ petId: newId('pet'), ownerId: newId('usr'), locationId: newId('loc'), name, species: 'dog' });

test.serial("another tenant's events reach no endpoint of this one, and a delivery naming one is cancelled unsent", async (a) => {
  const db = t.stores.get('live').db;
  const endpoint = await createEndpoint(t, { url: receiver.url, events: ['*'] });
  const foreign = await emit(db, 'pet.registered', registered('Foreign secret'), other, t.clock.now());
  const own = await emit(db, 'pet.registered', registered('Own pet'), t.tenantId, t.clock.now());
  await deliveryPass(t);
  await receiver.waitFor(1);
  await deliveryPass(t);
  a.deepEqual(
    receiver.received.map((r) => r.body.id),
    [own.id],
  );
  const fannedOut = await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', foreign.id).execute();
  a.deepEqual(fannedOut, []);

  // A delivery of this tenant's endpoint naming the other tenant's event (a bug elsewhere, or a
  // planted row): the due statement joins the event within the delivery's tenant, so it finds none.
  const endpointRow = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  const plantedRow = deliveryRow(endpointRow, foreign.id, 'pet.registered', 'replay', t.clock.now());
  const planted = plantedRow.id;
  await db.insertInto('webhook_deliveries').values(plantedRow).execute();
  await deliveryPass(t);
  await deliveryPass(t);
  const row = await db.selectFrom('webhook_deliveries').select(['status', 'last_error', 'attempts']).where('id', '=', planted).executeTakeFirstOrThrow();
  a.deepEqual(row, { status: 'cancelled', last_error: 'the event no longer exists', attempts: 0 });
  a.false(
    receiver.received.some((r) => r.rawBody.includes('Foreign secret') || r.body.id === foreign.id),
    'the other tenant’s event was never sent',
  );
});
