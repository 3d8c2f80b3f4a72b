import test from 'ava';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lockDataDir } from '../../src/data-dir.js';
import { runCli } from '../helpers/cli-process.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

/** The operator's runbook, as the operator types it: backup, verify, restore. */
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-cli-backup-'));
chmodSync(scratch, 0o755);
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

const cli = (env: Record<string, string>, ...args: string[]) => runCli(args, env);

/** The key as a compose secret holds it: a file of its own, away from the archives. */
const keyFile = path.join(scratch, 'backup-key');
writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });

test('backup prints the archive path last (encrypted with the key file); verify checks it; restore brings the appliance back in a fresh data dir', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const { pet } = await createHousehold(app);
  const token = await app.adminToken();
  const backupDir = path.join(scratch, 'off-box');
  // While the server runs: databases copied with VACUUM INTO.
  const backup = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_DIR: backupDir, PETCARE_BACKUP_KEY_FILE: keyFile }, 'backup');
  await app.close();
  t.is(backup.code, 0, backup.stderr);
  t.regex(backup.stdout, /archived \d+ files \(schema \S+, encrypted\)/);
  const archive = backup.stdout.trim().split('\n').at(-1)!;
  t.is(path.dirname(archive), backupDir);
  t.true(archive.endsWith('.tar.gz.enc'));

  const verify = await cli({ PETCARE_BACKUP_KEY_FILE: keyFile }, 'backup', 'verify', archive);
  t.is(verify.code, 0, verify.stderr);
  t.regex(verify.stdout, /^ok: \d+ files match their sha256 .*encrypted, authenticated with PETCARE_BACKUP_KEY\)$/m);
  const noKey = await cli({}, 'backup', 'verify', archive);
  t.is(noKey.code, 1);
  t.regex(noKey.stderr.trim(), /^error: .* is encrypted: set PETCARE_BACKUP_KEY or PETCARE_BACKUP_KEY_FILE/);

  const dataDir = path.join(scratch, 'restored');
  const restore = await cli({ PETCARE_DATA_DIR: dataDir, PETCARE_BACKUP_KEY_FILE: keyFile }, 'restore', archive);
  t.is(restore.code, 0, restore.stderr);
  t.regex(restore.stdout, /^restored \d+ files/);
  const again = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => again.close());
  t.is((await again.request('GET', `/v1/pets/${pet.id}`, { token })).status, 200);

  // A populated dir without --force, and a corrupted archive: one line, exit 1, nothing changed.
  const populated = await cli({ PETCARE_DATA_DIR: dataDir, PETCARE_BACKUP_KEY_FILE: keyFile }, 'restore', archive);
  t.is(populated.code, 1);
  t.regex(populated.stderr.trim(), /^error: .*already holds data.*--force to replace it$/);
  const corrupt = path.join(scratch, 'corrupt.tar.gz.enc');
  writeFileSync(corrupt, readFileSync(archive).subarray(0, 300));
  const bad = await cli({ PETCARE_BACKUP_KEY_FILE: keyFile }, 'backup', 'verify', corrupt);
  t.is(bad.code, 1);
  t.is(bad.stderr.trim().split('\n').length, 1);
});

test('without a key an archive leaves the data dir only with --unencrypted, which says why; --out writes one archive where asked; a missing archive is "not found"', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const elsewhere = path.join(scratch, 'second-disk');
  const refused = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_DIR: elsewhere }, 'backup');
  t.is(refused.code, 1);
  t.regex(
    refused.stderr.trim(),
    /^error: refusing to write an unencrypted archive: an archive holds the token signing key and the data key.*PETCARE_BACKUP_KEY_FILE.*--unencrypted to write it anyway$/,
  );
  t.false(existsSync(elsewhere) && readdirSync(elsewhere).length > 0);

  const asked = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_DIR: elsewhere }, 'backup', '--unencrypted');
  t.is(asked.code, 0, asked.stderr);
  t.regex(asked.stderr, /^warning: --unencrypted: an archive holds the token signing key/);
  t.regex(asked.stdout, /not encrypted/);

  const inDataDir = await cli({ PETCARE_DATA_DIR: app.dataDir }, 'backup');
  t.is(inDataDir.code, 0, inDataDir.stderr);
  t.is(path.dirname(inDataDir.stdout.trim().split('\n').at(-1)!), path.join(app.dataDir, 'backups'));

  const out = path.join(scratch, 'usb-stick', 'clinic.tar.gz.enc');
  const copied = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_KEY_FILE: keyFile }, 'backup', '--out', out);
  t.is(copied.code, 0, copied.stderr);
  t.is(copied.stdout.trim().split('\n').at(-1), out);
  t.is((statSync(out).mode & 0o777).toString(8), '600');
  const again = await cli({ PETCARE_DATA_DIR: app.dataDir, PETCARE_BACKUP_KEY_FILE: keyFile }, 'backup', '--out', out);
  t.is(again.code, 1, 'an existing file is never overwritten');
  t.regex(again.stderr, /already exists/);

  const missing = await cli({}, 'backup', 'verify', path.join(scratch, 'nowhere.tar.gz'));
  t.is(missing.code, 1);
  t.regex(missing.stderr.trim(), /^error: \S+nowhere\.tar\.gz: not found$/);
  const missingRestore = await cli({ PETCARE_DATA_DIR: path.join(scratch, 'unused') }, 'restore', path.join(scratch, 'nowhere.tar.gz'));
  t.is(missingRestore.code, 1);
  t.regex(missingRestore.stderr, /not found/);
});

