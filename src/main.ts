import type { Server } from 'node:http';
import { openAppliance } from './appliance.js';
import { environmentsOf, loadConfig } from './config.js';
import { createLogger } from './logger.js';

/** The appliance (src/appliance.ts), then jobs → listen; SIGTERM drains and closes in reverse. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const appliance = await openAppliance({ config, logger, print: (text) => process.stdout.write(text) });
  const { app } = appliance;
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
    await appliance.close(config.shutdownTimeoutMs);
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
