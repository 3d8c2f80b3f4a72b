import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import { lockDataDir } from '../../src/data-dir.js';
import {
  ArchiveError,
  createArchive,
  finishInterruptedRestore,
  notArchived,
  readArchive,
  restoreArchive,
  verifyArchive,
} from '../../src/modules/backups/index.js';
import { parseBackupKey } from '../../src/modules/backups/archive-encryption.js';
import { form, fixture, indexed, service } from '../ai/ai-support.js';
import { download, makePdf, upload } from '../documents/document-helpers.js';
import { createHousehold, createLocation } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp } from '../helpers/test-app.js';
import { childProcesses } from '../helpers/child-processes.js';

/** A whole-appliance backup that a clinic can bet on: everything in the data dir, encrypted, verified before any restore, restored in place. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-backup-test-'));
const track = childProcesses(test);
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

const backupKey = randomBytes(32).toString('base64');
const archiveOf = (dataDir: string, backupDir = path.join(dataDir, 'backups'), key?: string) =>
  createArchive({ dataDir, backupDir, now: Date.now(), platformVersion: 'test', keep: 3, key });

/** Every entry of a folder, recursively, with each file's bytes: "exactly as it was" made checkable. */
function snapshotOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name));
    out[relative] = entry.isFile() ? readFileSync(path.join(dir, relative)).toString('base64') : 'folder';
  }
  return out;
}

/** An appliance with a pet, a document, a webhook endpoint and a token, backed up (in its own backups/, or encrypted); the original is gone. */
async function backedUpAppliance(options: { key?: string } = {}) {
  const app = await startTestApp({ jobs: false });
  try {
    const token = await app.adminToken();
    const { pet } = await createHousehold(app);
    const pdf = await makePdf(['Backed up']);
    const doc = await upload(app, pet.id, { token, file: { bytes: pdf, name: 'chart.pdf', type: 'application/pdf' } });
    const endpoint = await app.request('POST', '/v1/webhook-endpoints', { token, body: { url: 'http://10.0.0.5/hooks', events: ['*'] } });
    // Bytes that do not compress, so an encrypted archive spans several frames.
    mkdirSync(path.join(app.dataDir, 'attachments'));
    writeFileSync(path.join(app.dataDir, 'attachments', 'noise.bin'), randomBytes(200_000));
    const backupDir = mkdtempSync(path.join(scratch, 'backups-'));
    const { file, manifest, encrypted } = await createArchive({
      dataDir: app.dataDir,
      backupDir,
      now: Date.now(),
      platformVersion: 'test',
      keep: 3,
      key: options.key,
      unencrypted: !options.key,
    });
    return { token, petId: pet.id, documentId: doc.body.id as string, pdf, endpointId: endpoint.body.id as string, file, manifest, encrypted };
  } finally {
    await app.close();
  }
}

/** A data dir holding something else (the clinic's current data, say). */
function populatedDataDir(name: string): string {
  const dataDir = path.join(scratch, name);
  mkdirSync(path.join(dataDir, 'documents'), { recursive: true });
  writeFileSync(path.join(dataDir, 'live.sqlite'), 'the clinic data');
  writeFileSync(path.join(dataDir, 'documents', 'a.pdf'), 'a document');
  return dataDir;
}

interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The server as `npm start` runs it (src/main.ts), in a process of its own. */
function startServer(dataDir: string): ServerProcess {
  const child = track(
    spawn(process.execPath, ['--import=tsx', path.join(root, 'src/main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PETCARE_DATA_DIR: dataDir, PETCARE_LOG_LEVEL: 'info' },
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function listening(server: ServerProcess): Promise<void> {
  await eventually(
    () => {
      if (server.child.exitCode !== null) throw new Error(`exited before listening: ${server.output()}`);
      return server.output().includes('"msg":"listening"');
    },
    { timeoutMs: 60_000, what: () => `the listening line: ${server.output()}` },
  );
}

test('restore into a fresh data dir: the pet, the document bytes, the webhook endpoint and a token issued before the backup all work', async (t) => {
  const before = await backedUpAppliance();
  t.is((statSync(before.file).mode & 0o777).toString(8), '600', 'the archive is readable by the appliance user only');
  t.is(before.manifest.format, 'petcare-backup/2');
  t.truthy(before.manifest.schemaVersion);
  t.true(before.manifest.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256)));

  const dataDir = path.join(scratch, 'fresh-restore');
  const manifest = await restoreArchive({ archive: before.file, dataDir, force: false, now: Date.now() });
  t.deepEqual(manifest.environments, ['live', 'sandbox']);
  t.false(existsSync(path.join(dataDir, 'manifest.json')));
  t.deepEqual(
    readdirSync(dataDir).filter((name) => name.startsWith('.restore')),
    [],
    'no staging left inside',
  );

  const app = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => app.close());
  const pet = await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token });
  t.is(pet.status, 200, 'the token issued before the backup verifies: the signing key came back');
  const bytes = await download(app, before.documentId, before.token);
  t.is(bytes.status, 200);
  t.true(bytes.bytes.equals(before.pdf));
  const endpoint = await app.request('GET', `/v1/webhook-endpoints/${before.endpointId}`, { token: before.token });
  t.is(endpoint.status, 200, 'its secret is readable again: the data key came back');
});

