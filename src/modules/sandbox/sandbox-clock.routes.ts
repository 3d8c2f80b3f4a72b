import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { isoAt } from '../../clock.js';
import { AppError } from '../../http/errors.js';
import type { Actor } from '../../http/actor.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { JobRunner } from '../../jobs/runner.js';
import { clockOffset, maxClockLeadMs, setClockOffset } from '../business-clock/index.js';

/** Jobs that read the business clock: advancing it queues a run of each, so the effect shows at once. */
const clockJobs = ['subscription-billing', 'settlement', 'vaccination-reminders', 'appointment-reminders'] as const;

const ClockSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: 'The sandbox business clock: what billing, settlements and reminders take as now.' }),
    realNow: Type.String({ format: 'date-time', description: 'Real time (tokens, rate limits, idempotency and the audit trail keep it).' }),
    advancedBySeconds: Type.Integer({ minimum: 0, description: 'How far the business clock runs ahead of real time.' }),
  },
  { additionalProperties: false },
);

const AdvanceClockSchema = Type.Object(
  { advanceTo: Type.String({ format: 'date-time', description: 'The instant to move the sandbox clock to; never before its current now.' }) },
  { additionalProperties: false },
);

function sandboxOnly(actor: Actor): void {
  // The live environment has no test clock at all: answer as for a path that does not exist there.
  if (actor.env !== 'sandbox') throw new AppError('not_found', 'The test clock exists only in the sandbox (sk_test_ clients); live runs on real time.');
}

const present = (real: number, offset: number) => ({ now: isoAt(real + offset), realNow: isoAt(real), advancedBySeconds: Math.floor(offset / 1000) });

/** Stripe-style test clock of the sandbox (DESIGN §9): move business time forward to watch a month of billing in a minute. */
export function sandboxClockRoutes(deps: { clock: Clock; runner?: JobRunner }): AnyRoute[] {
  const description =
    'Sandbox only (a live client gets 404). The sandbox business clock is real time plus an offset that only moves forward and keeps running from where it was set; ' +
    'subscription billing, daily closes, reminders and the dates of money records read it, while tokens, rate limits, idempotency and the audit trail keep real time. ' +
    'It runs at most 5 years ahead of real time. POST /v1/sandbox/reset returns it to real time. Admin role. ';
  return [
    defineRoute({
      method: 'get',
      path: '/v1/sandbox/clock',
      operationId: 'getSandboxClock',
      summary: 'Read the sandbox test clock',
      description,
      tags: ['Sandbox'],
      access: { scope: 'admin.read', roles: ['admin'] },
      response: { status: 200, description: 'The clock', schema: ClockSchema },
      errors: ['not_found'],
      handler: async ({ db, actor }) => {
        sandboxOnly(actor);
        return { body: present(deps.clock.now(), await clockOffset(db)), resourceId: 'sandbox-clock' };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sandbox/clock',
      operationId: 'advanceSandboxClock',
      summary: 'Move the sandbox test clock forward',
      description:
        description +
        'A time before the clock’s current now is 422 `clock_backwards`; one more than 5 years past real time is 422 `clock_out_of_range`. Queues a run of subscription-billing, settlement and the reminder jobs, so what falls due by the new time happens now ' +
        '(follow them at GET /v1/jobs, or run one and wait with POST /v1/jobs/{name}/run {"wait": true}).',
      tags: ['Sandbox'],
      access: { scope: 'admin', roles: ['admin'] },
      body: AdvanceClockSchema,
      response: { status: 200, description: 'The clock after the move', schema: ClockSchema },
      errors: ['not_found', 'clock_backwards', 'clock_out_of_range'],
      handler: async ({ db, actor, body, afterCommit }) => {
        sandboxOnly(actor);
        const real = deps.clock.now();
        const current = real + (await clockOffset(db));
        const target = Date.parse(body.advanceTo);
        if (target < current) {
          throw new AppError('clock_backwards', `The sandbox clock is at ${isoAt(current)}; it only moves forward.`, { extensions: { now: isoAt(current) } });
        }
        if (target - real > maxClockLeadMs) {
          throw new AppError(
            'clock_out_of_range',
            `The sandbox clock runs at most 5 years ahead of real time: ${isoAt(real + maxClockLeadMs)} at the latest.`,
            {
              extensions: { latest: isoAt(real + maxClockLeadMs) },
            },
          );
        }
        const offset = target - real;
        await setClockOffset(db, offset, isoAt(real));
        afterCommit(() => {
          const runner = deps.runner;
          if (!runner) return;
          for (const name of clockJobs) if (runner.find(name)) void runner.enqueueNow('sandbox', name, 'code').catch(() => undefined);
        });
        return { body: present(real, offset), resourceId: 'sandbox-clock' };
      },
    }),
  ];
}
