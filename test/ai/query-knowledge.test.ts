import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { clinicDocuments, indexed, service } from './ai-support.js';

let admin: string;
let downtown: { id: string; name: string };
let uptown: { id: string; name: string };
let protocols: { id: string };
let docs: Awaited<ReturnType<typeof clinicDocuments>>;
let uptownService: { id: string };

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  downtown = await createLocation(t, { name: 'Downtown' });
  uptown = await createLocation(t, { name: 'Uptown' });
  protocols = await service(t, admin, { name: 'Downtown protocols', locationIds: [downtown.id] });
  docs = await clinicDocuments(t, admin, protocols.id);
  uptownService = await service(t, admin, { name: 'Uptown notes', locationIds: [uptown.id] });
  await indexed(t, admin, uptownService.id, {
    body: { title: 'Uptown secret', text: 'Uptown fasting rule: cats at Uptown are fasted for exactly eleven hours before anaesthesia.' },
  });
});

const ask = (serviceId: string, body: unknown, token = admin) => t.request('POST', `/v1/ai/services/${serviceId}/query`, { token, body });

test('the anaesthesia question is answered from the PDF, quoting it, with page 2 cited; the answer is stored', async (tt) => {
  const res = await ask(protocols.id, { question: 'What does our anaesthesia protocol say about fasting for cats?' });
  tt.is(res.status, 200, res.text);
  tt.false(res.body.abstained);
  tt.is(res.body.retrieval, 'lexical');
  tt.is(res.body.model, 'extractive');
  tt.is(res.body.fallback, null);
  tt.regex(res.body.answer, /Adult cats are fasted from food for 6 hours/);
  const first = res.body.citations[0];
  tt.is(first.documentId, docs.pdf.id);
  tt.is(first.page, 2);
  tt.regex(first.chunkId, /^chk_/);
  tt.regex(first.snippet, /cats/i);
  // The page's heading ("Fasting before anaesthesia") matches the question too, but is not quoted as evidence.
  for (const c of res.body.citations) tt.true(c.snippet.split(/\s+/).length >= 5, c.snippet);
  tt.notRegex(res.body.answer, /"Fasting before anaesthesia"/);
  tt.regex(res.body.id, /^ans_/);
  const stored = await t.request('GET', `/v1/ai/answers/${res.body.id}`, { token: admin });
  tt.is(stored.status, 200);
  tt.is(stored.body.kind, 'knowledge');
  tt.is(stored.body.question, 'What does our anaesthesia protocol say about fasting for cats?');
  tt.deepEqual(stored.body.citations, res.body.citations);
});

