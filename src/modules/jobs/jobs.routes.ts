import { Type } from '@sinclair/typebox';
import { foundOr404 } from '../../http/errors.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { JobRunner } from '../../jobs/runner.js';
import { countOpenRuns, findSchedules, listJobRuns } from '../../jobs/jobs.repository.js';
import { presentJob, presentJobRun } from './jobs.presenter.js';
import { JobDetailSchema, JobParams, JobRunSchema, JobSchema, RunJobBody } from './jobs.schema.js';

const tags = ['Jobs'];
const jobsSpanTenant = 'Jobs act on every location of the tenant (a reminder run mails all parents, a backup copies everything)';
const tenantWide = ' Tenant-wide clients only (403 `tenant_wide_only` for a client confined to locations).';

export function jobRoutes(deps: { runner: JobRunner }): AnyRoute[] {
  const { runner } = deps;
  const definitionOf = (name: string) => foundOr404(runner.find(name), 'job', name);

  return [
    defineRoute({
      method: 'get',
      path: '/v1/jobs',
      operationId: 'listJobs',
      summary: 'List background jobs',
      description:
        "Every job the runner knows, for the caller's environment: its schedule (cron in UTC, a poller interval, or on demand), last run, next run and runs open now." +
        tenantWide,
      tags,
      access: { scope: 'admin.read', roles: ['admin'] },
      tenantWide: jobsSpanTenant,
      response: { status: 200, description: 'The jobs', schema: Type.Object({ data: Type.Array(JobSchema) }, { additionalProperties: false }) },
      errors: ['tenant_wide_only'],
      handler: async ({ db, actor }) => {
        const [states, open] = await Promise.all([findSchedules(db), countOpenRuns(db)]);
        const data = runner.definitions().map((d) => presentJob(d, states.get(d.name), runner.nextRunAt(d.name), open.get(d.name) ?? 0));
        return { body: { data } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/jobs/:name',
      operationId: 'getJob',
      summary: 'Get a background job with its recent runs',
      description: 'The job as listed, plus its 20 most recent queued runs (newest first). Finished runs are kept 7 days.' + tenantWide,
      tags,
      access: { scope: 'admin.read', roles: ['admin'] },
      tenantWide: jobsSpanTenant,
      params: JobParams,
      response: { status: 200, description: 'The job', schema: JobDetailSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => {
        const definition = definitionOf(params.name);
        const [states, open, runs] = await Promise.all([findSchedules(db), countOpenRuns(db), listJobRuns(db, definition.name, 20)]);
        return {
          body: {
            ...presentJob(definition, states.get(definition.name), runner.nextRunAt(definition.name), open.get(definition.name) ?? 0),
            recentRuns: runs.map(presentJobRun),
          },
          resourceId: definition.name,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/jobs/:name/run',
      operationId: 'runJob',
      summary: 'Run a background job now',
      description:
        "Queues a run in the caller's environment and answers 202 with it; with `wait: true` answers 200 once it has finished (or 202 if it is still going after `waitSeconds`, 1–120, default 30). " +
        'The connection stays open while the run is awaited: the server’s idle limit (30 s, for slow clients) does not count a silence while the answer is being produced. ' +
        'Jobs are safe to run again (reminders are sent once however often their job runs), so this call does not take an Idempotency-Key: each call queues a run.' +
        tenantWide,
      tags,
      access: { scope: 'admin', roles: ['admin'] },
      tenantWide: jobsSpanTenant,
      params: JobParams,
      body: RunJobBody,
      transactional: false,
      response: {
        status: 202,
        description: 'The queued run',
        schema: JobRunSchema,
        also: [{ status: 200, description: 'With `{"wait":true}`: the run, finished' }],
      },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ actor, params, body }) => {
        const definition = definitionOf(params.name);
        const id = await runner.enqueueNow(actor.env, definition.name);
        const run = foundOr404(await runner.waitFor(actor.env, id, body?.wait ? (body.waitSeconds ?? 30) * 1000 : 0), 'job run', id);
        const finished = run.status === 'succeeded' || run.status === 'failed';
        return { status: body?.wait && finished ? 200 : 202, body: presentJobRun(run), resourceId: id };
      },
    }),
  ];
}
