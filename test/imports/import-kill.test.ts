import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childProcesses, exited, startServerProcess, type ServerProcess } from '../helpers/child-processes.js';
import { eventually } from '../helpers/eventually.js';
import { postImport } from './import-helpers.js';

/**
 * A hard kill (SIGKILL) of the real server in the middle of an import: every batch the import
 * reported as processed is in the database, and the next process on the same data dir takes the
 * import up where its last batch committed and finishes it, without a duplicate. A re-run of the
 * same file then changes nothing.
 */
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-import-kill-'));
const track = childProcesses(test);
const admin = { clientId: 'pk_live_importkilladmin', clientSecret: 'sk_live_importkilladminsecret-0123456789abcdef012' } as const;
const children: ChildProcess[] = [];

test.after.always(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
  rmSync(scratch, { recursive: true, force: true });
});

async function startServer(dataDir: string): Promise<ServerProcess> {
  const server = await startServerProcess(track, {
    PETCARE_DATA_DIR: dataDir,
    PETCARE_ADMIN_CLIENT_ID: admin.clientId,
    PETCARE_ADMIN_CLIENT_SECRET: admin.clientSecret,
    PETCARE_JOB_POLL_MS: '50',
  });
  children.push(server.child);
  return server;
}

async function call(url: string, method: string, pathname: string, token?: string, body?: unknown): Promise<any> {
  const res = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${pathname} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

const tokenOf = async (url: string) =>
  String(
    (await call(url, 'POST', '/oauth/token', undefined, { grant_type: 'client_credentials', client_id: admin.clientId, client_secret: admin.clientSecret }))
      .access_token,
  );

test.serial('kill -9 mid-import: what was reported imported stays, the next start finishes the rest, a re-run changes nothing', async (t) => {
  t.timeout(300_000);
  const dataDir = path.join(scratch, 'data');
  const rows = 60_000;
  const csv = `externalId,name,email\n${Array.from({ length: rows }, (_, i) => `K-${i},Parent ${i},p${i}@example.com`).join('\n')}\n`;

  const first = await startServer(dataDir);
  let token = await tokenOf(first.url);
  const location = await call(first.url, 'POST', '/v1/locations', token, { name: 'Kill clinic', timezone: 'Europe/London' });
  const posted = await postImport(first.url, token, csv, { type: 'pet-parents', locationId: location.id });
  t.is(posted.status, 202, JSON.stringify(posted.body));
  const id = posted.body.id as string;

  // Some batches in, not all: then a hard kill.
  const seen = await eventually(
    async () => {
      const current = await call(first.url, 'GET', `/v1/imports/${id}`, token);
      return current.processed > 0 ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 10, what: 'the first batches' },
  );
  first.child.kill('SIGKILL');
  await exited(first.child);
  t.true(seen.processed < rows, `killed mid-import (processed ${seen.processed} of ${rows})`);

  const second = await startServer(dataDir);
  token = await tokenOf(second.url);
  // Nothing reported imported was lost: those rows are there at once, before the resumed run ends.
  const last = `K-${seen.processed - 1}`;
  t.is((await call(second.url, 'GET', `/v1/pet-parents?externalId=${last}`, token)).data.length, 1);

  const done = await eventually(
    async () => {
      const current = await call(second.url, 'GET', `/v1/imports/${id}`, token);
      return current.status === 'done' ? current : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100, what: 'the resumed import to finish' },
  );
  t.like(done, { total: rows, processed: rows, failed: 0 });
  t.is(done.created + done.skipped + done.updated, rows);
  t.is((await call(second.url, 'GET', `/v1/pet-parents?externalId=K-${rows - 1}`, token)).data.length, 1);

  // The same file again: every row is there already and unchanged.
  const again = await postImport(second.url, token, csv, { type: 'pet-parents', locationId: location.id });
  const rerun = await eventually(
    async () => {
      const current = await call(second.url, 'GET', `/v1/imports/${again.body.id}`, token);
      return current.status === 'done' ? current : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100, what: 'the re-run to finish' },
  );
  t.like(rerun, { total: rows, created: 0, updated: 0, skipped: rows, failed: 0 });
});