test('a corrupted, truncated or tampered archive is refused and the data dir is left exactly as it was', async (t) => {
  const before = await backedUpAppliance();
  const dataDir = populatedDataDir('populated');
  const original = snapshotOf(dataDir);

  // Truncated: not a readable archive at all; cut near its end: gzip's own check.
  const bytes = readFileSync(before.file);
  for (const [name, cut] of [
    ['head.tar.gz', bytes.subarray(0, 200)],
    ['tail.tar.gz', bytes.subarray(0, bytes.length - 20)],
  ] as const) {
    const file = path.join(scratch, name);
    writeFileSync(file, cut);
    await t.throwsAsync(verifyArchive(file), { instanceOf: ArchiveError });
    await t.throwsAsync(restoreArchive({ archive: file, dataDir, force: true, now: Date.now() }), { instanceOf: ArchiveError });
  }

  // Tampered: a valid tar whose document no longer matches its sha256.
  const unpacked = mkdtempSync(path.join(scratch, 'tamper-'));
  await tar.extract({ file: before.file, cwd: unpacked });
  const docFile = readdirSync(path.join(unpacked, 'documents', 'live'))[0]!;
  writeFileSync(path.join(unpacked, 'documents', 'live', docFile), 'not the chart');
  const tampered = path.join(scratch, 'tampered.tar.gz');
  await tar.create({ gzip: true, file: tampered, cwd: unpacked }, readdirSync(unpacked));
  await t.throwsAsync(verifyArchive(tampered), { instanceOf: ArchiveError, message: /does not match its sha256/ });
  await t.throwsAsync(restoreArchive({ archive: tampered, dataDir, force: true, now: Date.now() }), { message: /does not match its sha256/ });

  // An entry a backup never writes (a link out of the data dir): refused before the swap.
  const withLink = mkdtempSync(path.join(scratch, 'link-'));
  await tar.extract({ file: before.file, cwd: withLink });
  const { symlinkSync } = await import('node:fs');
  symlinkSync('/etc/passwd', path.join(withLink, 'documents', 'passwd'));
  const linked = path.join(scratch, 'linked.tar.gz');
  await tar.create({ gzip: true, file: linked, cwd: withLink }, readdirSync(withLink));
  await t.throwsAsync(restoreArchive({ archive: linked, dataDir, force: true, now: Date.now() }), { message: /never writes: .*passwd/ });

  t.deepEqual(snapshotOf(dataDir), { ...original, 'appliance.lock': snapshotOf(dataDir)['appliance.lock']! }, 'nothing but the lock file changed');
  t.deepEqual(
    readdirSync(dataDir).filter((name) => name.startsWith('.')),
    [],
    'no staging folder left behind',
  );
});

test('restore replaces the contents of the data dir in place: the folder itself (a mount point) is never renamed, staging happens inside it, backups/ is kept, --force is needed', async (t) => {
  const before = await backedUpAppliance();
  const parent = mkdtempSync(path.join(scratch, 'mount-parent-'));
  const dataDir = path.join(parent, 'data');
  mkdirSync(path.join(dataDir, 'backups'), { recursive: true });
  writeFileSync(path.join(dataDir, 'live.sqlite'), 'old data');
  writeFileSync(path.join(dataDir, 'stale-file'), 'only in the old data dir');
  writeFileSync(path.join(dataDir, 'backups', 'petcare-older.tar.gz'), 'an older archive');
  await t.throwsAsync(restoreArchive({ archive: before.file, dataDir, force: false, now: Date.now() }), { message: /already holds data.*--force/ });
  t.is(readFileSync(path.join(dataDir, 'live.sqlite'), 'utf8'), 'old data');

  const inode = statSync(dataDir).ino;
  await restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now() });
  t.is(statSync(dataDir).ino, inode, 'the same folder: its contents were replaced, it was not renamed');
  t.deepEqual(readdirSync(parent), ['data'], 'nothing was created beside the data dir');
  t.is(readFileSync(path.join(dataDir, 'live.sqlite')).subarray(0, 15).toString(), 'SQLite format 3');
  t.false(existsSync(path.join(dataDir, 'stale-file')), 'what the archive does not hold is gone');
  t.is(readFileSync(path.join(dataDir, 'backups', 'petcare-older.tar.gz'), 'utf8'), 'an older archive');
  t.deepEqual(
    readdirSync(dataDir).filter((name) => name.startsWith('.')),
    [],
  );
});

