import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { lockFile } from '../../src/data-dir.js';
import { ArchiveError, createArchive, restoreArchive, verifyArchive } from '../../src/modules/backups/index.js';
import { download, makePdf, upload } from '../documents/document-helpers.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

/** A whole-appliance backup that a clinic can bet on: databases, documents and keys, verified before any restore. */
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-backup-test-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

const archiveOf = (dataDir: string, backupDir: string) =>
  createArchive({ dataDir, backupDir, now: Date.now(), platformVersion: 'test', keep: 3 });

/** An appliance with a pet, a document, a webhook endpoint and a token, backed up; the original is gone. */
async function backedUpAppliance() {
  const app = await startTestApp({ jobs: false });
  const token = await app.adminToken();
  const { pet } = await createHousehold(app);
  const pdf = await makePdf(['Backed up']);
  const doc = await upload(app, pet.id, { token, file: { bytes: pdf, name: 'chart.pdf', type: 'application/pdf' } });
  const endpoint = await app.request('POST', '/v1/webhook-endpoints', { token, body: { url: 'http://10.0.0.5/hooks', events: ['*'] } });
  const backupDir = mkdtempSync(path.join(scratch, 'backups-'));
  const { file, manifest } = await archiveOf(app.dataDir, backupDir);
  await app.close();
  return { token, petId: pet.id, documentId: doc.body.id as string, pdf, endpointId: endpoint.body.id as string, file, manifest };
}

test('restore into a fresh data dir: the pet, the document bytes, the webhook endpoint and a token issued before the backup all work', async (t) => {
  const before = await backedUpAppliance();
  t.is((statSync(before.file).mode & 0o777).toString(8), '600', 'the archive is readable by the appliance user only');
  t.truthy(before.manifest.schemaVersion);
  t.true(before.manifest.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256)));

  const dataDir = path.join(scratch, 'fresh-restore');
  const manifest = await restoreArchive({ archive: before.file, dataDir, force: false, now: Date.now() });
  t.deepEqual(manifest.environments, ['live', 'sandbox']);
  t.false(existsSync(path.join(dataDir, 'manifest.json')));

  const app = await startTestApp({ dataDir, jobs: false });
  t.teardown(() => app.close());
  const pet = await app.request('GET', `/v1/pets/${before.petId}`, { token: before.token });
  t.is(pet.status, 200, 'the token issued before the backup verifies: the signing key came back');
  const bytes = await download(app, before.documentId, before.token);
  t.is(bytes.status, 200);
  t.true(bytes.bytes.equals(before.pdf));
  const endpoint = await app.request('GET', `/v1/webhook-endpoints/${before.endpointId}`, { token: before.token });
  t.is(endpoint.status, 200);
});

test('a corrupted or tampered archive is refused and the data dir is left exactly as it was', async (t) => {
  const before = await backedUpAppliance();
  const dataDir = path.join(scratch, 'populated');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'live.sqlite'), 'the clinic data');

  // Truncated: not a readable archive at all.
  const truncated = path.join(scratch, 'truncated.tar.gz');
  writeFileSync(truncated, readFileSync(before.file).subarray(0, 200));
  await t.throwsAsync(restoreArchive({ archive: truncated, dataDir, force: true, now: Date.now() }), { instanceOf: ArchiveError });

  // Tampered: a valid tar whose document no longer matches its sha256.
  const unpacked = mkdtempSync(path.join(scratch, 'tamper-'));
  await tar.extract({ file: before.file, cwd: unpacked });
  const docFile = readdirSync(path.join(unpacked, 'documents', 'live'))[0]!;
  writeFileSync(path.join(unpacked, 'documents', 'live', docFile), 'not the chart');
  const tampered = path.join(scratch, 'tampered.tar.gz');
  await tar.create({ gzip: true, file: tampered, cwd: unpacked }, readdirSync(unpacked));
  await t.throwsAsync(verifyArchive(tampered), { instanceOf: ArchiveError, message: /does not match its sha256/ });
  await t.throwsAsync(restoreArchive({ archive: tampered, dataDir, force: true, now: Date.now() }), { message: /does not match its sha256/ });

  t.deepEqual(readdirSync(dataDir), ['live.sqlite']);
  t.is(readFileSync(path.join(dataDir, 'live.sqlite'), 'utf8'), 'the clinic data');
  t.deepEqual(readdirSync(scratch).filter((name) => name.includes('-restore-')), [], 'no temporary folder left behind');
});

test('a populated data dir needs --force; a replaced one keeps its backups folder', async (t) => {
  const before = await backedUpAppliance();
  const dataDir = path.join(scratch, 'replace');
  mkdirSync(path.join(dataDir, 'backups'), { recursive: true });
  writeFileSync(path.join(dataDir, 'live.sqlite'), 'old data');
  writeFileSync(path.join(dataDir, 'backups', 'petcare-older.tar.gz'), 'an older archive');
  await t.throwsAsync(restoreArchive({ archive: before.file, dataDir, force: false, now: Date.now() }), { message: /already holds data.*--force/ });
  t.is(readFileSync(path.join(dataDir, 'live.sqlite'), 'utf8'), 'old data');

  await restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now() });
  t.not(readFileSync(path.join(dataDir, 'live.sqlite')).subarray(0, 15).toString(), 'old data');
  t.is(readFileSync(path.join(dataDir, 'backups', 'petcare-older.tar.gz'), 'utf8'), 'an older archive');
  t.deepEqual(readdirSync(scratch).filter((name) => name.startsWith('replace.replaced-')), []);
});

test('restore refuses while a server holds the data dir (its lock names a live process)', async (t) => {
  const before = await backedUpAppliance();
  const dataDir = path.join(scratch, 'locked');
  mkdirSync(dataDir, { recursive: true });
  const server = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.teardown(() => server.kill());
  writeFileSync(lockFile(dataDir), `${server.pid}\n`);
  await t.throwsAsync(restoreArchive({ archive: before.file, dataDir, force: true, now: Date.now() }), { message: new RegExp(`pid ${server.pid}.*stop it`) });
  t.deepEqual(readdirSync(dataDir), ['petcare.lock']);
});

test('only the newest archives are kept', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const backupDir = mkdtempSync(path.join(scratch, 'keep-'));
  for (let i = 0; i < 5; i++) await createArchive({ dataDir: app.dataDir, backupDir, now: Date.parse('2026-11-01T00:00:00Z') + i * 1000, platformVersion: 'test', keep: 3 });
  const kept = readdirSync(backupDir).sort();
  t.is(kept.length, 3);
  t.regex(kept[0]!, /2026-11-01T00-00-02/);
});
