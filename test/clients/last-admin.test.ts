import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The last enabled admin client cannot be disabled or demoted (409 last_admin): otherwise nobody
 * could manage clients or locations without the offline CLI. Each test starts its own appliance,
 * since the rule depends on how many admins exist.
 */
async function withApp(run: (t: TestApp, admin: string, adminId: string) => Promise<void>): Promise<void> {
  const t = await startTestApp();
  try {
    const admin = await t.adminToken();
    const row = await t.stores.get('live').db.selectFrom('api_clients').select('id').where('client_id', '=', 'pk_live_testadmin').executeTakeFirstOrThrow();
    await run(t, admin, row.id);
  } finally {
    await t.close();
  }
}

const patch = (t: TestApp, token: string, id: string, body: Record<string, unknown>) => t.request('PATCH', `/v1/clients/${id}`, { token, body });

test('the only admin cannot be disabled, demoted, stripped of the admin scope or confined to a location', async (a) => {
  await withApp(async (t, admin, adminId) => {
    const location = await createLocation(t);
    const before = await t.stores.get('live').db.selectFrom('api_clients').selectAll().where('id', '=', adminId).executeTakeFirstOrThrow();
    for (const body of [
      { disabled: true },
      { role: 'staff', scopes: ['pets'] },
      { role: 'doctor', scopes: ['pets'] },
      { scopes: ['pets', 'admin.read'] },
      { locationIds: [location.id] },
    ]) {
      const res = await patch(t, admin, adminId, body);
      a.is(res.status, 409, `${JSON.stringify(body)}: ${res.text}`);
      a.is(res.body.code, 'last_admin');
      a.regex(res.headers.get('content-type') ?? '', /problem\+json/);
    }
    const after = await t.stores.get('live').db.selectFrom('api_clients').selectAll().where('id', '=', adminId).executeTakeFirstOrThrow();
    a.deepEqual(after, before);
    // Harmless changes to the last admin are fine.
    const renamed = await patch(t, admin, adminId, { name: 'Head office' });
    a.is(renamed.status, 200);
    a.is((await t.request('GET', '/v1/clients', { token: admin })).status, 200);
  });
});

test('an admin-role client without the admin scope, or confined to a location, does not count as another admin', async (a) => {
  await withApp(async (t, admin, adminId) => {
    const location = await createLocation(t);
    const hollow = await t.client({ name: 'admin role, pets only', role: 'admin', scopes: ['pets'] });
    const reader = await t.client({ name: 'admin role, admin.read', role: 'admin', scopes: ['admin.read'] });
    const site = await t.client({ name: 'site admin', role: 'admin', scopes: ['admin'], locationIds: [location.id] });
    const res = await patch(t, admin, adminId, { disabled: true });
    a.is(res.status, 409, res.text);
    a.is(res.body.code, 'last_admin');
    // The bootstrap admin still works, so the tenant can still be managed.
    a.is((await t.request('GET', '/v1/clients', { token: admin })).status, 200);
    for (const c of [hollow, reader, site]) a.truthy(c.id);
  });
});

test('with a second full admin, one may be disabled; then the remaining one is protected', async (a) => {
  await withApp(async (t, admin, adminId) => {
    const second = await t.client({ name: 'second admin', role: 'admin', scopes: ['admin', 'pets'] });
    const off = await patch(t, second.accessToken, adminId, { disabled: true });
    a.is(off.status, 200, off.text);
    a.true(off.body.disabled);
    // The bootstrap admin's token stops at once.
    a.is((await t.request('GET', '/v1/clients', { token: admin })).status, 401);

    const self = await patch(t, second.accessToken, second.id, { disabled: true });
    a.is(self.status, 409);
    a.is(self.body.code, 'last_admin');
    const demote = await patch(t, second.accessToken, second.id, { role: 'doctor', scopes: ['pets'] });
    a.is(demote.status, 409);

    // Re-enabling the first restores two admins; now the second may step down.
    const on = await patch(t, second.accessToken, adminId, { disabled: false });
    a.is(on.status, 200);
    const stepDown = await patch(t, second.accessToken, second.id, { role: 'staff', scopes: ['pets'] });
    a.is(stepDown.status, 200, stepDown.text);
    a.is(stepDown.body.role, 'staff');
  });
});

test('disabling an already disabled admin, or a non-admin, is not blocked', async (a) => {
  await withApp(async (t, admin) => {
    const staff = await t.client({ name: 'staff', role: 'staff', scopes: ['pets'] });
    a.is((await patch(t, admin, staff.id, { disabled: true })).status, 200);
    const other = await t.client({ name: 'other admin', role: 'admin', scopes: ['admin'] });
    a.is((await patch(t, admin, other.id, { disabled: true })).status, 200);
    a.is((await patch(t, admin, other.id, { disabled: true })).status, 200);
    a.is((await patch(t, admin, other.id, { role: 'staff', scopes: ['pets'] })).status, 200);
  });
});

test('the sandbox keeps its own last admin, whatever live has', async (a) => {
  await withApp(async (t) => {
    const sandboxAdmin = await t.adminToken('sandbox');
    await t.client({ name: 'second live admin', role: 'admin', scopes: ['admin'] });
    const row = await t.stores.get('sandbox').db.selectFrom('api_clients').select('id').where('client_id', '=', 'pk_test_testadmin').executeTakeFirstOrThrow();
    const res = await patch(t, sandboxAdmin, row.id, { disabled: true });
    a.is(res.status, 409);
    a.is(res.body.code, 'last_admin');
  });
});