test('restore is refused while a server process runs on the data dir (its lock, not its pid), and goes ahead once the process is gone', async (t) => {
  const before = await backedUpAppliance();
  const dataDir = path.join(scratch, 'served');
  const server = startServer(dataDir);
  t.teardown(() => server.child.kill('SIGKILL'));
  await listening(server);
  const original = snapshotOf(dataDir);
  const refused = await t.throwsAsync(restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now() }), { instanceOf: ArchiveError });
  t.regex(
    refused.message,
    /is in use by an appliance process \(pid \d+ on host .+, since .+\), which holds .*appliance\.lock; stop every appliance using this data dir/,
  );
  t.deepEqual(Object.keys(snapshotOf(dataDir)).sort(), Object.keys(original).sort(), 'nothing swapped under the server');

  // A hard kill: the kernel releases the lock with the process; nothing stale to judge.
  server.child.kill('SIGKILL');
  await server.exited;
  await restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now() });
  const app = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => app.close());
  t.is((await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token })).status, 200);
});

test('a server refuses to start (exit 78, one line) while a restore holds the data dir', async (t) => {
  const dataDir = path.join(scratch, 'being-restored');
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir, 'restore');
  t.teardown(() => lock.release());
  const server = startServer(dataDir);
  t.is(await server.exited, 78);
  t.regex(server.output().trim(), /^petcare: \S+ is in use by a restore \(pid \d+ on host .+\), which holds \S+appliance\.lock$/);
  lock.release();
  const again = startServer(dataDir);
  t.teardown(() => again.child.kill('SIGKILL'));
  await listening(again);
  t.pass('it starts once the restore is over');
});

test('an archive of the previous format (petcare-backup/1: manifest first, databases, documents/ and keys/) still verifies and restores', async (t) => {
  const before = await backedUpAppliance();
  const unpacked = mkdtempSync(path.join(scratch, 'format-1-'));
  await tar.extract({ file: before.file, cwd: unpacked });
  rmSync(path.join(unpacked, 'attachments'), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
  const files = manifest.files.filter((f: { path: string }) => !f.path.startsWith('attachments/'));
  writeFileSync(
    path.join(unpacked, 'manifest.json'),
    JSON.stringify({
      format: 'petcare-backup/1',
      createdAt: manifest.createdAt,
      platformVersion: 'older',
      schemaVersion: manifest.schemaVersion,
      environments: manifest.environments,
      files,
    }),
  );
  const older = path.join(scratch, 'petcare-format-1.tar.gz');
  // As the previous release wrote it: node-tar, portable, the manifest first.
  await tar.create({ gzip: true, file: older, cwd: unpacked, portable: true }, ['manifest.json', ...files.map((f: { path: string }) => f.path)]);
  t.is((await verifyArchive(older)).format, 'petcare-backup/1');
  const dataDir = path.join(scratch, 'restored-format-1');
  await restoreArchive({ archive: older, dataDir, force: false, now: Date.now() });
  const app = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => app.close());
  t.is((await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token })).status, 200);
  t.true((await download(app, before.documentId, before.token)).bytes.equals(before.pdf));
});

