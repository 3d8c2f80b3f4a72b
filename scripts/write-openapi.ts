/**
 * Writes the OpenAPI document the app serves at /openapi.json to openapi.generated.json (or the
 * path given), for `npm run lint:openapi`. Builds the app on a throwaway data directory: the routes
 * need their dependencies, not any data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { Stores } from '../src/db/stores.js';
import { buildOpenApi } from '../src/http/openapi.js';
import { SigningKeys } from '../src/modules/oauth/signing-keys.js';
import { SecretBox } from '../src/db/secret-box.js';

const out = path.resolve(process.argv[2] ?? 'openapi.generated.json');
const dataDir = mkdtempSync(path.join(tmpdir(), 'petcare-openapi-'));
try {
  const config = loadConfig({}, { dataDir, logLevel: 'silent' });
  const stores = await Stores.open(dataDir, ['live', 'sandbox']);
  const app = createApp({
    config,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    stores,
    keys: new SigningKeys(dataDir),
    secretBox: SecretBox.ephemeral(),
  });
  writeFileSync(out, `${JSON.stringify(buildOpenApi(app.routes, config.platformVersion, app.tags), null, 2)}\n`);
  await app.audit.flush();
  await stores.close();
  process.stdout.write(`wrote ${out}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
