import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { Stores } from '../../src/db/stores.js';
import { bootstrapTenantAndAdmin } from '../../src/modules/clients/index.js';
import { runCli, type CliResult } from '../helpers/cli-process.js';
import { eventually } from '../helpers/eventually.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';

/** Runs the operator CLI as the operator would, in its own process, against `dataDir`. */
const cli = (dataDir: string, ...args: string[]): Promise<CliResult> => runCli(args, { PETCARE_DATA_DIR: dataDir });

// The CLI prints JSON the tests read field by field, as HTTP bodies are read in the other tests.
async function cliJson<T = any>(dataDir: string, ...args: string[]): Promise<T> {
  const res = await cli(dataDir, ...args, '--json');
  if (res.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

// ---------------------------------------------------------------- offline, on a bootstrapped data dir

let offlineDir: string;

test.before(async () => {
  offlineDir = mkdtempSync(path.join(tmpdir(), 'petcare-cli-'));
  const config = loadConfig({}, { dataDir: offlineDir, adminClientId: adminCredentials.live.clientId, adminClientSecret: adminCredentials.live.clientSecret });
  const stores = await Stores.open(offlineDir, ['live', 'sandbox']);
  await bootstrapTenantAndAdmin(stores, config, pino({ level: 'silent' }), () => undefined);
  await stores.close();
});

test.after.always(() => {
  if (offlineDir) rmSync(offlineDir, { recursive: true, force: true });
});

test('help lists the commands', async (a) => {
  const res = await cli(offlineDir, 'help');
  a.is(res.code, 0);
  for (const command of [
    'clients list',
    'clients create',
    'clients disable',
    'clients enable',
    'clients rotate-secret',
    'locations list',
    'locations create',
    'keys rotate',
  ]) {
    a.true(res.stdout.includes(command), command);
  }
});

test('clients create prints the id and the secret once, and list shows the client without it', async (a) => {
  const location = await cliJson(offlineDir, 'locations', 'create', '--name', 'North clinic', '--timezone', 'Europe/London');
  a.regex(location.id, /^loc_/);

  const created = await cliJson(
    offlineDir,
    'clients',
    'create',
    '--name',
    'Front desk',
    '--role',
    'staff',
    '--scopes',
    'pets bookings',
    '--locations',
    location.id,
    '--ip-allowlist',
    '10.0.0.0/8,192.168.1.1',
    '--rate-limit',
    '1000',
  );
  a.regex(created.id, /^cli_/);
  a.regex(created.clientId, /^pk_live_/);
  a.regex(created.clientSecret, /^sk_live_/);
  a.deepEqual(created.scopes, ['pets', 'bookings']);
  a.deepEqual(created.locationIds, [location.id]);
  a.deepEqual(created.ipAllowlist, ['10.0.0.0/8', '192.168.1.1']);
  a.is(created.rateLimitPerMinute, 1000);
  a.false(created.disabled);

  const human = await cli(offlineDir, 'clients', 'create', '--name', 'Vet', '--role', 'doctor', '--scopes', 'pets medical');
  a.is(human.code, 0);
  a.regex(human.stdout, /client_id:\s+pk_live_\S+/);
  a.regex(human.stdout, /client_secret:\s+sk_live_\S+/);

  const listed = await cliJson<any[]>(offlineDir, 'clients', 'list', '--env', 'live');
  const row = listed.find((c) => c.id === created.id);
  a.truthy(row);
  a.is(row.clientSecret, undefined);
  a.is(row.environment, 'live');
  const table = await cli(offlineDir, 'clients', 'list');
  a.is(table.code, 0);
  a.true(table.stdout.includes(created.id));
  a.false(table.stdout.includes(created.clientSecret));

  const locations = await cliJson<any[]>(offlineDir, 'locations', 'list');
  a.true(locations.some((l) => l.id === location.id));
});

test('clients create --env sandbox makes a pk_test_ client only the sandbox lists', async (a) => {
  const created = await cliJson(offlineDir, 'clients', 'create', '--name', 'Vendor trial', '--role', 'staff', '--scopes', 'pets', '--env', 'sandbox');
  a.regex(created.clientId, /^pk_test_/);
  a.regex(created.clientSecret, /^sk_test_/);
  a.is(created.environment, 'sandbox');
  const sandbox = await cliJson<any[]>(offlineDir, 'clients', 'list', '--env', 'sandbox');
  const live = await cliJson<any[]>(offlineDir, 'clients', 'list', '--env', 'live');
  a.true(sandbox.some((c) => c.id === created.id));
  a.false(live.some((c) => c.id === created.id));
  // disable finds the client in its environment without --env
  const disabled = await cliJson(offlineDir, 'clients', 'disable', created.id);
  a.true(disabled.disabled);
  a.is(disabled.environment, 'sandbox');
});

test('disable and enable round-trip through list', async (a) => {
  const created = await cliJson(offlineDir, 'clients', 'create', '--name', 'Kiosk', '--role', 'staff', '--scopes', 'pets');
  const off = await cli(offlineDir, 'clients', 'disable', created.id);
  a.is(off.code, 0, off.stderr);
  a.regex(off.stdout, /disabled client cli_/);
  let listed = await cliJson<any[]>(offlineDir, 'clients', 'list');
  a.true(listed.find((c) => c.id === created.id).disabled);
  a.is((await cli(offlineDir, 'clients', 'enable', created.id)).code, 0);
  listed = await cliJson<any[]>(offlineDir, 'clients', 'list');
  a.false(listed.find((c) => c.id === created.id).disabled);
});

test('refusals are one line with exit code 1; usage mistakes exit 2', async (a) => {
  const invalid = await cli(offlineDir, 'clients', 'create', '--name', 'x', '--role', 'vet', '--scopes', 'pets nonsense');
  a.is(invalid.code, 1);
  a.is(invalid.stderr.trim().split('\n').length, 1);
  a.regex(invalid.stderr, /^error \(validation_failed\):.*--role.*--scopes\[1\]/);

  const beyondRole = await cli(offlineDir, 'clients', 'create', '--name', 'x', '--role', 'staff', '--scopes', 'admin');
  a.is(beyondRole.code, 1);
  a.regex(beyondRole.stderr, /beyond what the staff role may hold/);

  const missingLocation = await cli(offlineDir, 'clients', 'create', '--name', 'x', '--role', 'staff', '--scopes', 'pets', '--locations', 'loc_nope');
  a.is(missingLocation.code, 1);
  a.regex(missingLocation.stderr, /^error \(resource_missing\)/);

  const badZone = await cli(offlineDir, 'locations', 'create', '--name', 'x', '--timezone', 'Mars/Olympus');
  a.is(badZone.code, 1);
  a.regex(badZone.stderr, /--timezone/);

  const unknownClient = await cli(offlineDir, 'clients', 'disable', 'cli_doesnotexist');
  a.is(unknownClient.code, 1);
  a.regex(unknownClient.stderr, /^error \(not_found\)/);

  const admins = (await cliJson<any[]>(offlineDir, 'clients', 'list', '--env', 'live')).filter((c) => c.role === 'admin');
  a.is(admins.length, 1);
  const lastAdmin = await cli(offlineDir, 'clients', 'disable', admins[0].id);
  a.is(lastAdmin.code, 1);
  a.regex(lastAdmin.stderr, /^error \(last_admin\)/);

  a.is((await cli(offlineDir, 'clients', 'frobnicate')).code, 2);
  a.is((await cli(offlineDir, 'clients', 'list', '--timezone', 'UTC')).code, 2);
  a.is((await cli(offlineDir, 'clients', 'disable')).code, 2);
  a.is((await cli(offlineDir, 'clients', 'list', '--no-such-flag')).code, 2);
});

test('a data dir that was never bootstrapped is refused, not created', async (a) => {
  const missing = path.join(tmpdir(), `petcare-cli-missing-${process.pid}`);
  const res = await cli(missing, 'clients', 'list');
  a.is(res.code, 1);
  a.regex(res.stderr, /No appliance database/);
  const keys = await cli(missing, 'keys', 'rotate');
  a.is(keys.code, 1);
  a.throws(() => readFileSync(path.join(missing, 'live.sqlite')));
});

// ---------------------------------------------------------------- against a running appliance

const t = useTestApp(test);

test('a running app accepts a CLI-made client and notices a CLI disable on the next request', async (a) => {
  const created = await cliJson(t.dataDir, 'clients', 'create', '--name', 'Reception', '--role', 'staff', '--scopes', 'pets');
  const token = await t.token(created.clientId, created.clientSecret);
  a.is(token.status, 200, token.text);
  const accessToken = token.body.access_token as string;
  a.is((await t.request('GET', '/v1/pets', { token: accessToken })).status, 200);

  const off = await cli(t.dataDir, 'clients', 'disable', created.id);
  a.is(off.code, 0, off.stderr);
  const refused = await t.request('GET', '/v1/pets', { token: accessToken });
  a.is(refused.status, 401);
  a.is(refused.body.code, 'invalid_token');
  a.is((await t.token(created.clientId, created.clientSecret)).status, 401);

  const listed = await t.request('GET', `/v1/clients/${created.id}`, { token: await t.adminToken() });
  a.true(listed.body.disabled);

  a.is((await cli(t.dataDir, 'clients', 'enable', created.id)).code, 0);
  // Enabled again, it gets new tokens; the one issued before the disable stays dead.
  a.is((await t.request('GET', '/v1/pets', { token: accessToken })).status, 401);
  // The CLI cut the tokens at its own real time: the server's test clock must not stand before it.
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1));
  const renewed = await t.token(created.clientId, created.clientSecret);
  a.is((await t.request('GET', '/v1/pets', { token: renewed.body.access_token as string })).status, 200);
});