test('a restore stopped in the middle of its swap is finished by the next start (or the next restore): the verified new contents, nothing of the old', async (t) => {
  const before = await backedUpAppliance();
  /** The state a power cut leaves: the archive verified into staging, the journal written, some entries moved. */
  async function interrupted(name: string, phase: 'out' | 'in'): Promise<string> {
    const dataDir = populatedDataDir(name);
    const staging = path.join(dataDir, '.restore-staging-cut');
    mkdirSync(path.join(staging, 'new'), { recursive: true });
    mkdirSync(path.join(staging, 'old'));
    await readArchive(before.file, { into: path.join(staging, 'new') });
    writeFileSync(
      path.join(dataDir, '.restore-in-progress'),
      JSON.stringify({ staging: '.restore-staging-cut', phase, keep: [], archive: before.file, startedAt: new Date().toISOString() }),
    );
    renameSync(path.join(dataDir, 'documents'), path.join(staging, 'old', 'documents'));
    if (phase === 'in') {
      renameSync(path.join(dataDir, 'live.sqlite'), path.join(staging, 'old', 'live.sqlite'));
      renameSync(path.join(staging, 'new', 'live.sqlite'), path.join(dataDir, 'live.sqlite'));
    }
    return dataDir;
  }

  // Moving the old entries out: the next start of the server finishes, and says so.
  const cutOut = await interrupted('cut-moving-out', 'out');
  const server = startServer(cutOut);
  t.teardown(() => server.child.kill('SIGKILL'));
  await listening(server);
  t.regex(server.output(), /finished the restore of .* that had stopped while swapping/);
  server.child.kill('SIGTERM');
  t.is(await server.exited, 0);

  // Moving the new ones in: the same, by the function the server and a restore call.
  const cutIn = await interrupted('cut-moving-in', 'in');
  t.regex((await finishInterruptedRestore(cutIn)) ?? '', /finished the restore/);

  for (const dataDir of [cutOut, cutIn]) {
    t.false(existsSync(path.join(dataDir, '.restore-in-progress')));
    t.deepEqual(
      readdirSync(dataDir).filter((name) => name.startsWith('.restore')),
      [],
    );
    t.false(existsSync(path.join(dataDir, 'documents', 'a.pdf')), 'the old data is gone');
    const app = await startTestApp({ dataDir, jobs: false });
    t.teardown(() => app.close({ keepData: true }));
    t.is((await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token })).status, 200);
    t.is((await download(app, before.documentId, before.token)).status, 200);
    await app.close({ keepData: true });
  }
});

test('a backup completes while the API keeps writing, and restores to a consistent database', async (t) => {
  const app = await startTestApp({ jobs: false });
  const token = await app.adminToken();
  const { pet } = await createHousehold(app);
  // Some bulk, so the copy spans many of the API's writes.
  const live = app.stores.get('live').sqlite;
  const fill = live.prepare(
    "insert into audit_events (id, tenant_id, request_id, occurred_at, client_id, role, ip, method, route, path, resource_id, status, latency_ms) values (?, null, ?, '2026-01-01T00:00:00Z', null, null, '127.0.0.1', 'GET', '/x', ?, null, 200, 1)",
  );
  live.transaction(() => {
    for (let i = 0; i < 100_000; i++) fill.run(`aud_fill${i}`, `req_${i}`, `/v1/pets/${i}/${'x'.repeat(60)}`);
  })();

  let writing = true;
  let written = 0;
  const writes = (async () => {
    while (writing) {
      const res = await app.request('POST', '/v1/pet-parents', { token, body: { locationId: pet.locationId, name: `Owner ${written}` } });
      if (res.status !== 201) throw new Error(`write failed: ${res.status} ${res.text}`);
      written++;
    }
  })();
  const before = written;
  const { file } = await archiveOf(app.dataDir);
  const during = written - before;
  writing = false;
  await writes;
  t.true(during > 0, 'the API kept writing while the backup ran');

  const parentsAfter = Number((live.prepare('select count(*) as n from pet_parents').get() as { n: number }).n);
  await app.close({ keepData: true });
  t.teardown(() => rmSync(app.dataDir, { recursive: true, force: true }));
  const dataDir = path.join(scratch, 'restored-under-writes');
  await restoreArchive({ archive: file, dataDir, force: false, now: Date.now() });
  const restored = new SQLite(path.join(dataDir, 'live.sqlite'), { readonly: true });
  t.teardown(() => restored.close());
  t.is(restored.pragma('integrity_check', { simple: true }), 'ok');
  t.deepEqual(restored.pragma('foreign_key_check'), []);
  const parents = Number((restored.prepare('select count(*) as n from pet_parents').get() as { n: number }).n);
  t.true(parents >= 1 + before && parents <= parentsAfter, `a snapshot from within the backup (${parents} of ${parentsAfter} owners)`);
  t.is(Number((restored.prepare('select count(*) as n from audit_events where id like ?').get('aud_fill%') as { n: number }).n), 100_000);
});

