import test from 'ava';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { SecretBox } from '../../src/db/secret-box.js';
import { book, createProvider, putSchedule } from '../appointments/scheduling-support.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, TestClock } from '../helpers/test-app.js';
import { createEndpoint, deliveryPass, startReceiver, verifyStripeStyle, nowSeconds } from '../webhooks/webhook-support.js';

/** A copied database file alone cannot forge our webhook signatures nor open calendar links. */
const now = Date.parse('2026-11-23T08:00:00Z');

/** Every byte SQLite holds for the environment: the database and its write-ahead log. */
function databaseBytes(dataDir: string): string {
  return ['live.sqlite', 'live.sqlite-wal']
    .map((name) => path.join(dataDir, name))
    .filter(existsSync)
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

test('webhook secrets and calendar tokens are stored sealed under the key in keys/, and still sign and open', async (t) => {
  const app = await startTestApp({ clock: new TestClock(now), config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
  t.teardown(() => app.close());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const endpoint = await createEndpoint(app, { url: receiver.url, events: ['appointment.created'] });
  t.regex(endpoint.secret, /^whsec_/);
  const { location, pet } = await createHousehold(app);
  const provider = await createProvider(app, { locationIds: [location.id] });
  await putSchedule(app, provider.id, location.id);
  const appointment = await book(app, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-11-24T09:30:00Z' });
  t.is(appointment.status, 201);
  const token = new URL(appointment.body.calendarUrl).searchParams.get('token')!;
  t.regex(token, /^ct_live_/);

  const bytes = databaseBytes(app.dataDir);
  t.false(bytes.includes(endpoint.secret), 'the webhook secret is not in the database in clear');
  t.false(bytes.includes(token), 'the calendar token is not in the database in clear');
  t.true(existsSync(path.join(app.dataDir, 'keys', 'data-key')));

  // The sealed values still do their jobs: a signed delivery, an opened calendar link.
  await deliveryPass(app);
  const [delivery] = await receiver.waitFor(1);
  t.true(verifyStripeStyle(delivery!.headers['x-service-signature'] as string, delivery!.rawBody, endpoint.secret, nowSeconds(app)));
  const calendar = await fetch(appointment.body.calendarUrl);
  t.is(calendar.status, 200);
  t.is((await app.request('GET', `/v1/appointments/${appointment.body.id}`, { token: await app.adminToken() })).body.calendarUrl, appointment.body.calendarUrl);

  // Under another key (a database copied away from its keys/), the sealed secret does not open.
  const row = await app.stores.get('live').db.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  t.true(SecretBox.isSealed(row.secret));
  t.throws(() => SecretBox.ephemeral().open(row.secret));
});

test('clear values an older release stored are sealed by housekeeping and keep working', async (t) => {
  const app = await startTestApp({ clock: new TestClock(now), config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
  t.teardown(() => app.close());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const endpoint = await createEndpoint(app, { url: receiver.url, events: ['pet.registered'] });
  // As an older release left it: the secret in clear.
  const db = app.stores.get('live').db;
  await db.updateTable('webhook_endpoints').set({ secret: endpoint.secret }).where('id', '=', endpoint.id).execute();

  const run = await app.request('POST', '/v1/jobs/housekeeping/run', { token: await app.adminToken(), body: { wait: true } });
  t.is(run.body.status, 'succeeded');
  t.is(run.body.result.sealedWebhookSecrets, 1);
  const row = await db.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  t.true(SecretBox.isSealed(row.secret));

  await createHousehold(app);
  await deliveryPass(app);
  const [delivery] = await receiver.waitFor(1);
  t.true(verifyStripeStyle(delivery!.headers['x-service-signature'] as string, delivery!.rawBody, endpoint.secret, nowSeconds(app)));
});
