import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { indexed, service } from './ai-support.js';

/**
 * The query path reuses its term statistics (how many chunks hold each question word) while the
 * knowledge index's change counter stands still: every chunk written or removed moves it, so a
 * document indexed after a question was asked counts at once.
 */
let t: TestApp;

test.before(async () => {
  t = await startTestApp();
});
test.after.always(async () => {
  await t?.close();
});

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

  const ask = async () => (await t.request('POST', `/v1/ai/services/${s.id}/query`, { token, body: { question: 'How long are rabbits fasted before anaesthesia?' } })).body;
  const before = await ask();
  a.false(before.citations.some((c: { snippet: string }) => /rabbit/i.test(c.snippet)), 'no rabbit passage yet');

  await indexed(t, token, s.id, { body: { title: 'Rabbits', text: 'Rabbits are never fasted before anaesthesia: they keep eating hay until induction.' } });
  a.true((await indexVersion()) > v1);
  const after = await ask();
  a.true(after.citations.some((c: { snippet: string }) => /rabbit/i.test(c.snippet)), 'the new document is searched with fresh term counts');

  // Removing chunks moves it too (what retiring a deleted pet document does).
  const v2 = await indexVersion();
  await t.stores.get('live').db.deleteFrom('ai_chunks').where('service_id', '=', s.id).execute();
  a.true((await indexVersion()) > v2);
});
