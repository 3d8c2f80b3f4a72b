/**
 * The composition root: config → databases (migrated) → signing keys → tenant and admin → sandbox
 * demo data → app and job runner. main.ts adds listening and signals, the test harness port 0 and a
 * temp dir; the CLI opens only the data dir (src/data-dir.ts) for its offline commands.
 */
import type { Logger } from 'pino';
import { createApp, type PetCareApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openSigningKeys, openStores } from './data-dir.js';
import { useIdClock } from './db/ids.js';
import { SecretBox } from './db/secret-box.js';
import type { Stores } from './db/stores.js';
import { bootstrapTenantAndAdmin } from './modules/clients/index.js';
import type { SigningKeys } from './modules/oauth/index.js';
import { seedSandboxIfEmpty } from './modules/sandbox/index.js';

export interface ApplianceOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Where a generated admin secret is printed, once (main: stdout). */
  print?: (text: string) => void;
  /** Validate every response against its schema (on in tests). */
  validateResponses?: boolean;
  /**
   * Seed the sandbox's demo practice at a data dir's first start (default true: an appliance has it
   * ready at once). The test harness turns it off and seeds at the sandbox's first use instead.
   */
  seedSandbox?: boolean;
}

export interface Appliance {
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stores: Stores;
  readonly keys: SigningKeys;
  readonly tenantId: string;
  readonly app: PetCareApp;
  /** After the server stopped taking requests: stops the jobs, flushes the audit buffer, closes the databases. */
  close(jobsTimeoutMs?: number): Promise<void>;
}

/** Opens everything the appliance serves with; the caller starts `app.runner` and listens. */
export async function openAppliance(options: ApplianceOptions): Promise<Appliance> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  // Ids carry this real clock's time, never a business clock's (DESIGN §5).
  useIdClock(() => clock.now());
  const stores = await openStores(config);
  const keys = openSigningKeys(config);
  const tenantId = await bootstrapTenantAndAdmin(stores, config, logger, options.print ?? (() => undefined), clock.now());
  const secretBox = SecretBox.forDataDir(config.dataDir);
  const app = createApp({ config, clock, logger, stores, keys, secretBox, validateResponses: options.validateResponses ?? false });
  // After createApp: the demo rows are written through the access policies the app registers from the manifests.
  if (stores.has('sandbox') && (options.seedSandbox ?? true)) await seedSandboxIfEmpty(stores.get('sandbox').db, tenantId, clock.now());
  // The CLI may rotate the signing key beside a running server: the new key signs within a second or two.
  const stopWatchingKeys = keys.watch();
  return {
    config,
    clock,
    logger,
    stores,
    keys,
    tenantId,
    app,
    async close(jobsTimeoutMs) {
      stopWatchingKeys();
      app.eventStreams.closeAll();
      await app.runner.stop(jobsTimeoutMs);
      await app.webhooks.drain();
      await app.audit.flush();
      await stores.close();
    },
  };
}
