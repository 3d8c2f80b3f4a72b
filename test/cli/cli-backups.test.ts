import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lockFile } from '../../src/data-dir.js';
import { runCli } from '../helpers/cli-process.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

/** The operator's runbook, as the operator types it: backup, verify, restore. */
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-cli-backup-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

const cli = (env: Record<string, string>, ...args: string[]) => runCli(args, env);

test('backup prints the archive path last; verify checks it; restore brings the appliance back in a fresh data dir', async (t) => {
  const app = await startTestApp({ jobs: false });
  const { pet } = await createHousehold(app);
  const token = await app.adminToken();
  const backupDir = path.join(scratch, 'off-box');
  // While the server runs: the online backup API copies a consistent snapshot.
  const backup = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_DIR: backupDir }, 'backup');
  await app.close();
  t.is(backup.code, 0, backup.stderr);
  const archive = backup.stdout.trim().split('\n').at(-1)!;
  t.is(path.dirname(archive), backupDir);
  t.true(existsSync(archive));

  const verify = await cli({}, 'backup', 'verify', archive);
  t.is(verify.code, 0, verify.stderr);
  t.regex(verify.stdout, /^ok: \d+ files match their sha256/);

  const dataDir = path.join(scratch, 'restored');
  const restore = await cli({ PETCARE_DATA_DIR: dataDir }, 'restore', archive);
  t.is(restore.code, 0, restore.stderr);
  t.regex(restore.stdout, /^restored \d+ files/);
  const again = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => again.close());
  t.is((await again.request('GET', `/v1/pets/${pet.id}`, { token })).status, 200);

  // A populated dir without --force, and a corrupted archive: one line, exit 1, nothing changed.
  const populated = await cli({ PETCARE_DATA_DIR: dataDir }, 'restore', archive);
  t.is(populated.code, 1);
  t.regex(populated.stderr.trim(), /^error: .*already holds data.*--force to replace it$/);
  const corrupt = path.join(scratch, 'corrupt.tar.gz');
  writeFileSync(corrupt, readFileSync(archive).subarray(0, 300));
  const bad = await cli({}, 'backup', 'verify', corrupt);
  t.is(bad.code, 1);
  t.is(bad.stderr.trim().split('\n').length, 1);
});

test('restore refuses while a server holds the data dir; usage mistakes are exit 2', async (t) => {
  const dataDir = path.join(scratch, 'held');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dataDir, { recursive: true });
  const server = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.teardown(() => server.kill());
  writeFileSync(lockFile(dataDir), `${server.pid}\n`);
  const held = await cli({ PETCARE_DATA_DIR: dataDir }, 'restore', path.join(scratch, 'any.tar.gz'), '--force');
  t.is(held.code, 1);
  t.regex(held.stderr, new RegExp(`pid ${server.pid}`));
  t.is((await cli({}, 'restore')).code, 2);
  t.is((await cli({}, 'backup', '--force')).code, 2);
});
