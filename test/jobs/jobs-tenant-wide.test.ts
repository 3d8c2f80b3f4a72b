import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

// Jobs act on every location (reminders mail all parents; a backup copies everything), like events and webhooks.
test('a location-scoped admin gets 403 tenant_wide_only on every job route and queues nothing', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const location = await createLocation(app);
  const scoped = await app.client({ role: 'admin', scopes: ['admin'], locationIds: [location.id] });

  for (const [method, path, body] of [
    ['GET', '/v1/jobs', undefined],
    ['GET', '/v1/jobs/vaccination-reminders', undefined],
    ['POST', '/v1/jobs/vaccination-reminders/run', {}],
    ['POST', '/v1/jobs/backup/run', { wait: true }],
  ] as const) {
    const res = await app.request(method, path, { token: scoped.accessToken, body });
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.code, 'tenant_wide_only', `${method} ${path}`);
  }
  const runs = await app.request('GET', '/v1/jobs/vaccination-reminders', { token: await app.adminToken() });
  t.is(runs.status, 200);
  t.deepEqual(runs.body.recentRuns, [], 'the refused run was never queued');
  const backup = await app.request('GET', '/v1/jobs/backup', { token: await app.adminToken() });
  t.deepEqual(backup.body.recentRuns, []);
});

// The router refuses a confined client right after the scope check, before reading its input.
test('a location-scoped client gets the same 403 when its input is invalid too', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const location = await createLocation(app);
  const scoped = await app.client({ role: 'admin', scopes: ['admin', 'webhooks'], locationIds: [location.id] });
  for (const [method, path, body] of [
    ['POST', '/v1/jobs/backup/run', { wait: 'yes', unknown: 1 }],
    ['POST', '/v1/webhook-endpoints', { url: 42 }],
    ['GET', '/v1/events?type=no.such.type', undefined],
  ] as const) {
    const res = await app.request(method, path, { token: scoped.accessToken, body });
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.code, 'tenant_wide_only', `${method} ${path}`);
  }
  const admin = await app.adminToken();
  const invalid = await app.request('POST', '/v1/jobs/backup/run', { token: admin, body: { wait: 'yes', unknown: 1 } });
  t.is(invalid.status, 400, 'a tenant-wide client still gets the validation error');
});
