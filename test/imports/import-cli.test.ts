import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { lockDataDir } from '../../src/data-dir.js';
import { Stores } from '../../src/db/stores.js';
import { bootstrapTenantAndAdmin } from '../../src/modules/clients/index.js';
import { runCli, type CliResult } from '../helpers/cli-process.js';
import { adminCredentials } from '../helpers/test-app.js';

/** `petcare import TYPE FILE`: offline on the data dir, the same checks and report as POST /v1/imports. */
let dir: string;
const cli = (...args: string[]): Promise<CliResult> => runCli(args, { PETCARE_DATA_DIR: path.join(dir, 'data') });

test.before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'petcare-import-cli-'));
  const dataDir = path.join(dir, 'data');
  const config = loadConfig({}, { dataDir, adminClientId: adminCredentials.live.clientId, adminClientSecret: adminCredentials.live.clientSecret });
  const stores = await Stores.open(dataDir, ['live', 'sandbox']);
  await bootstrapTenantAndAdmin(stores, config, pino({ level: 'silent' }), () => undefined);
  await stores.close();
});

test.after.always(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.serial('petcare import: a dry run, the import, a re-run, a mapping file and a refused row; the report and the exit code say how it went', async (a) => {
  const location = JSON.parse((await cli('locations', 'create', '--name', 'CLI clinic', '--timezone', 'Europe/London', '--json')).stdout);
  const file = path.join(dir, 'parents.csv');
  writeFileSync(file, 'Client No,Full Name,email\nC-1,Ada,ada@example.com\nC-2,Grace,\n');
  const mapping = path.join(dir, 'mapping.json');
  // As an editor saves it: pretty-printed, ending in a newline.
  writeFileSync(mapping, `${JSON.stringify({ 'Client No': 'externalId', 'Full Name': 'name' }, null, 2)}\n`);

  const dry = await cli('import', 'pet-parents', file, '--location', location.id, '--mapping', mapping, '--dry-run', '--json');
  a.is(dry.code, 0, dry.stderr);
  a.like(JSON.parse(dry.stdout), { status: 'done', dryRun: true, total: 2, created: 2 });

  const real = await cli('import', 'pet-parents', file, '--location', location.id, '--mapping', mapping);
  a.is(real.code, 0, real.stderr);
  a.regex(real.stdout, /^imp_\w+ pet-parents: done; 2 rows: 2 created, 0 updated, 0 skipped, 0 failed/);

  const again = await cli('import', 'pet-parents', file, '--location', location.id, '--mapping', mapping, '--json');
  a.like(JSON.parse(again.stdout), { created: 0, skipped: 2 });

  const pets = path.join(dir, 'pets.ndjson');
  writeFileSync(
    pets,
    '{"externalId":"A-1","name":"Rex","breed":"Beagle","species":"dog","ownerExternalId":"C-1"}\n{"externalId":"A-2","name":"Tom","breed":"Tabby","species":"cat","ownerExternalId":"C-9"}\n',
  );
  const refused = await cli('import', 'pets', pets);
  a.is(refused.code, 1);
  a.regex(refused.stdout, /1 created, 0 updated, 0 skipped, 1 failed/);
  a.regex(refused.stdout, /row 2: ownerExternalId: no pet parent with externalId 'C-9'/);
  a.regex(refused.stderr, /1 of 2 rows were refused/);

  const missing = await cli('import', 'pets', file);
  a.is(missing.code, 1);
  a.regex(missing.stderr, /lacks required columns/);
  const usage = await cli('import', 'pets');
  a.is(usage.code, 2);
});

test.serial('petcare import refuses while the appliance holds the data dir, naming it and the way through it; nothing is imported', async (a) => {
  const dataDir = path.join(dir, 'data');
  const file = path.join(dir, 'busy.csv');
  writeFileSync(file, 'externalId,name,locationId\nB-1,Busy,loc_x\n');
  // What a running appliance holds (main.ts), taken here as the appliance takes it.
  const lock = lockDataDir(dataDir, 'appliance');
  try {
    const refused = await cli('import', 'pet-parents', file, '--json');
    a.is(refused.code, 1);
    a.regex(refused.stderr, /in use by an appliance process \(pid \d+/);
    a.regex(refused.stderr, /POST \/v1\/imports/);
    a.is(refused.stdout, '');
  } finally {
    lock.release();
  }
  const listed = await cli('import', 'pet-parents', file, '--json');
  // Once the appliance is gone, the same command runs (its row refused: loc_x is no location).
  a.is(listed.code, 1);
  a.like(JSON.parse(listed.stdout), { status: 'done', total: 1, failed: 1 });
});
