import { openAppliance } from './appliance.js';
import { ConfigError, environmentsOf, exitConfigError, loadConfig } from './config.js';
import { DataDirError, exitDataDirUnusable, lockDataDir, prepareDataDir } from './data-dir.js';
import { linkOriginWarning } from './http/public-url.js';
import { createHttpServer, defaultServerLimits } from './http/server.js';
import { createLogger } from './logger.js';
import { finishInterruptedRestore } from './modules/backups/index.js';

/** The appliance (src/appliance.ts), then jobs → listen; SIGTERM drains and closes in reverse. */
async function main(): Promise<void> {
  // Everything the appliance creates (databases, documents, keys, backups) is its own: files 0600, folders 0700.
  process.umask(0o077);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  prepareDataDir(config.dataDir);
  // One appliance per data dir, and none while a restore swaps its files (any container on the volume).
  const lock = lockDataDir(config.dataDir, 'appliance');
  process.on('exit', () => lock.release());
  const finishedRestore = await finishInterruptedRestore(config.dataDir);
  if (finishedRestore) logger.warn(finishedRestore);
  const warning = linkOriginWarning(config);
  if (warning) logger.warn(warning);
  const appliance = await openAppliance({ config, logger, print: (text) => process.stdout.write(text) });
  const { app } = appliance;
  const server = createHttpServer(app.koa.callback(), { ...defaultServerLimits, maxConnectionsPerIp: config.maxConnectionsPerIp });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, host: config.host, dataDir: config.dataDir, environments: environmentsOf(config), version: config.platformVersion }, 'listening');
  });
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
    // Event streams never finish on their own: end them now, so the drain waits only for real requests.
    appliance.app.eventStreams.closeAll();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await appliance.close(config.shutdownTimeoutMs);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`petcare: ${err.message}\n`);
    process.exit(exitConfigError);
  }
  if (err instanceof DataDirError) {
    process.stderr.write(`petcare: ${err.message}\n`);
    process.exit(exitDataDirUnusable);
  }
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