test('every file of the data dir is in the archive but the documented exclusions: a folder a new module adds is backed up with no change to the backup', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  mkdirSync(path.join(app.dataDir, 'a-new-module', 'nested'), { recursive: true });
  writeFileSync(path.join(app.dataDir, 'a-new-module', 'nested', 'state.bin'), 'kept');
  writeFileSync(path.join(app.dataDir, 'top-level-file.json'), '{}');
  mkdirSync(path.join(app.dataDir, 'backups'), { recursive: true });
  writeFileSync(path.join(app.dataDir, 'backups', 'petcare-older.tar.gz'), 'an archive is never archived');
  const { manifest } = await archiveOf(app.dataDir);
  const archived = manifest.files.map((f) => f.path);
  t.true(archived.includes('a-new-module/nested/state.bin'));
  t.true(archived.includes('top-level-file.json'));

  // Whatever the appliance put in its data dir is there, unless named in notArchived (or SQLite's own -wal/-shm).
  const expected = readdirSync(app.dataDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(app.dataDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !Object.hasOwn(notArchived, file.split('/')[0]!) && !/-(wal|shm)$/.test(file))
    .sort();
  t.deepEqual([...archived].sort(), expected);
  t.deepEqual(manifest.databases, ['live.sqlite', 'sandbox.sqlite']);
});

test('a knowledge document uploaded as a file is still readable and indexed after backup and restore', async (t) => {
  const app = await startTestApp();
  const token = await app.adminToken();
  const location = await createLocation(app, { name: 'Downtown' });
  const svc = await service(app, token, { name: 'Protocols', locationIds: [location.id] });
  const doc = await indexed(app, token, svc.id, form(fixture('boarding-policy.md'), 'boarding-policy.md', 'text/markdown', 'Boarding policy'));
  const { file, manifest } = await archiveOf(app.dataDir);
  t.true(
    manifest.files.some((f) => f.path.startsWith('knowledge/')),
    'knowledge/ is in the archive',
  );
  await app.close({ keepData: true });
  t.teardown(() => rmSync(app.dataDir, { recursive: true, force: true }));

  const dataDir = path.join(scratch, 'restored-knowledge');
  await restoreArchive({ archive: file, dataDir, force: false, now: Date.now() });
  const stored = manifest.files.find((f) => f.path.startsWith('knowledge/documents/live/'))!;
  t.true(readFileSync(path.join(dataDir, stored.path)).equals(fixture('boarding-policy.md')), 'the uploaded file came back byte for byte');
  const again = await startTestApp({ dataDir });
  t.teardown(() => again.close());
  // Re-indexing reads every stored file again: a missing one fails with "the stored file is missing".
  t.is((await again.request('POST', `/v1/ai/services/${svc.id}/reindex`, { token })).status, 202);
  const reindexed = await eventually(
    async () => {
      const got = await again.request('GET', `/v1/ai/services/${svc.id}/documents/${doc.id}`, { token });
      return got.body.status === 'indexed' || got.body.status === 'failed' ? got.body : null;
    },
    { timeoutMs: 15_000, what: 'the document re-indexed' },
  );
  t.is(reindexed.status, 'indexed', String(reindexed.error));
  const answer = await again.request('POST', `/v1/ai/services/${svc.id}/query`, {
    token,
    body: { question: 'May owners bring their own food for their pet when boarding?' },
  });
  t.is(answer.status, 200, answer.text);
  t.true(answer.body.citations.some((c: { documentId: string }) => c.documentId === doc.id));
});