test('a question the documents do not cover is answered "I don\'t know" with no citations', async (tt) => {
  const res = await ask(protocols.id, { question: 'What is the parking fee at the clinic?' });
  tt.is(res.status, 200);
  tt.true(res.body.abstained);
  tt.deepEqual(res.body.citations, []);
  tt.regex(res.body.answer, /don't know/);
});

test('markdown and text documents are cited with their page (form feeds split pages)', async (tt) => {
  const res = await ask(protocols.id, { question: 'Which cats should get the feline leukaemia vaccine?', topK: 3 });
  tt.false(res.body.abstained);
  tt.is(res.body.citations[0].documentId, docs.vaccination.id);
  tt.is(res.body.citations[0].page, 2);
  const boarding = await ask(protocols.id, { question: 'How often are boarded dogs walked?' });
  tt.is(boarding.body.citations[0].documentId, docs.boarding.id);
  tt.is(boarding.body.citations[0].page, 1);
});

test('empty, 10,000-character, non-string or wordless questions are 400 and store nothing', async (tt) => {
  const stored = () =>
    (
      t.stores
        .get('live')
        .sqlite.prepare('select count(*) as n from ai_answers where question in (?, ?, ?) or length(question) > 2000')
        .get('', '?!? ...', 'ok\u0000') as { n: number }
    ).n;
  for (const body of [
    { question: '' },
    { question: 'x'.repeat(10_000) },
    { question: 42 },
    { question: ['a'] },
    { question: '?!? ...' },
    { question: 'ok\u0000' },
    {},
    { question: 'fasting', topK: 0 },
    { question: 'fasting', topK: 99 },
  ]) {
    const res = await ask(protocols.id, body);
    tt.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    tt.is(res.body.code, 'validation_failed');
  }
  const agent = await t.request('POST', '/ai/agent/query', { token: admin, body: { question: '', scope: 'tenant' } });
  tt.is(agent.status, 400);
  tt.is(stored(), 0);
});

test('scopes: ai.read may query (200), no ai scope is 403, no token 401', async (tt) => {
  const reader = await t.client({ role: 'staff', scopes: ['ai.read'] });
  const other = await t.client({ role: 'staff', scopes: ['pets'] });
  tt.is((await ask(protocols.id, { question: 'When is the endotracheal tube removed?' }, reader.accessToken)).status, 200);
  tt.is((await ask(protocols.id, { question: 'When is the endotracheal tube removed?' }, other.accessToken)).status, 403);
  tt.is((await t.request('POST', `/v1/ai/services/${protocols.id}/query`, { body: { question: 'x y' } })).status, 401);
});

test("a caller confined to Uptown gets 404 for Downtown's service and its answers, and never a Downtown citation through the agent", async (tt) => {
  const up = await t.client({ role: 'doctor', scopes: ['ai'], locationIds: [uptown.id] });
  tt.is((await ask(protocols.id, { question: 'fasting for cats' }, up.accessToken)).status, 404);
  const downtownAnswer = await ask(protocols.id, { question: 'When is the endotracheal tube removed?' });
  tt.is((await t.request('GET', `/v1/ai/answers/${downtownAnswer.body.id}`, { token: up.accessToken })).status, 404);
  tt.is((await t.request('POST', '/ai/agent/query', { token: up.accessToken, body: { question: 'fasting for cats', scope: downtown.id } })).status, 404);
  const agent = await t.request('POST', '/ai/agent/query', {
    token: up.accessToken,
    body: { question: 'How long are cats fasted before anaesthesia?', scope: 'tenant' },
  });
  tt.is(agent.status, 200, agent.text);
  const downtownDocs = new Set([docs.pdf.id, docs.boarding.id, docs.vaccination.id]);
  tt.true(agent.body.citations.length > 0);
  for (const c of agent.body.citations) tt.false(downtownDocs.has(c.documentId));
  tt.regex(agent.body.answer, /eleven hours/);
  tt.notRegex(agent.body.answer, /6 hours/);
  // Its own answer it can read back; a Downtown-only caller cannot.
  tt.is((await t.request('GET', `/v1/ai/answers/${agent.body.id}`, { token: up.accessToken })).status, 200);
  const dt = await t.client({ role: 'doctor', scopes: ['ai'], locationIds: [downtown.id] });
  tt.is((await t.request('GET', `/v1/ai/answers/${agent.body.id}`, { token: dt.accessToken })).status, 404);
});

test('the agent searches every service its scope covers: a tenant-wide admin asking Downtown gets the PDF, not the Uptown note', async (tt) => {
  const res = await t.request('POST', '/ai/agent/query', {
    token: admin,
    body: { question: 'How long are adult cats fasted before induction?', scope: downtown.id },
  });
  tt.is(res.status, 200, res.text);
  tt.regex(res.body.id, /^ans_/);
  tt.is(res.body.scope, downtown.id);
  tt.deepEqual(res.body.liveCounts, []);
  tt.true(res.body.citations.every((c: { documentId: string }) => c.documentId === docs.pdf.id));
  tt.is(res.body.citations[0].page, 2);
  tt.is((await t.request('POST', '/ai/agent/query', { token: admin, body: { question: 'fasting', scope: 'loc_unknown' } })).status, 404);
  tt.is((await t.request('POST', '/ai/agent/query', { token: admin, body: { question: 'fasting', scope: 'everywhere' } })).status, 400);
});
