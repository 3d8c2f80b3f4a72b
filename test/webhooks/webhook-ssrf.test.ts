import test from 'ava';
import type { LookupAddress } from 'node:dns';
import { OutboundPolicy } from '../../src/modules/webhooks/outbound-policy.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { createEndpoint, startReceiver, waitForAttempts, type Receiver } from './webhook-support.js';

/** Outbound safety: refused addresses at registration and, after DNS, at connect time. */
const receivers: Receiver[] = [];

const t = useTestApp(test, { jobs: false }); // no allow list: the default policy
test.after.always(async () => {
  for (const r of receivers) await r.close();
});

const refused = [
  'http://127.0.0.1/hooks',
  'http://127.8.9.10:8080/hooks',
  'http://0x7f.1/hooks', // 127.0.0.1 in another spelling
  'http://2130706433/hooks', // 127.0.0.1 as one number
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.10.20/',
  'http://[::1]/hooks',
  'http://[::]/hooks',
  'http://0.0.0.0:8080/hooks',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/latest',
  'http://[64:ff9b::7f00:1]/', // NAT64 form of 127.0.0.1
  'http://[64:ff9b:1::7f00:1]/', // the same under the local-use NAT64 prefix (RFC 8215)
  'http://224.0.0.1/',
  'http://localhost:8080/hooks', // a name resolving to loopback
  'http://metadata.google.internal/computeMetadata/v1/',
];

test('registration refuses loopback, link-local, metadata and unspecified addresses in every form (400, field url)', async (a) => {
  const token = await t.adminToken();
  for (const url of refused) {
    const res = await t.request('POST', '/v1/webhook-endpoints', { token, body: { url, events: ['*'] } });
    a.is(res.status, 400, `${url}: ${res.text}`);
    a.is(res.body.code, 'validation_failed', url);
    a.is(res.body.errors[0].field, 'url', url);
    a.regex(res.body.errors[0].message, /refused/, url);
  }
  const rows = await t.stores.get('live').db.selectFrom('webhook_endpoints').select('url').execute();
  a.false(rows.some((row) => refused.includes(row.url)));
});

test('private LAN addresses are allowed', async (a) => {
  for (const url of ['http://10.0.0.5/hook', 'http://192.168.1.10:8080/x', 'http://172.16.0.1/', 'https://[fd12:3456::1]/hooks']) {
    const res = await t.request('POST', '/v1/webhook-endpoints', { token: await t.adminToken(), body: { url, events: ['pet.registered'] } });
    a.is(res.status, 201, `${url}: ${res.text}`);
  }
});

test('a malformed allow-list entry stops the start instead of being half-read', (a) => {
  for (const entry of ['10.0.0.0/8/9', '10.0.0.0/33', 'exa mple.com', '::1/129']) {
    a.throws(() => new OutboundPolicy([entry]), { message: /PETCARE_WEBHOOK_ALLOW_HOSTS/ }, entry);
  }
});

test('the policy: reasons, the allow list by address, CIDR and host name', (a) => {
  const strict = new OutboundPolicy([]);
  a.is(strict.check('127.0.0.1', '127.0.0.1'), '127.0.0.1 is a loopback address');
  a.is(strict.check('x', '169.254.169.254'), '169.254.169.254 is a cloud metadata address');
  a.is(strict.check('x', '::ffff:127.0.0.1'), '::ffff:127.0.0.1 is a loopback address');
  a.is(strict.check('x', 'fe80::1'), 'fe80::1 is a link-local address');
  a.is(strict.check('x', '10.1.2.3'), null);
  a.is(strict.check('x', '93.184.216.34'), null);
  const open = new OutboundPolicy(['127.0.0.0/8', 'localhost', '::1']);
  a.is(open.check('127.0.0.1', '127.0.0.1'), null);
  a.is(open.check('x', '127.9.9.9'), null);
  a.is(open.check('localhost', '::1'), null);
  a.not(open.check('x', '169.254.169.254'), null, 'the allow list opens only what it names');
  const byName = new OutboundPolicy(['localhost']);
  a.is(byName.check('localhost', '127.0.0.1'), null);
  a.not(byName.check('other.test', '127.0.0.1'), null);
  a.throws(() => new OutboundPolicy(['127.0.0.1/99']));
  a.throws(() => new OutboundPolicy(['not a host!']));
});

test('the connect-time lookup refuses a name that resolves to a refused address', async (a) => {
  const lookup = (policy: OutboundPolicy, host: string) =>
    new Promise<{ err: NodeJS.ErrnoException | null; addresses: string | LookupAddress[] }>((resolve) =>
      policy.lookup(host, { all: true }, (err, addresses) => resolve({ err, addresses })),
    );
  const refusedLookup = await lookup(new OutboundPolicy([]), 'localhost');
  a.is(refusedLookup.err?.code, 'ESSRF');
  a.regex(refusedLookup.err!.message, /localhost resolves to .* loopback address/);
  const allowed = await lookup(new OutboundPolicy(['localhost']), 'localhost');
  a.is(allowed.err, null);
  a.true(Array.isArray(allowed.addresses) && allowed.addresses.length > 0);
  const metadata = await lookup(new OutboundPolicy([]), 'metadata.google.internal');
  a.is(metadata.err?.code, 'ESSRF');
});

test.serial('an endpoint registered under an allow list fails at connect time once the list no longer opens it', async (a) => {
  const r = await startReceiver();
  receivers.push(r);
  const port = new URL(r.url).port;
  const allowed = await startTestApp({ config: { webhookAllowHosts: ['127.0.0.1', 'localhost'], jobPollMs: 20 }, jobs: false });
  const literal = await createEndpoint(allowed, { url: r.url, events: ['pet.registered'] });
  const named = await createEndpoint(allowed, { url: `http://localhost:${port}/hooks`, events: ['pet.registered'] });
  await allowed.close({ keepData: true });

  const strict = await startTestApp({ dataDir: allowed.dataDir, config: { jobPollMs: 20, webhookRetrySchedule: [1] } });
  try {
    await createHousehold(strict);
    const [byAddress] = await waitForAttempts(strict, literal.id, 1);
    a.is(byAddress.status, 'failed');
    a.regex(byAddress.error, /refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    const [byName] = await waitForAttempts(strict, named.id, 1);
    a.is(byName.status, 'failed');
    a.regex(byName.error, /refused by the outbound policy: localhost resolves to .* loopback address/);
    a.is(byName.responseStatus, null);
    // Both attempts are over: a connection they made would have been received before they ended.
    a.is(r.received.length, 0, 'no connection reached the receiver');
  } finally {
    await strict.close();
  }
});
