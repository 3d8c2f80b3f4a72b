import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { JobDefinition } from '../../src/jobs/job-definition.js';
import { verifyArchive } from '../../src/modules/backups/index.js';
import { eventually } from '../helpers/eventually.js';
import { adminCredentials, startTestApp, type TestApp } from '../helpers/test-app.js';

const run = async (t: TestApp, name: string, body: Record<string, unknown> = { wait: true }) =>
  t.request('POST', `/v1/jobs/${name}/run`, { token: await t.adminToken(), body });

test('GET /v1/jobs lists each job with its schedule, last and next run', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const res = await app.request('GET', '/v1/jobs', { token: await app.adminToken() });
  t.is(res.status, 200);
  const housekeeping = res.body.data.find((j: { name: string }) => j.name === 'housekeeping');
  t.deepEqual(housekeeping.schedule, { type: 'cron', expression: '*/10 * * * *' });
  t.is(housekeeping.lastRun, null);
  t.regex(housekeeping.nextRunAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d0:00\.000Z$/);
  t.is(housekeeping.openRuns, 0);
  // Sorted by name; modules add their own jobs, so the core ones are checked, not the whole list.
  const names: string[] = res.body.data.map((j: { name: string }) => j.name);
  t.deepEqual(
    names,
    [...names].sort((a, b) => a.localeCompare(b)),
  );
  for (const name of ['appointment-reminders', 'backup', 'housekeeping', 'notification-delivery', 'vaccination-reminders', 'webhook-delivery']) {
    t.true(names.includes(name), name);
  }
  const delivery = res.body.data.find((j: { name: string }) => j.name === 'webhook-delivery');
  t.deepEqual(delivery.schedule, { type: 'interval', everyMs: app.config.jobPollMs });
  t.is(delivery.nextRunAt, null);
});

test('a poller can be run on demand too (the admin does not wait for its next pass)', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const res = await run(app, 'webhook-delivery');
  t.is(res.status, 200);
  t.like(res.body, { name: 'webhook-delivery', status: 'succeeded' });
});

test('POST /v1/jobs/:name/run with wait answers the finished run, which GET /v1/jobs then shows', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const res = await run(app, 'housekeeping');
  t.is(res.status, 200);
  t.like(res.body, { name: 'housekeeping', status: 'succeeded', trigger: 'manual', attempts: 1, error: null });
  t.is(res.body.result.prunedRuns, 0);
  t.regex(res.body.id, /^job_/);

  const listed = await app.request('GET', '/v1/jobs/housekeeping', { token: await app.adminToken() });
  t.is(listed.status, 200);
  t.like(listed.body.lastRun, { id: res.body.id, status: 'succeeded' });
  t.is(listed.body.recentRuns[0].id, res.body.id);
});

test('housekeeping runs the clean-up each module registered and reports every count', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const swept: string[] = [];
  app.app.runner.addHousekeeping([{ name: 'test.sweep', drops: 'test leftovers', run: async ({ env }) => (swept.push(env), { testLeftovers: 2 }) }]);
  t.throws(() => app.app.runner.addHousekeeping([{ name: 'test.sweep', drops: 'twice', run: async () => ({}) }]), { message: /registered twice/ });
  await app.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret); // a refresh token to expire
  app.clock.advance((app.config.refreshTokenTtlSeconds + 60) * 1000);

  const res = await run(app, 'housekeeping');
  t.is(res.status, 200);
  // The core tasks and the one registered here; other modules' tasks add counts of their own (each a number).
  t.like(res.body.result, { prunedRuns: 0, expiredIdempotencyRecords: 0, staleUploads: 0, testLeftovers: 2 });
  // The token expires once: in this run, or in a run housekeeping's own schedule (every 10 minutes of real time) fired meanwhile.
  const runs = (await app.request('GET', '/v1/jobs/housekeeping', { token: await app.adminToken() })).body.recentRuns as Array<{
    result: { expiredTokens?: number } | null;
  }>;
  t.is(
    runs.reduce((sum, r) => sum + (r.result?.expiredTokens ?? 0), 0),
    1,
  );
  for (const [key, count] of Object.entries(res.body.result)) t.is(typeof count, 'number', key);
  // The manual run swept live (a scheduled fire meanwhile would sweep each environment again).
  t.true(swept.includes('live'));
  const job = await app.request('GET', '/v1/jobs/housekeeping', { token: await app.adminToken() });
  t.regex(
    job.body.description,
    /^Drops job runs older than 7 days, expired idempotency records, .*spent or expired tokens, .*document uploads a crash left unfinished.* and test leftovers\.$/,
  );
});

test('without wait the run is queued (202) and runs in the background', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const res = await run(app, 'housekeeping', {});
  t.is(res.status, 202);
  t.true(['queued', 'running', 'succeeded'].includes(res.body.status));
  await eventually(
    async () => {
      const job = await app.request('GET', '/v1/jobs/housekeeping', { token: await app.adminToken() });
      return job.body.lastRun?.status === 'succeeded';
    },
    { what: 'the queued run' },
  );
  t.pass();
});

test('unknown jobs are 404; jobs need an admin token; bad bodies are 400', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  t.is((await run(app, 'no-such-job')).status, 404);
  t.is((await run(app, 'housekeeping', { wait: 'yes' })).status, 400);
  t.is((await app.request('GET', '/v1/jobs')).status, 401);
  const staff = await app.client({ role: 'staff', scopes: ['pets'] });
  t.is((await app.request('GET', '/v1/jobs', { token: staff.accessToken })).status, 403);
  t.is((await app.request('POST', '/v1/jobs/housekeeping/run', { token: staff.accessToken, body: {} })).status, 403);
});