test('as the image user (uid 1000), restore replaces a data dir whose parent it cannot write, and verify works where it cannot write', async (t) => {
  const root = process.getuid?.() === 0;
  // From root, the CLI runs as uid 1000 as in the image; as any other user, the folders are made read-only to it.
  const as = root ? { uid: 1000, gid: 1000 } : {};
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const { pet } = await createHousehold(app);
  const token = await app.adminToken();
  const archive = (await cli({ PETCARE_DATA_DIR: app.dataDir }, 'backup')).stdout.trim().split('\n').at(-1)!;
  const readOnly = path.join(scratch, 'read-only-mount');
  mkdirSync(readOnly);
  const copy = path.join(readOnly, path.basename(archive));
  writeFileSync(copy, readFileSync(archive), { mode: 0o644 });
  await app.close();

  // `/` and `/data` in the container: a parent the user cannot write, a data dir it owns, with data in it.
  const parent = path.join(scratch, 'container-root');
  const dataDir = path.join(parent, 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'live.sqlite'), 'old data');
  if (root) {
    chownSync(dataDir, 1000, 1000);
    chownSync(path.join(dataDir, 'live.sqlite'), 1000, 1000);
  }
  chmodSync(parent, 0o555);
  chmodSync(readOnly, 0o555);
  t.teardown(() => {
    chmodSync(parent, 0o755);
    chmodSync(readOnly, 0o755);
  });

  const verify = await runCli(['backup', 'verify', copy], {}, as);
  t.is(verify.code, 0, verify.stderr);
  t.deepEqual(readdirSync(readOnly), [path.basename(archive)], 'verify wrote nothing');

  const restore = await runCli(['restore', copy, '--force'], { PETCARE_DATA_DIR: dataDir }, as);
  t.is(restore.code, 0, restore.stderr);
  t.deepEqual(readdirSync(parent), ['data']);
  if (root) t.is(statSync(path.join(dataDir, 'live.sqlite')).uid, 1000, 'restored by uid 1000');
  chmodSync(parent, 0o755);
  const restored = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => restored.close());
  t.is((await restored.request('GET', `/v1/pets/${pet.id}`, { token })).status, 200);
});

test('restore refuses while another process holds the data dir; usage mistakes are exit 2', async (t) => {
  const dataDir = path.join(scratch, 'held');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(scratch, 'any.tar.gz'), 'x');
  // This test's process holds the lock, as a server would; the CLI is another process.
  const lock = lockDataDir(dataDir, 'appliance');
  t.teardown(() => lock.release());
  const held = await cli({ PETCARE_DATA_DIR: dataDir }, 'restore', path.join(scratch, 'any.tar.gz'), '--force');
  t.is(held.code, 1);
  t.regex(
    held.stderr.trim(),
    /^error: \S+ is in use by an appliance process \(pid \d+ on host .+\), which holds \S+appliance\.lock; stop every appliance using this data dir \(each container on the volume\) before restoring$/,
  );
  t.is((await cli({}, 'restore')).code, 2);
  t.is((await cli({}, 'backup', '--force')).code, 2);
  t.is((await cli({}, 'backup', 'verify', 'a', '--unencrypted')).code, 2);
});

test('a lock file the user cannot write is refused with its path and the uid, never silently unlocked', async (t) => {
  const root = process.getuid?.() === 0;
  const as = root ? { uid: 1000, gid: 1000 } : {};
  const dataDir = path.join(scratch, 'foreign-lock');
  mkdirSync(dataDir, { recursive: true });
  if (root) chownSync(dataDir, 1000, 1000);
  // Left by a restore run as root, say: SQLite would open it read-only, where BEGIN IMMEDIATE locks nothing.
  writeFileSync(path.join(dataDir, 'appliance.lock'), '');
  chmodSync(path.join(dataDir, 'appliance.lock'), 0o444);
  writeFileSync(path.join(scratch, 'some.tar.gz'), 'x');
  const refused = await runCli(['restore', path.join(scratch, 'some.tar.gz'), '--force'], { PETCARE_DATA_DIR: dataDir }, as);
  t.is(refused.code, 1);
  t.regex(refused.stderr.trim(), /^error: cannot lock \S+appliance\.lock as uid \d+ \(SQLITE_READONLY: .*\); it must be writable by that user$/);
});
