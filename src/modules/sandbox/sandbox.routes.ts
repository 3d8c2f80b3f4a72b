import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { scoped } from '../../db/access-policy.js';
import { holdsConnection, type Db } from '../../db/database.js';
import type { JobRunner } from '../../jobs/runner.js';
import { AppError } from '../../http/errors.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ModuleManifest } from '../../module-manifest.js';
import { clearSandboxData, insertDemoData } from './demo-data.js';
import { resetClock } from '../business-clock/index.js';
import { sandboxClockRoutes } from './sandbox-clock.routes.js';

/** Seeds demo data on a sandbox that has no locations yet (first start). */
export async function seedSandboxIfEmpty(db: Db, tenantId: string, now: number): Promise<void> {
  const any = await scoped(db, { tenantId, locationIds: null }).selectFrom('locations').select('id').limit(1).executeTakeFirst();
  if (any) return;
  await db.transaction().execute(async (trx) => {
    // Held for the whole callback, as the router holds its own: the seed's prepared inserts run at once.
    holdsConnection(trx, db);
    await insertDemoData(trx, tenantId, now);
  });
}

const ResetResultSchema = Type.Object(
  {
    environment: Type.Literal('sandbox'),
    resetAt: Type.String({ format: 'date-time' }),
    seeded: Type.Object(
      {
        locations: Type.Integer(),
        petParents: Type.Integer(),
        pets: Type.Integer(),
        providers: Type.Integer(),
        vaccinations: Type.Integer(),
        appointments: Type.Integer(),
        invoices: Type.Integer(),
        payments: Type.Integer(),
        refunds: Type.Integer(),
        wallets: Type.Integer(),
        subscriptions: Type.Integer(),
        boardingStays: Type.Integer(),
        grooms: Type.Integer(),
        memberships: Type.Integer(),
        marketplaceOrders: Type.Integer(),
        reviews: Type.Integer(),
        knowledgeDocuments: Type.Integer(),
      },
      { additionalProperties: false, description: 'What the reset seeded, by kind: the demo practice (README, Sandbox).' },
    ),
  },
  { additionalProperties: false },
);

/** `modules`: the app's manifests, through which the reset erases every module's rows. */
export function sandboxRoutes(deps: { clock: Clock; config: Config; runner?: JobRunner; modules: () => readonly ModuleManifest[] }): AnyRoute[] {
  return [
    ...sandboxClockRoutes(deps),
    defineRoute({
      method: 'post',
      path: '/v1/sandbox/reset',
      operationId: 'resetSandbox',
      summary: 'Reset the sandbox to its demo data',
      description:
        'Deletes every sandbox location, pet parent, pet (with its records and document files), appointment, provider, money record (invoices, payments, wallets, journal), event and idempotency record, returns the test clock to real time, then re-seeds the demo practice, dated from the moment of the reset (three locations in three time zones, ~30 parents and 100 pets, ' +
        'three months of appointments, grooms and stays behind and a month ahead, vaccinations current, due and overdue, invoices paid, open and refunded, wallets and subscriptions, ' +
        'marketplace orders with reviews, a knowledge service with a document; fixed ids such as loc_demo_downtown, pet_demo_bella and prv_demo_chen). API clients, keys and the audit trail are kept. Sandbox admin clients only; live data is never touched.',
      tags: ['Sandbox'],
      access: { scope: 'admin', roles: ['admin'] },
      response: { status: 200, description: 'The sandbox was reset', schema: ResetResultSchema },
      errors: ['sandbox_only'],
      handler: async ({ db, actor, afterCommit }) => {
        if (actor.env !== 'sandbox') throw new AppError('sandbox_only', 'Reset is only available with a sandbox (sk_test_) client.');
        const now = deps.clock.now();
        await clearSandboxData(db, actor.tenantId, deps.modules());
        const seeded = await insertDemoData(db, actor.tenantId, now);
        await resetClock(db);
        // The demo knowledge document is indexed by the ai-indexing job: run it now rather than at its next poll.
        afterCommit(() => void deps.runner?.enqueueNow('sandbox', 'ai-indexing', 'code').catch(() => undefined));
        for (const module of deps.modules()) {
          const removeFiles = module.reset?.files;
          if (removeFiles) afterCommit(() => void removeFiles(deps.config.dataDir, 'sandbox'));
        }
        return {
          body: {
            environment: 'sandbox' as const,
            resetAt: new Date(now).toISOString(),
            seeded,
          },
        };
      },
    }),
  ];
}
