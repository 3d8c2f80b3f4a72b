import test from 'ava';
import { newWriteTurns, grantTurns } from '../../src/db/write-turns.js';
import { chunkPages, textPages } from '../../src/modules/ai/knowledge-text.js';
import { eventually } from '../helpers/eventually.js';
import { useTestApp } from '../helpers/test-app.js';
import { form } from './ai-support.js';

/**
 * Issue 27.4: a document of a service without embeddings is chunked and written by the indexing
 * worker through a connection of its own, in short turns the main thread grants. The rows are the
 * ones the inline path wrote, in the document's own environment; a document a stop left half
 * written is indexed again from the start; API writes during the indexing all succeed.
 */

const t = useTestApp(test);

/** ~150 KB of sentences over three pages: a few hundred chunks, so many turns. */
const text = [1, 2, 3]
  .map((page) =>
    Array.from(
      { length: 600 },
      (_, i) => `Rule ${page}.${i} says the dose of ${i % 2 ? 'rabies' : 'kennel'} vaccine is checked twice.${i % 6 === 5 ? '\n\n' : ' '}`,
    ).join(''),
  )
  .join('\f');
const expected = chunkPages(textPages(text));

async function upload(env: 'live' | 'sandbox', title: string) {
  const token = await t.adminToken(env);
  const svc = await t.request('POST', '/v1/ai/services', { token, body: { name: `Worker ${title}` } });
  if (svc.status !== 201) throw new Error(`service: ${svc.status} ${svc.text}`);
  const res = await t.request('POST', `/v1/ai/services/${svc.body.id}/documents`, { token, ...form(Buffer.from(text), `${title}.txt`, 'text/plain', title) });
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${res.text}`);
  return { token, serviceId: svc.body.id as string, id: res.body.id as string };
}

const settled = (token: string, serviceId: string, id: string) =>
  eventually(
    async () => {
      const res = await t.request('GET', `/v1/ai/services/${serviceId}/documents/${id}`, { token });
      return res.body.status === 'indexed' || res.body.status === 'failed' ? res.body : null;
    },
    { timeoutMs: 60_000, what: `document ${id} to be indexed` },
  );

const chunkRows = (env: 'live' | 'sandbox', id: string) =>
  t.stores
    .get(env)
    .sqlite.prepare('select tenant_id, service_id, position, page, text from ai_chunks where document_id = ? order by position')
    .all(id) as Array<{ tenant_id: string; service_id: string; position: number; page: number; text: string }>;

test('the worker writes the chunks the inline chunker cuts, with the tenant, in the environment of the upload only, and search finds them', async (a) => {
  const doc = await upload('sandbox', 'sandbox-manual');
  const done = await settled(doc.token, doc.serviceId, doc.id);
  a.is(done.status, 'indexed', String(done.error));
  a.is(done.pages, 3);
  a.is(done.chunks, expected.length);
  a.is(done.progress, 1);
  const rows = chunkRows('sandbox', doc.id);
  a.deepEqual(
    rows.map((r) => ({ position: r.position, page: r.page, text: r.text })),
    expected,
  );
  a.true(rows.every((r) => r.tenant_id === t.tenantId && r.service_id === doc.serviceId));
  a.deepEqual(chunkRows('live', doc.id), []);
  const matched = t.stores
    .get('sandbox')
    .sqlite.prepare(
      "select count(*) as n from ai_chunks_fts join ai_chunks c on c.seq = ai_chunks_fts.rowid where ai_chunks_fts match 'rabies' and c.document_id = ?",
    )
    .get(doc.id) as { n: number };
  a.is(matched.n, expected.filter((c) => c.text.includes('rabies')).length);
});

test('a document a stop left half written is indexed again from the start, without duplicates', async (a) => {
  const doc = await upload('live', 'restarted');
  a.is((await settled(doc.token, doc.serviceId, doc.id)).status, 'indexed');
  // As a stop mid-document leaves it: still extracting, part of its chunks written.
  const live = t.stores.get('live').sqlite;
  live.prepare('delete from ai_chunks where document_id = ? and position >= 40').run(doc.id);
  live.prepare("update ai_documents set status = 'extracting', chunks = 40 where id = ?").run(doc.id);
  const run = await t.request('POST', '/v1/jobs/ai-indexing/run', { token: doc.token, body: { wait: true } });
  a.is(run.status, 200, run.text);
  const done = await settled(doc.token, doc.serviceId, doc.id);
  a.is(done.status, 'indexed', String(done.error));
  a.is(done.chunks, expected.length);
  a.deepEqual(
    chunkRows('live', doc.id).map((r) => ({ position: r.position, page: r.page, text: r.text })),
    expected,
  );
});

test('API writes made while the worker writes chunks all succeed (no SQLITE_BUSY reaches a client)', async (a) => {
  const doc = await upload('live', 'busy');
  const statuses: number[] = [];
  let indexing = true;
  const writer = (async () => {
    while (indexing) {
      const res = await t.request('POST', '/v1/ai/services', { token: doc.token, body: { name: `During ${statuses.length}` } });
      statuses.push(res.status);
    }
  })();
  const done = await settled(doc.token, doc.serviceId, doc.id).finally(() => (indexing = false));
  await writer;
  a.is(done.status, 'indexed', String(done.error));
  a.true(statuses.length > 0);
  a.deepEqual(
    statuses.filter((s) => s !== 201),
    [],
  );
});

test('a worker that dies during its turn does not leave the connection held', async (a) => {
  const turns = newWriteTurns();
  let fail!: (err: Error) => void;
  const task = new Promise<never>((_, reject) => (fail = reject));
  task.catch(() => undefined);
  let held = 0;
  let released = 0;
  const granting = grantTurns(
    turns,
    task,
    async (during) => {
      held++;
      try {
        await during();
      } finally {
        released++;
      }
    },
    1,
  );
  // The worker asks for a turn (as inTurn does) and dies once it is granted.
  Atomics.store(turns, 0, 1);
  Atomics.notify(turns, 0);
  await eventually(async () => (Atomics.load(turns, 0) === 2 ? true : null), { timeoutMs: 5000, what: 'the turn granted' });
  a.is(held, 1);
  fail(new Error('the worker thread stopped before answering'));
  await granting;
  a.is(released, 1);
});
