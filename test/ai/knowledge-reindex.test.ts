import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp } from '../helpers/test-app.js';
import { indexed, service } from './ai-support.js';

test('a service pinned to one embedding model answers 409 embedding_mismatch under another, fails new documents with that reason, and works again after a re-index', async (t) => {
  const fake = await startFakeOpenAi();
  const llm = { llmBaseUrl: fake.baseUrl, llmModel: 'fake-chat', llmTimeoutMs: 2000 };
  let app = await startTestApp({ config: { ...llm, embeddingsModel: 'embed-a' } });
  try {
    const admin = await app.adminToken();
    const location = await createLocation(app, { name: 'Downtown' });
    const svc = await service(app, admin, { name: 'Protocols', locationIds: [location.id] });
    t.is(svc.retrieval.embeddingModel, 'embed-a');
    await indexed(app, admin, svc.id, { body: { title: 'Fasting', text: 'Adult cats are fasted for six hours before anaesthesia.' } });
    const dataDir = app.dataDir;
    await app.close({ keepData: true });

    app = await startTestApp({ dataDir, config: { ...llm, embeddingsModel: 'embed-b' } });
    const token = await app.adminToken();
    const got = await app.request('GET', `/v1/ai/services/${svc.id}`, { token });
    t.false(got.body.retrieval.vector);
    t.regex(got.body.retrieval.reason, /embedding_mismatch/);
    const query = await app.request('POST', `/v1/ai/services/${svc.id}/query`, { token, body: { question: 'How long are cats fasted?' } });
    t.is(query.status, 409);
    t.is(query.body.code, 'embedding_mismatch');
    const upload = await app.request('POST', `/v1/ai/services/${svc.id}/documents`, {
      token,
      body: { title: 'Water', text: 'Water is allowed until two hours before anaesthesia.' },
    });
    t.is(upload.status, 202);
    const failed = await eventually(
      async () => {
        const doc = await app.request('GET', `/v1/ai/services/${svc.id}/documents/${upload.body.id}`, { token });
        return doc.body.status === 'failed' ? doc.body : null;
      },
      { timeoutMs: 10_000 },
    );
    t.regex(failed.error, /^embedding_mismatch/);

    const reindex = await app.request('POST', `/v1/ai/services/${svc.id}/reindex`, { token });
    t.is(reindex.status, 202, reindex.text);
    t.is(reindex.body.retrieval.embeddingModel, 'embed-b');
    t.true(reindex.body.retrieval.vector);
    await eventually(
      async () => {
        const list = await app.request('GET', `/v1/ai/services/${svc.id}/documents`, { token });
        return list.body.data.length === 2 && list.body.data.every((d: { status: string }) => d.status === 'indexed');
      },
      { timeoutMs: 10_000, what: 'both documents re-indexed' },
    );
    const after = await app.request('POST', `/v1/ai/services/${svc.id}/query`, { token, body: { question: 'How long are cats fasted before anaesthesia?' } });
    t.is(after.status, 200, after.text);
    t.is(after.body.retrieval, 'hybrid');
    const models = app.stores.get('live').sqlite.prepare('select distinct model from ai_chunk_vectors where service_id = ?').all(svc.id);
    t.deepEqual(models, [{ model: 'embed-b' }]);
  } finally {
    await app.close();
    await fake.close();
  }
});

test('the same embedding model answering another dimension at query time: the service query is 409 embedding_mismatch, the agent answers lexically and says why, a re-index pins the new dimension', async (t) => {
  const fake = await startFakeOpenAi();
  const app = await startTestApp({ config: { llmBaseUrl: fake.baseUrl, llmModel: 'fake-chat', embeddingsModel: 'embed-a', llmTimeoutMs: 2000 } });
  try {
    const admin = await app.adminToken();
    const location = await createLocation(app, { name: 'Downtown' });
    const svc = await service(app, admin, { name: 'Protocols', locationIds: [location.id] });
    await indexed(app, admin, svc.id, { body: { title: 'Fasting', text: 'Adult cats are fasted for six hours before anaesthesia.' } });
    t.is((await app.request('GET', `/v1/ai/services/${svc.id}`, { token: admin })).body.retrieval.dimension, 64);
    const ask = () =>
      app.request('POST', `/v1/ai/services/${svc.id}/query`, { token: admin, body: { question: 'How long are cats fasted before anaesthesia?' } });
    const before = await ask();
    t.is(before.status, 200, before.text);
    t.is(before.body.retrieval, 'hybrid');

    // Same model name, vectors of another length: another model in fact.
    fake.dimension = 32;
    const query = await ask();
    t.is(query.status, 409, query.text);
    t.is(query.body.code, 'embedding_mismatch');
    t.like(query.body, { pinnedDimension: 64, dimension: 32 });
    t.regex(query.body.detail, /reindex/);
    const answers = app.stores.get('live').sqlite.prepare('select count(*) as n from ai_answers').get() as { n: number };
    t.is(answers.n, 1, 'no answer stored for the refused query');

    const agent = await app.request('POST', '/ai/agent/query', {
      token: admin,
      body: { question: 'How long are cats fasted before anaesthesia?', scope: location.id },
    });
    t.is(agent.status, 200, agent.text);
    t.is(agent.body.retrieval, 'lexical');
    t.regex(agent.body.fallback, /^embedding_mismatch: .*dimension 64.* 32/);
    t.is(agent.body.citations[0]?.documentId !== undefined, true, 'still answered from the documents');

    const reindex = await app.request('POST', `/v1/ai/services/${svc.id}/reindex`, { token: admin });
    t.is(reindex.status, 202, reindex.text);
    await eventually(
      async () => {
        const list = await app.request('GET', `/v1/ai/services/${svc.id}/documents`, { token: admin });
        return (
          list.body.data.every((d: { status: string }) => d.status === 'indexed') &&
          (await app.request('GET', `/v1/ai/services/${svc.id}`, { token: admin })).body.retrieval.dimension === 32
        );
      },
      { timeoutMs: 10_000, what: 'the service re-indexed at dimension 32' },
    );
    const after = await ask();
    t.is(after.status, 200, after.text);
    t.is(after.body.retrieval, 'hybrid');
  } finally {
    await app.close();
    await fake.close();
  }
});