test('rotate-secret stops the old secret at once; the new one works', async (a) => {
  const created = await cliJson(t.dataDir, 'clients', 'create', '--name', 'Rotating', '--role', 'staff', '--scopes', 'pets');
  a.is((await t.token(created.clientId, created.clientSecret)).status, 200);
  const rotated = await cliJson(t.dataDir, 'clients', 'rotate-secret', created.id);
  a.not(rotated.clientSecret, created.clientSecret);
  a.is((await t.token(created.clientId, created.clientSecret)).status, 401);
  a.is((await t.token(created.clientId, rotated.clientSecret)).status, 200);
});

test('clients made through the API show in the CLI list, and CLI changes are audited', async (a) => {
  const viaApi = await t.client({ name: 'made over HTTP', role: 'doctor', scopes: ['pets', 'medical'] });
  const listed = await cliJson<any[]>(t.dataDir, 'clients', 'list', '--env', 'live');
  a.true(listed.some((c) => c.id === viaApi.id && c.role === 'doctor'));

  const location = await cliJson(t.dataDir, 'locations', 'create', '--name', 'CLI clinic', '--timezone', 'America/New_York');
  const seen = await t.request('GET', `/v1/locations/${location.id}`, { token: await t.adminToken() });
  a.is(seen.status, 200);
  a.is(seen.body.timezone, 'America/New_York');

  const audit = await t.request('GET', '/v1/audit-events?method=CLI', { token: await t.adminToken() });
  a.is(audit.status, 200, audit.text);
  const routes = (audit.body.data as any[]).map((e) => e.route);
  a.true(routes.includes('CLI locations create'));
  a.true((audit.body.data as any[]).some((e) => e.resourceId === location.id && e.ip === 'local' && e.clientId === null));
});

