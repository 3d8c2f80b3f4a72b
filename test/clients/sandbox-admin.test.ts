import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { Stores } from '../../src/db/stores.js';
import { bootstrapTenantAndAdmin } from '../../src/modules/clients/index.js';
import { hashSecret, verifySecret } from '../../src/modules/clients/client-secrets.js';
import { findClientByPublicId, updateClient } from '../../src/modules/clients/clients.repository.js';
import { startTestApp } from '../helpers/test-app.js';

const live = { adminClientId: 'pk_live_owner', adminClientSecret: 'sk_live_owner-secret-1234567890' };

async function bootstrap(dataDir: string, extra: Record<string, unknown> = {}) {
  const printed: string[] = [];
  const stores = await Stores.open(dataDir, ['live', 'sandbox']);
  try {
    await bootstrapTenantAndAdmin(stores, loadConfig({}, { dataDir, ...live, ...extra }), pino({ level: 'silent' }), (text) => printed.push(text));
    const sandboxAdmin = await findClientByPublicId(stores.get('sandbox').db, 'pk_test_owner');
    return { printed, sandboxAdmin, stores };
  } finally {
    await stores.close();
  }
}

const freshDir = (t: { teardown(fn: () => void): void }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-sandbox-admin-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test("the sandbox admin's secret is never the live one with the prefix swapped: generated and printed once", async (a) => {
  const dir = freshDir(a);
  const first = await bootstrap(dir);
  a.truthy(first.sandboxAdmin);
  a.false(await verifySecret('sk_test_owner-secret-1234567890', first.sandboxAdmin!.secretHash));
  a.is(first.printed.length, 1);
  const secret = /client_secret: (sk_test_\S+)/.exec(first.printed[0]!)?.[1];
  a.truthy(secret);
  a.true(await verifySecret(secret!, first.sandboxAdmin!.secretHash));
  a.regex(first.printed[0]!, /pk_test_owner/);

  // The next start keeps it and prints nothing.
  const again = await bootstrap(dir);
  a.deepEqual(again.printed, []);
  a.true(await verifySecret(secret!, again.sandboxAdmin!.secretHash));
});

test('PETCARE_SANDBOX_ADMIN_CLIENT_SECRET sets the sandbox admin secret, and stays its source of truth', async (a) => {
  const dir = freshDir(a);
  const { printed, sandboxAdmin } = await bootstrap(dir, { sandboxAdminClientSecret: 'sk_test_vendor-demo-secret-123456' });
  a.deepEqual(printed, []);
  a.true(await verifySecret('sk_test_vendor-demo-secret-123456', sandboxAdmin!.secretHash));
  const changed = await bootstrap(dir, { sandboxAdminClientSecret: 'sk_test_vendor-demo-secret-changed' });
  a.true(await verifySecret('sk_test_vendor-demo-secret-changed', changed.sandboxAdmin!.secretHash));
});

test('an appliance upgraded from a release that derived the sandbox secret gets a new one at start (printed once)', async (a) => {
  const dir = freshDir(a);
  await bootstrap(dir);
  // What older releases stored: the live secret with sk_test_.
  const stores = await Stores.open(dir, ['live', 'sandbox']);
  const admin = await findClientByPublicId(stores.get('sandbox').db, 'pk_test_owner');
  await updateClient(
    stores.get('sandbox').db,
    admin!.tenantId,
    admin!.id,
    { secretHash: await hashSecret('sk_test_owner-secret-1234567890') },
    new Date().toISOString(),
  );
  await stores.close();

  const upgraded = await bootstrap(dir);
  a.is(upgraded.printed.length, 1);
  a.regex(upgraded.printed[0]!, /replaced/);
  a.false(await verifySecret('sk_test_owner-secret-1234567890', upgraded.sandboxAdmin!.secretHash));
});

test('over HTTP: the swapped live secret is refused by the sandbox token endpoint', async (a) => {
  const app = await startTestApp({ config: { sandboxAdminClientSecret: undefined } });
  a.teardown(() => app.close());
  const swapped = await app.token('pk_test_testadmin', 'sk_test_testadminsecret');
  a.is(swapped.status, 401);
  a.is(swapped.body.error, 'invalid_client');
  const liveToken = await app.token('pk_live_testadmin', 'sk_live_testadminsecret');
  a.is(liveToken.status, 200);
});