test('jobs run per environment: a sandbox run is recorded in the sandbox only', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const sandbox = await app.request('POST', '/v1/jobs/housekeeping/run', { token: await app.adminToken('sandbox'), body: { wait: true } });
  t.is(sandbox.status, 200);
  const live = await app.request('GET', '/v1/jobs/housekeeping', { token: await app.adminToken() });
  // Housekeeping's own schedule (every 10 minutes of real time) may fire while the test runs: only the manual run must not be here.
  t.false(live.body.recentRuns.some((run: { id: string; trigger: string }) => run.id === sandbox.body.id || run.trigger === 'manual'));
});

test('a failing run is retried with backoff, then succeeds; after maxAttempts it is failed', async (t) => {
  const app = await startTestApp({ config: { jobPollMs: 20 } });
  t.teardown(() => app.close());
  let calls = 0;
  const flaky: JobDefinition = {
    name: 'flaky',
    description: 'fails once',
    schedule: null,
    maxAttempts: 2,
    async run() {
      calls += 1;
      if (calls === 1) throw new Error('first attempt fails');
      return { done: 1 };
    },
  };
  const broken: JobDefinition = {
    name: 'broken',
    description: 'always fails',
    schedule: null,
    maxAttempts: 2,
    run: async () => Promise.reject(new Error('nope')),
  };
  app.app.runner.register([flaky, broken]);

  const queued = await run(app, 'flaky', {});
  const token = await app.adminToken();
  const retrying = await eventually(
    async () => {
      const job = await app.request('GET', '/v1/jobs/flaky', { token });
      const latest = job.body.recentRuns[0];
      return latest.status === 'queued' && latest.attempts === 1 ? latest : undefined;
    },
    { what: 'the retry to be queued' },
  );
  t.is(retrying.id, queued.body.id);
  t.is(retrying.error, 'first attempt fails');
  t.true(Date.parse(retrying.runAt) > app.clock.now(), 'the retry waits');

  app.clock.advance(60_000);
  app.app.runner.kick();
  const done = await app.app.runner.waitFor('live', queued.body.id, 30_000);
  t.like(done, { status: 'succeeded', attempts: 2 });

  const failed = await run(app, 'broken', {});
  await eventually(async () => (await app.app.runner.waitFor('live', failed.body.id, 0))?.attempts === 1, { what: 'the first failure' });
  app.clock.advance(60_000);
  app.app.runner.kick();
  const final = await app.app.runner.waitFor('live', failed.body.id, 30_000);
  t.like(final, { status: 'failed', attempts: 2, error: 'nope' });
});

test('a run left running by a process that died is run again after a restart', async (t) => {
  const first = await startTestApp({ jobs: false });
  t.teardown(() => first.close());
  const queuedId = await first.app.runner.enqueueNow('live', 'housekeeping');
  // The dead process had claimed it: running, with a lease far in the future.
  await first.stores
    .get('live')
    .db.updateTable('jobs')
    .set({ status: 'running', attempts: 1, lease_until: '2999-01-01T00:00:00.000Z' })
    .where('id', '=', queuedId)
    .execute();
  await first.close({ keepData: true });

  const second = await startTestApp({ dataDir: first.dataDir });
  t.teardown(() => second.close());
  const row = await second.app.runner.waitFor('live', queuedId, 30_000);
  t.like(row, { status: 'succeeded', attempts: 2 });
});

test('the backup job writes one verified archive of the appliance to data/backups', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const res = await run(app, 'backup');
  t.is(res.status, 200);
  t.is(res.body.status, 'succeeded');
  const file = String(res.body.result.file);
  t.is(path.dirname(file), path.join(app.dataDir, 'backups'));
  t.true(existsSync(file));
  const manifest = await verifyArchive(file);
  t.deepEqual(manifest.environments, ['live', 'sandbox']);
  t.true(manifest.files.some((f) => f.path === 'keys/signing-keys.json'));
  // The archive covers both environments: the sandbox's own run does not write a second one.
  const sandboxRun = await app.request('POST', '/v1/jobs/backup/run', { token: await app.adminToken('sandbox'), body: { wait: true } });
  t.like(sandboxRun.body, { status: 'succeeded', result: { skipped: true } });
});

test('a cron fire missed while the appliance was off runs once at the next start, and the next fire is recorded', async (t) => {
  const first = await startTestApp();
  t.teardown(() => first.close());
  const token = await first.adminToken();
  const listed = await first.request('GET', '/v1/jobs/backup', { token });
  t.regex(listed.body.nextRunAt, /T02:30:00\.000Z$/, 'the next fire is known from the first start on');
  // The appliance was off when that fire came: its recorded next run is now in the past.
  await first.stores.get('live').db.updateTable('job_schedules').set({ next_run_at: '2026-01-01T02:30:00.000Z' }).where('name', '=', 'backup').execute();
  await first.close({ keepData: true });

  const second = await startTestApp({ dataDir: first.dataDir });
  t.teardown(() => second.close());
  const run = await eventually(
    async () => {
      const runs = await second.stores.get('live').db.selectFrom('jobs').selectAll().where('name', '=', 'backup').execute();
      return runs.length === 1 && runs[0]!.status === 'succeeded' ? runs[0] : undefined;
    },
    { what: 'the catch-up run' },
  );
  t.is(run.trigger, 'schedule');
  const state = await second.stores.get('live').db.selectFrom('job_schedules').selectAll().where('name', '=', 'backup').executeTakeFirstOrThrow();
  t.true(Date.parse(state.next_run_at!) > Date.now(), 'the next fire replaces the missed one');
});
