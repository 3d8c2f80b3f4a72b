import { existsSync } from 'node:fs';
import { environmentsOf, type Config } from './config.js';
import { databaseFile, Stores } from './db/stores.js';
import { AppError } from './http/errors.js';
import { SigningKeys } from './modules/oauth/index.js';

/**
 * The first steps of the boot (src/appliance.ts), kept apart so offline tools (the CLI) open the
 * data dir without loading the app. `existingOnly`: open what a first start created, create nothing.
 */
interface OpenOptions {
  existingOnly?: boolean;
}

/** Each enabled environment's SQLite file, migrated to the latest schema (existingOnly: the files present). */
export async function openStores(config: Config, options: OpenOptions = {}): Promise<Stores> {
  const enabled = environmentsOf(config);
  const environments = options.existingOnly ? enabled.filter((env) => existsSync(databaseFile(config.dataDir, env))) : enabled;
  if (environments.length === 0) {
    throw new AppError('service_unavailable', `No appliance database in ${config.dataDir}; set PETCARE_DATA_DIR, or start the appliance once to create it.`);
  }
  return Stores.open(config.dataDir, environments);
}

/** The RS256 keys tokens are signed with, created on the first start. */
export function openSigningKeys(config: Config, options: OpenOptions = {}): SigningKeys {
  if (options.existingOnly && !SigningKeys.existIn(config.dataDir)) {
    throw new AppError('service_unavailable', `No signing keys in ${config.dataDir}; set PETCARE_DATA_DIR, or start the appliance once to create them.`);
  }
  return new SigningKeys(config.dataDir);
}
