import test from 'ava';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy, type Resolve } from '../../src/modules/webhooks/outbound-policy.js';
import { startTestApp } from '../helpers/test-app.js';

/** The outbound policy by the IANA special-purpose registries, with embedded IPv4 decoded. */

const strict = new OutboundPolicy([]);

test('special-purpose IPv4 ranges are refused, global unicast and private LAN allowed', (t) => {
  const cases: Array<[string, RegExp | null]> = [
    ['198.18.0.1', /reserved/], // benchmarking (RFC 2544)
    ['100.64.0.1', /carrier-grade NAT/],
    ['192.0.0.1', /reserved/],
    ['192.0.2.10', /reserved/], // TEST-NET-1 (documentation)
    ['255.255.255.255', /broadcast/],
    ['192.88.99.1', /reserved/],
    ['100.100.100.200', /cloud metadata/],
    ['93.184.216.34', null],
    ['8.8.8.8', null],
    ['10.0.0.5', null],
    ['172.20.1.1', null],
    ['192.168.1.10', null],
  ];
  for (const [address, reason] of cases) {
    const verdict = strict.refusedReason(address);
    if (reason === null) t.is(verdict, null, address);
    else t.regex(verdict ?? '', reason, address);
  }
});

test('IPv6 forms that carry an IPv4 address are judged by the address they carry', (t) => {
  const cases: Array<[string, RegExp | null]> = [
    ['2002:7f00:1::', /6to4 form of a loopback/], // 6to4 of 127.0.0.1 (the example)
    ['2002:a9fe:a9fe::1', /6to4 form of a cloud metadata/], // 169.254.169.254
    ['2002:5db8:d822::1', null], // 6to4 of 93.184.216.34: a global host
    // Teredo: server 65.54.227.120, client 127.0.0.1 obfuscated (inverted) in the last 32 bits
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo form of a loopback/],
    ['2001:0:7f00:1:8000:63bf:a247:27dd', /Teredo form of a loopback/], // the server part is loopback
    ['::ffff:0:7f00:1', /SIIT form of a loopback/],
    ['::ffff:7f00:1', /^loopback address$/], // IPv4-mapped: the IPv4 peer it is
    ['64:ff9b::c612:1', /NAT64 form of a reserved/], // 198.18.0.1
    ['64:ff9b::5db8:d822', null],
    ['::7f00:1', /IPv4-compatible/],
    ['2001:db8::1', /reserved|documentation|special/],
    ['2001:2::1', /benchmarking/],
    ['fe80::1', /link-local/],
    ['fd00:ec2::254', /cloud metadata/],
    ['fd12:3456::1', null],
    ['2606:4700:4700::1111', null],
  ];
  for (const [address, reason] of cases) {
    const verdict = strict.refusedReason(address);
    if (reason === null) t.is(verdict, null, address);
    else t.regex(verdict ?? '', reason, address);
  }
});

test('PETCARE_WEBHOOK_ALLOW_PRIVATE=false refuses RFC 1918 and unique-local receivers; the allow list still opens one', (t) => {
  const noPrivate = new OutboundPolicy([], { allowPrivate: false });
  t.regex(noPrivate.check('x', '10.0.0.5') ?? '', /private address \(PETCARE_WEBHOOK_ALLOW_PRIVATE=false\)/);
  t.regex(noPrivate.check('x', 'fd12:3456::1') ?? '', /unique-local/);
  t.regex(noPrivate.check('x', '2002:c0a8:10a::') ?? '', /6to4 form of a private/, '6to4 of 192.168.1.10');
  t.is(noPrivate.check('x', '93.184.216.34'), null);
  t.is(new OutboundPolicy(['10.0.0.5'], { allowPrivate: false }).check('x', '10.0.0.5'), null);
});

test('registration refuses the ranges the review found accepted (400, field url)', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const token = await app.adminToken();
  for (const url of [
    'http://[2002:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://198.18.0.1/',
    'http://100.64.0.1/',
    'http://192.0.0.1/',
  ]) {
    const res = await app.request('POST', '/v1/webhook-endpoints', { token, body: { url, events: ['*'] } });
    t.is(res.status, 400, `${url}: ${res.text}`);
    t.is(res.body.errors?.[0]?.field, 'url', url);
    t.regex(res.body.errors[0].message, /refused/, url);
  }
  const rows = await app.stores.get('live').db.selectFrom('webhook_endpoints').select('id').execute();
  t.is(rows.length, 0);
});

test('a name that passes at registration and re-points to loopback is refused at connect time (a resolver the test controls)', async (t) => {
  // DNS rebinding: the first answer is a global address, every later one is 127.0.0.1.
  let lookups = 0;
  const rebinding: Resolve = async (): Promise<LookupAddress[]> =>
    lookups++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
  const policy = new OutboundPolicy([], { resolve: rebinding });
  t.is(await policy.checkUrl('http://rebind.test/hooks'), null, 'registration sees the global address');

  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    received.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const port = (receiver.address() as AddressInfo).port;

  // The connection Node makes goes through the policy's lookup, as the webhook sender's does.
  const error = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
    const req = http.request({ host: 'rebind.test', port, path: '/hooks', method: 'POST', lookup: policy.lookup }, () => reject(new Error('connected')));
    req.on('error', resolve);
    req.end('{}');
  });
  t.is(error.code, 'ESSRF');
  t.regex(error.message, /rebind\.test resolves to 127\.0\.0\.1 is a loopback address/);
  t.deepEqual(received, [], 'nothing reached the receiver');
  t.is(lookups, 2);
});
