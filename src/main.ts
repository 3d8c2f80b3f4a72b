import type { Server } from 'node:http';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { environmentsOf, loadConfig } from './config.js';
import { Stores } from './db/stores.js';
import { createLogger } from './logger.js';
import { bootstrapTenantAndAdmin } from './modules/clients/index.js';
import { SigningKeys } from './modules/oauth/signing-keys.js';
import { seedSandboxIfEmpty } from './modules/sandbox/index.js';


/** config → database → migrations → app → jobs → listen; SIGTERM drains and closes in reverse. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const stores = await Stores.open(config.dataDir, environmentsOf(config));
  const keys = new SigningKeys(config.dataDir);
  const tenantId = await bootstrapTenantAndAdmin(stores, config, logger, (text) => process.stdout.write(text));
  if (stores.has('sandbox')) await seedSandboxIfEmpty(stores.get('sandbox').db, tenantId, Date.now());

  const app = createApp({ config, clock: systemClock, logger, stores, keys });
  const server: Server = app.koa.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, host: config.host, dataDir: config.dataDir, environments: environmentsOf(config), version: config.platformVersion }, 'listening');
  });
  server.keepAliveTimeout = 65_000;
  await app.runner.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.warn('drain timed out; closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await app.runner.stop(config.shutdownTimeoutMs);
    await app.audit.flush();
    await stores.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