test('keys rotate adds a signing key to the data dir; the running server signs with it without a restart', async (a) => {
  const file = path.join(t.dataDir, 'keys', 'signing-keys.json');
  const before = JSON.parse(readFileSync(file, 'utf8')) as Array<{ kid: string }>;
  const oldToken = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token as string;
  const rotated = await cliJson<{ kid: string }>(t.dataDir, 'keys', 'rotate');
  const after = JSON.parse(readFileSync(file, 'utf8')) as Array<{ kid: string }>;
  a.is(after.length, before.length + 1);
  a.is(after[after.length - 1]?.kid, rotated.kid);

  // No restart: the server publishes and signs with the new key (it checks the file every second;
  // the wait is generous for a loaded machine, not a timing claim), and the old one still verifies.
  const kidOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
  const fresh = await eventually(
    async () => {
      const token = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token as string;
      return kidOf(token) === rotated.kid ? token : null;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: 'a token signed with the rotated key' },
  );
  const jwks = await t.request('GET', '/.well-known/jwks.json');
  a.true(jwks.body.keys.some((k: { kid: string }) => k.kid === rotated.kid));
  a.is((await t.request('GET', '/v1/locations', { token: fresh })).status, 200);
  a.is((await t.request('GET', '/v1/locations', { token: oldToken })).status, 200);
});
