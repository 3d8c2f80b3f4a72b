import { Type, type Static } from '@sinclair/typebox';

const Result = Type.Union([Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()])), Type.Null()], {
  description: 'The summary the run returned (counts), or null.',
});

export const JobRunSchema = Type.Object(
  {
    id: Type.String({ description: 'job_…' }),
    name: Type.String(),
    status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual'), Type.Literal('code')]),
    attempts: Type.Integer(),
    maxAttempts: Type.Integer(),
    runAt: Type.String({ format: 'date-time' }),
    startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    result: Result,
    error: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const JobSchema = Type.Object(
  {
    name: Type.String({ description: 'Use it in POST /v1/jobs/{name}/run.' }),
    description: Type.String(),
    schedule: Type.Union(
      [
        Type.Object({ type: Type.Literal('cron'), expression: Type.String({ description: 'node-cron expression, UTC' }) }, { additionalProperties: false }),
        Type.Object({ type: Type.Literal('interval'), everyMs: Type.Integer() }, { additionalProperties: false }),
        Type.Null(),
      ],
      { description: 'null: runs only when queued.' },
    ),
    lastRun: Type.Union([
      Type.Object(
        {
          id: Type.Union([Type.String(), Type.Null()], { description: 'The run (null for a poller pass, which has no queued row).' }),
          at: Type.String({ format: 'date-time' }),
          status: Type.String(),
          result: Result,
          error: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    nextRunAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Next cron fire (UTC); null for pollers and on-demand jobs.' }),
    openRuns: Type.Integer({ description: 'Runs queued or running now.' }),
  },
  { additionalProperties: false },
);

export const JobDetailSchema = Type.Composite([JobSchema, Type.Object({ recentRuns: Type.Array(JobRunSchema) })], { additionalProperties: false });

export const JobParams = Type.Object({ name: Type.String({ pattern: '^[a-z0-9-]{1,60}$' }) }, { additionalProperties: false });

export const RunJobBody = Type.Object(
  {
    wait: Type.Optional(Type.Boolean({ description: 'Answer when the run has finished (200) instead of when it is queued (202). Waits at most waitSeconds.' })),
    waitSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, default: 30 })),
  },
  { additionalProperties: false },
);

export type RunJobInput = Static<typeof RunJobBody>;