test('with PETCARE_BACKUP_KEY an archive is encrypted and authenticated: no key, a wrong key, a changed byte or a cut archive are refused with nothing changed; the key restores it and pre-backup tokens stay valid', async (t) => {
  const before = await backedUpAppliance({ key: backupKey });
  t.true(before.encrypted);
  t.true(before.file.endsWith('.tar.gz.enc'));
  const bytes = readFileSync(before.file);
  t.is(bytes.subarray(0, 8).toString(), 'PCBKENC1');
  t.false(bytes.includes(Buffer.from('BEGIN PRIVATE KEY')) || bytes.includes(Buffer.from('signing-keys')), 'neither the keys nor the file names show');

  const dataDir = populatedDataDir('encrypted-target');
  const original = snapshotOf(dataDir);
  const refusals: [string, Buffer, string | undefined, RegExp][] = [
    ['no-key.enc', bytes, undefined, /is encrypted: set PETCARE_BACKUP_KEY or PETCARE_BACKUP_KEY_FILE/],
    ['wrong-key.enc', bytes, randomBytes(32).toString('hex'), /encrypted with another key/],
    ['flipped.enc', Buffer.from(bytes.map((b, i) => (i === Math.floor(bytes.length / 2) ? b ^ 1 : b))), backupKey, /failed authentication at frame \d+/],
    ['cut-frame.enc', bytes.subarray(0, bytes.length - 100), backupKey, /truncated/],
    ['cut-at-frame.enc', bytes.subarray(0, 32 + 4 + 64 * 1024 + 16), backupKey, /truncated \(it ends before its final frame\)/],
    ['appended.enc', Buffer.concat([bytes, Buffer.from('x')]), backupKey, /bytes after its final frame/],
  ];
  for (const [name, content, key, message] of refusals) {
    const file = path.join(scratch, name);
    writeFileSync(file, content);
    await t.throwsAsync(verifyArchive(file, { key }), { instanceOf: ArchiveError, message }, name);
    await t.throwsAsync(restoreArchive({ archive: file, dataDir, force: true, now: Date.now(), key }), { instanceOf: ArchiveError, message }, name);
  }
  t.deepEqual(snapshotOf(dataDir), { ...original, 'appliance.lock': snapshotOf(dataDir)['appliance.lock']! }, 'the data dir is as it was');

  const { manifest, encrypted } = await readArchive(before.file, { key: backupKey });
  t.true(encrypted);
  t.is(manifest.files.length, before.manifest.files.length);
  await restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now(), key: backupKey });
  const app = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => app.close());
  t.is((await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token })).status, 200, 'a token issued before the backup is valid');
  t.is((await app.request('GET', `/v1/webhook-endpoints/${before.endpointId}`, { token: before.token })).status, 200);
});

test('an unencrypted archive is refused outside the data dir (saying why) unless asked for; inside the data dir it is allowed', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const elsewhere = path.join(scratch, 'second-disk');
  const refused = await t.throwsAsync(createArchive({ dataDir: app.dataDir, backupDir: elsewhere, now: Date.now(), platformVersion: 'test', keep: 3 }), {
    instanceOf: ArchiveError,
  });
  t.regex(
    refused.message,
    /refusing to write an unencrypted archive: an archive holds the token signing key and the data key.*PETCARE_BACKUP_KEY.*--unencrypted/,
  );
  t.false(existsSync(elsewhere) && readdirSync(elsewhere).length > 0, 'nothing written');
  t.deepEqual(
    readdirSync(app.dataDir).filter((name) => name.startsWith('.')),
    [],
    'no staging left in the data dir',
  );

  const asked = await createArchive({ dataDir: app.dataDir, backupDir: elsewhere, now: Date.now(), platformVersion: 'test', keep: 3, unencrypted: true });
  t.false(asked.encrypted);
  t.regex(asked.warning ?? '', /outside the data dir/);
  const inside = await archiveOf(app.dataDir);
  t.is(inside.warning, null);
  const encrypted = await createArchive({ dataDir: app.dataDir, backupDir: elsewhere, now: Date.now() + 1, platformVersion: 'test', keep: 3, key: backupKey });
  t.true(encrypted.encrypted);
  t.is(encrypted.warning, null);
});

test('only the newest archives are kept, plain and encrypted alike', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const backupDir = path.join(app.dataDir, 'backups');
  for (let i = 0; i < 5; i++) {
    await createArchive({
      dataDir: app.dataDir,
      backupDir,
      now: Date.parse('2026-11-01T00:00:00Z') + i * 1000,
      platformVersion: 'test',
      keep: 3,
      key: i % 2 ? backupKey : undefined,
    });
  }
  const kept = readdirSync(backupDir).sort();
  t.deepEqual(kept, ['petcare-2026-11-01T00-00-02-000Z.tar.gz', 'petcare-2026-11-01T00-00-03-000Z.tar.gz.enc', 'petcare-2026-11-01T00-00-04-000Z.tar.gz']);
});

test('PETCARE_BACKUP_KEY is 32 random bytes as base64 or hex; anything else is refused with how to make one', (t) => {
  const key = randomBytes(32);
  t.true(parseBackupKey(key.toString('base64'))!.equals(key));
  t.true(parseBackupKey(`${key.toString('hex')}\n`)!.equals(key));
  t.true(parseBackupKey(key.toString('base64url'))!.equals(key));
  t.is(parseBackupKey(undefined), null);
  t.throws(() => parseBackupKey('correct horse battery staple'), { message: /32 random bytes.*openssl rand -base64 32/ });
  t.throws(() => parseBackupKey(randomBytes(16).toString('base64')), { message: /32 random bytes/ });
});
