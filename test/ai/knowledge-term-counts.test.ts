import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { indexed, service } from './ai-support.js';
import { compactSearchIndex } from '../../src/modules/ai/knowledge-indexing.js';

/**
 * The query path reuses its term statistics (how many chunks hold each question word) while the
 * knowledge index's change counter stands still: every chunk written or removed moves it, so a
 * document indexed after a question was asked counts at once.
 */

const t = useTestApp(test);

const indexVersion = async (): Promise<number> => {
  const row = await t.stores.get('live').db.selectFrom('ai_index_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.version;
};

test('a document indexed after a question reaches the next answer; chunk writes and removals move the counter', async (a) => {
  const token = await t.adminToken();
  const s = await service(t, token, { name: 'Term counts' });
  const v0 = await indexVersion();
  await indexed(t, token, s.id, { body: { title: 'Cats', text: 'Cats are fasted for six hours before anaesthesia. Water is allowed until one hour before.' } });
  const v1 = await indexVersion();
  a.true(v1 > v0, 'indexing chunks moves the counter');

  const ask = async () =>
    (await t.request('POST', `/v1/ai/services/${s.id}/query`, { token, body: { question: 'How long are rabbits fasted before anaesthesia?' } })).body;
  const before = await ask();
  a.false(
    before.citations.some((c: { snippet: string }) => /rabbit/i.test(c.snippet)),
    'no rabbit passage yet',
  );

  await indexed(t, token, s.id, { body: { title: 'Rabbits', text: 'Rabbits are never fasted before anaesthesia: they keep eating hay until induction.' } });
  a.true((await indexVersion()) > v1);
  const after = await ask();
  a.true(
    after.citations.some((c: { snippet: string }) => /rabbit/i.test(c.snippet)),
    'the new document is searched with fresh term counts',
  );

  // Removing chunks moves it too (what retiring a deleted pet document does).
  const v2 = await indexVersion();
  await t.stores.get('live').db.deleteFrom('ai_chunks').where('service_id', '=', s.id).execute();
  a.true((await indexVersion()) > v2);
});

test('after chunks change the search index is compacted in steps, answers stay the same, and an unchanged index is left alone', async (a) => {
  const token = await t.adminToken();
  const s = await service(t, token, { name: 'Compaction' });
  // Each document is indexed in its own transactions: FTS5 writes a b-tree for each.
  for (let i = 0; i < 6; i++)
    await indexed(t, token, s.id, { body: { title: `Ward ${i}`, text: `Ward ${i} kennels are disinfected ${i + 2} times a day with chlorhexidine.` } });
  const store = t.stores.get('live');
  // Chunks written behind the job's back (as a restore or a test's direct SQL would) count too.
  const sqlite = store.sqlite;
  const { id: documentId, tenant_id: tenantId } = sqlite.prepare('select id, tenant_id from ai_documents where service_id = ? limit 1').get(s.id) as {
    id: string;
    tenant_id: string;
  };
  for (let i = 0; i < 3; i++) {
    sqlite
      .prepare('insert into ai_chunks (id, tenant_id, service_id, document_id, position, page, text) values (?, ?, ?, ?, ?, 1, ?)')
      .run(`chk_direct_${i}`, tenantId, s.id, documentId, 100 + i, `Direct ${i}: kennels are aired at noon.`);
  }
  const ask = async () =>
    (await t.request('POST', `/v1/ai/services/${s.id}/query`, { token, body: { question: 'How many times a day are the ward 3 kennels disinfected?' } })).body;
  const before = await ask();
  const segments = () => (sqlite.prepare('select count(*) as n from ai_chunks_fts_idx').get() as { n: number }).n;
  const segmentsBefore = segments();

  const steps = await compactSearchIndex(store);
  a.true(steps >= 1);
  a.true(segments() <= segmentsBefore, `${segments()} index rows after, ${segmentsBefore} before`);
  a.notThrows(() => sqlite.prepare("insert into ai_chunks_fts(ai_chunks_fts) values('integrity-check')").run());
  const after = await ask();
  a.deepEqual(
    after.citations.map((c: { chunkId: string }) => c.chunkId),
    before.citations.map((c: { chunkId: string }) => c.chunkId),
  );
  a.is(await compactSearchIndex(store), 0, 'nothing changed since: no merge step');
  // A new document moves the counter: the next compaction (the job's own, or this one) merges it in.
  await indexed(t, token, s.id, { body: { title: 'Ward 9', text: 'Ward 9 kennels are disinfected hourly.' } });
  await compactSearchIndex(store);
  a.is(await compactSearchIndex(store), 0);
});
