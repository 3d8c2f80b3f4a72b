import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { useTestApp } from '../helpers/test-app.js';
import { form } from './ai-support.js';

let admin: string;
let downtown: { id: string; name: string };
let uptown: { id: string; name: string };

// Tests poll documents until indexed (up to a minute on a loaded machine): the rate limit must not answer those polls 429.
const t = useTestApp(test, { config: { documentMaxBytes: 64 * 1024, rateLimitPerMinute: 1_000_000 } });
test.before(async () => {
  admin = await t.adminToken();
  downtown = await createLocation(t, { name: 'Downtown' });
  uptown = await createLocation(t, { name: 'Uptown' });
});

const createService = async (body: Record<string, unknown>, token = admin) => t.request('POST', '/v1/ai/services', { token, body });

async function pdfOf(pages: string[], options: { useObjectStreams?: boolean } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 16, size: 11, font }));
  }
  return Buffer.from(await doc.save(options));
}

const documentOf = (serviceId: string, id: string) => t.request('GET', `/v1/ai/services/${serviceId}/documents/${id}`, { token: admin });
const settled = (serviceId: string, id: string) =>
  eventually(
    async () => {
      const res = await documentOf(serviceId, id);
      return res.body.status === 'indexed' || res.body.status === 'failed' ? res.body : null;
    },
    { timeoutMs: 60_000, intervalMs: 100, what: `document ${id} to be indexed` }, // generous: the indexing job shares a loaded machine with the whole suite
  );

test('a service is created, listed and read back with its retrieval settings', async (tt) => {
  const res = await createService({ name: 'Clinic protocols', description: 'SOPs', locationIds: [downtown.id] });
  tt.is(res.status, 201, res.text);
  tt.regex(res.body.id, /^ais_/);
  tt.deepEqual(res.body.locationIds, [downtown.id]);
  tt.deepEqual(res.body.retrieval.lexical, true);
  tt.is(res.body.retrieval.vector, false); // no embedding model configured
  tt.truthy(res.body.retrieval.reason);
  tt.is(res.body.documentCount, 0);
  const got = await t.request('GET', `/v1/ai/services/${res.body.id}`, { token: admin });
  tt.is(got.status, 200);
  tt.is(got.body.name, 'Clinic protocols');
  const list = await t.request('GET', '/v1/ai/services?limit=100', { token: admin });
  tt.true(list.body.data.some((s: { id: string }) => s.id === res.body.id));
});

test('bad service input is refused with the field, and nothing is created', async (tt) => {
  for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: 'refused', locationIds: [] }, { name: 'refused', extra: 1 }]) {
    const res = await createService(body);
    tt.is(res.status, 400, JSON.stringify(body));
  }
  const unknown = await createService({ name: 'refused', locationIds: ['loc_nope'] });
  tt.is(unknown.status, 400);
  tt.is(unknown.body.code, 'resource_missing');
  const names = (await t.request('GET', '/v1/ai/services?limit=100', { token: admin })).body.data.map((s: { name: string }) => s.name);
  tt.false(names.includes('refused'));
});

test('scopes: ai writes, ai.read reads, others 403; no token 401', async (tt) => {
  const reader = await t.client({ role: 'staff', scopes: ['ai.read'] });
  const none = await t.client({ role: 'staff', scopes: ['pets'] });
  tt.is((await createService({ name: 'x' }, reader.accessToken)).status, 403);
  tt.is((await t.request('GET', '/v1/ai/services', { token: reader.accessToken })).status, 200);
  tt.is((await t.request('GET', '/v1/ai/services', { token: none.accessToken })).status, 403);
  tt.is((await t.request('GET', '/v1/ai/services')).status, 401);
});

test('location scoping: a caller confined to Uptown does not see a Downtown service (404), sees tenant-wide ones, and must bind what it creates', async (tt) => {
  const dt = (await createService({ name: 'Downtown only', locationIds: [downtown.id] })).body;
  const both = (await createService({ name: 'Both', locationIds: [downtown.id, uptown.id] })).body;
  const wide = (await createService({ name: 'Group policies' })).body;
  const up = await t.client({ role: 'doctor', scopes: ['ai'], locationIds: [uptown.id] });
  tt.is((await t.request('GET', `/v1/ai/services/${dt.id}`, { token: up.accessToken })).status, 404);
  tt.is((await t.request('GET', `/v1/ai/services/${both.id}`, { token: up.accessToken })).status, 404);
  tt.is((await t.request('GET', `/v1/ai/services/${wide.id}`, { token: up.accessToken })).status, 200);
  const list = (await t.request('GET', '/v1/ai/services?limit=100', { token: up.accessToken })).body.data.map((s: { id: string }) => s.id);
  tt.false(list.includes(dt.id));
  tt.true(list.includes(wide.id));
  const unbound = await createService({ name: 'mine' }, up.accessToken);
  tt.is(unbound.status, 422);
  tt.is(unbound.body.code, 'locations_required');
  tt.is((await createService({ name: 'theirs', locationIds: [downtown.id] }, up.accessToken)).status, 400);
  tt.is((await createService({ name: 'mine', locationIds: [uptown.id] }, up.accessToken)).status, 201);
  const upload = await t.request('POST', `/v1/ai/services/${dt.id}/documents`, { token: up.accessToken, body: { title: 'x', text: 'hello world' } });
  tt.is(upload.status, 404);
});

test('a text document is indexed by the ai-indexing job into page-aware chunks; the same text again answers 200 with the same document', async (tt) => {
  const service = (await createService({ name: 'Text', locationIds: [downtown.id] })).body;
  const text = 'Page one talks about kennels. Kennels are cleaned daily.\fPage two talks about feeding. Dogs are fed twice a day.';
  const res = await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, body: { title: 'Kennel rules', text } });
  tt.is(res.status, 202, res.text);
  tt.regex(res.body.id, /^kdoc_/);
  tt.is(res.body.status, 'uploaded');
  tt.is(res.body.sha256.length, 64);
  const done = await settled(service.id, res.body.id);
  tt.is(done.status, 'indexed', String(done.error));
  tt.is(done.pages, 2);
  tt.is(done.chunks, 2);
  tt.is(done.progress, 1);
  const again = await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, body: { title: 'Other title', text } });
  tt.is(again.status, 200);
  tt.is(again.body.id, res.body.id);
  const rows = t.stores.get('live').sqlite.prepare('select page, position from ai_chunks where document_id = ? order by position').all(res.body.id);
  tt.deepEqual(rows, [
    { page: 1, position: 0 },
    { page: 2, position: 1 },
  ]);
  const list = await t.request('GET', `/v1/ai/services/${service.id}/documents`, { token: admin });
  tt.is(list.body.data.length, 1);
  tt.is((await t.request('GET', `/v1/ai/services/${service.id}`, { token: admin })).body.documentCount, 1);
});

test('20 parallel uploads of the same file make one document (UNIQUE service + sha256)', async (tt) => {
  const service = (await createService({ name: 'Race', locationIds: [downtown.id] })).body;
  const file = Buffer.from('# Visiting hours\n\nVisitors are welcome from 10:00 to 16:00.\n');
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, ...form(file, 'visiting.md', 'text/markdown') }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  tt.is(statuses.filter((s) => s === 202).length, 1, JSON.stringify(statuses));
  tt.is(statuses.filter((s) => s === 200).length, 19);
  tt.is(new Set(results.map((r) => r.body.id)).size, 1);
  const count = t.stores.get('live').sqlite.prepare('select count(*) as n from ai_documents where service_id = ?').get(service.id) as { n: number };
  tt.is(count.n, 1);
  const done = await settled(service.id, results[0]!.body.id);
  tt.is(done.status, 'indexed');
  tt.is(done.sha256.length, 64);
});

test('a PDF upload keeps its pages: each chunk cites the page it came from', async (tt) => {
  const service = (await createService({ name: 'PDFs', locationIds: [downtown.id] })).body;
  const pdf = await pdfOf([
    'Anaesthesia protocol.\nPre-anaesthetic bloodwork is required for patients over seven years.',
    'Fasting.\nCats are fasted for six hours before induction.',
    'Recovery.\nExtubate when the swallowing reflex returns.',
  ]);
  const res = await t.request('POST', `/v1/ai/services/${service.id}/documents`, {
    token: admin,
    ...form(pdf, 'protocol.pdf', 'application/pdf', 'Anaesthesia protocol'),
  });
  tt.is(res.status, 202, res.text);
  const done = await settled(service.id, res.body.id);
  tt.is(done.status, 'indexed', String(done.error));
  tt.is(done.pages, 3);
  const rows = t.stores.get('live').sqlite.prepare('select page, text from ai_chunks where document_id = ? order by position').all(res.body.id) as Array<{
    page: number;
    text: string;
  }>;
  tt.is(rows.find((r) => r.text.includes('six hours'))?.page, 2);
  tt.is(rows.find((r) => r.text.includes('swallowing'))?.page, 3);
});

test('a corrupt PDF and an encrypted one end failed with the reason; a file over the limit is 413 and nothing is kept', async (tt) => {
  const service = (await createService({ name: 'Bad files', locationIds: [downtown.id] })).body;
  const corrupt = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500, 0x41), Buffer.from('\n%%EOF\n')]);
  const res = await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, ...form(corrupt, 'bad.pdf', 'application/pdf') });
  tt.is(res.status, 202);
  const done = await settled(service.id, res.body.id);
  tt.is(done.status, 'failed');
  tt.regex(done.error, /PDF/);

  const encrypted = Buffer.from(
    (await pdfOf(['secret'], { useObjectStreams: false }))
      .toString('latin1')
      .replace(
        /trailer\s*<</,
        'trailer\n<<\n/Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>\n/ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]',
      ),
    'latin1',
  );
  const enc = await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, ...form(encrypted, 'locked.pdf', 'application/pdf') });
  tt.is(enc.status, 202);
  const encDone = await settled(service.id, enc.body.id);
  tt.is(encDone.status, 'failed');
  tt.regex(encDone.error, /encrypted|password/i);

  const big = await t.request('POST', `/v1/ai/services/${service.id}/documents`, {
    token: admin,
    ...form(Buffer.alloc(70 * 1024, 0x61), 'big.txt', 'text/plain'),
  });
  tt.is(big.status, 413);
  const count = t.stores.get('live').sqlite.prepare('select count(*) as n from ai_documents where service_id = ?').get(service.id) as { n: number };
  tt.is(count.n, 2);
  const image = await t.request('POST', `/v1/ai/services/${service.id}/documents`, {
    token: admin,
    ...form(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 1, 2, 3]), 'x.png', 'image/png'),
  });
  tt.is(image.status, 415);
});

test("a pet document joins a service of its pet's location, not another one", async (tt) => {
  const parent = await createPetParent(t, downtown.id);
  const pet = await createPet(t, parent.id, downtown.id);
  const upload = await t.request('POST', `/v1/pets/${pet.id}/documents`, {
    token: admin,
    ...form(Buffer.from('Discharge note: give the antibiotic twice daily for ten days.'), 'note.txt', 'text/plain'),
  });
  tt.is(upload.status, 201, upload.text);
  const dtService = (await createService({ name: 'DT records', locationIds: [downtown.id] })).body;
  const upService = (await createService({ name: 'UP records', locationIds: [uptown.id] })).body;
  const wrong = await t.request('POST', `/v1/ai/services/${upService.id}/documents`, { token: admin, body: { documentId: upload.body.id } });
  tt.is(wrong.status, 422);
  tt.is(wrong.body.code, 'document_outside_service');
  const res = await t.request('POST', `/v1/ai/services/${dtService.id}/documents`, { token: admin, body: { documentId: upload.body.id } });
  tt.is(res.status, 202, res.text);
  tt.is(res.body.sourceDocumentId, upload.body.id);
  tt.is(res.body.sha256, upload.body.sha256);
  const done = await settled(dtService.id, res.body.id);
  tt.is(done.status, 'indexed', String(done.error));
  tt.is((await t.request('POST', `/v1/ai/services/${dtService.id}/documents`, { token: admin, body: { documentId: 'doc_nope' } })).status, 404);
});

test('a deleted pet document leaves every answer at once; the ai-indexing job then drops its chunks and marks it failed', async (tt) => {
  const parent = await createPetParent(t, downtown.id);
  const pet = await createPet(t, parent.id, downtown.id);
  const upload = await t.request('POST', `/v1/pets/${pet.id}/documents`, {
    token: admin,
    ...form(Buffer.from('Referral letter: the cardiologist prescribed pimobendan at breakfast and dinner.'), 'referral.txt', 'text/plain'),
  });
  tt.is(upload.status, 201, upload.text);
  const service = (await createService({ name: 'DT referrals', locationIds: [downtown.id] })).body;
  const added = await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, body: { documentId: upload.body.id } });
  tt.is(added.status, 202, added.text);
  tt.is((await settled(service.id, added.body.id)).status, 'indexed');
  const question = { question: 'What did the cardiologist prescribe with pimobendan?' };
  const before = await t.request('POST', `/v1/ai/services/${service.id}/query`, { token: admin, body: question });
  tt.false(before.body.abstained, before.text);
  tt.is(before.body.citations[0]?.documentId, added.body.id);

  tt.is((await t.request('DELETE', `/v1/documents/${upload.body.id}`, { token: admin })).status, 200);
  const after = await t.request('POST', `/v1/ai/services/${service.id}/query`, { token: admin, body: question });
  tt.true(after.body.abstained, after.text);
  tt.deepEqual(after.body.citations, []);
  tt.notRegex(after.body.answer, /pimobendan/);

  await t.request('POST', '/v1/jobs/ai-indexing/run', { token: admin, body: { wait: true } });
  const retired = await eventually(
    async () => {
      const doc = (await documentOf(service.id, added.body.id)).body;
      return doc.status === 'failed' ? doc : null;
    },
    { timeoutMs: 10_000, what: 'the knowledge document to be retired' },
  );
  tt.is(retired.error, 'the pet document was deleted');
  tt.is(retired.chunks, 0);
  const left = t.stores.get('live').sqlite.prepare('select count(*) as n from ai_chunks where document_id = ?').get(added.body.id) as { n: number };
  tt.is(left.n, 0);
});

test('POST /v1/jobs/ai-indexing/run runs the job and reports what it did', async (tt) => {
  const service = (await createService({ name: 'Job', locationIds: [downtown.id] })).body;
  await t.request('POST', `/v1/ai/services/${service.id}/documents`, { token: admin, body: { title: 'Job doc', text: 'The run indexes this document.' } });
  const run = await t.request('POST', '/v1/jobs/ai-indexing/run', { token: admin, body: { wait: true } });
  tt.true([200, 202].includes(run.status), run.text);
  await eventually(async () => (await t.request('GET', `/v1/ai/services/${service.id}/documents`, { token: admin })).body.data?.[0]?.status === 'indexed', {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  tt.pass();
});

test('a sandbox reset erases the sandbox knowledge (services, documents, chunks, answers, uploaded files) and leaves live alone', async (tt) => {
  const sandbox = await t.adminToken('sandbox');
  const svc = (await createService({ name: 'Sandbox notes' }, sandbox)).body;
  const up = await t.request('POST', `/v1/ai/services/${svc.id}/documents`, {
    token: sandbox,
    body: { title: 'Note', text: 'Sandbox kennels are cleaned daily.' },
  });
  tt.is(up.status, 202);
  await eventually(async () => (await t.request('GET', `/v1/ai/services/${svc.id}/documents/${up.body.id}`, { token: sandbox })).body.status === 'indexed', {
    timeoutMs: 10_000,
  });
  const answer = await t.request('POST', `/v1/ai/services/${svc.id}/query`, { token: sandbox, body: { question: 'How often are kennels cleaned?' } });
  tt.is(answer.status, 200);
  const live = (await createService({ name: 'Live survives' })).body;
  // An uploaded file in each environment: the reset removes the sandbox's from disk, not live's.
  const file = Buffer.from('Sandbox kennels are hosed down at noon.\n');
  const sandboxFile = await t.request('POST', `/v1/ai/services/${svc.id}/documents`, { token: sandbox, ...form(file, 'hosing.md', 'text/markdown') });
  const liveFile = await t.request('POST', `/v1/ai/services/${live.id}/documents`, { token: admin, ...form(file, 'hosing.md', 'text/markdown') });
  tt.is(sandboxFile.status, 202, sandboxFile.text);
  tt.is(liveFile.status, 202, liveFile.text);
  const stored = (env: string, id: string) => existsSync(path.join(t.dataDir, 'knowledge', 'documents', env, `${id}.md`));
  tt.true(stored('sandbox', sandboxFile.body.id));
  tt.true(stored('live', liveFile.body.id));
  tt.is((await t.request('POST', '/v1/sandbox/reset', { token: sandbox })).status, 200);
  tt.false(stored('sandbox', sandboxFile.body.id));
  tt.true(stored('live', liveFile.body.id));
  tt.is((await t.request('GET', `/v1/ai/services/${svc.id}`, { token: sandbox })).status, 404);
  tt.is((await t.request('GET', `/v1/ai/answers/${answer.body.id}`, { token: sandbox })).status, 404);
  // The reset seeds the demo practice's handbook again (the indexing job may chunk it at any time):
  // no chunk of anything but the demo service is left.
  const chunks = t.stores.get('sandbox').sqlite.prepare("select count(*) as n from ai_chunks where service_id <> 'ais_demo_handbook'").get() as { n: number };
  tt.is(chunks.n, 0);
  tt.is((await t.request('GET', `/v1/ai/services/${live.id}`, { token: admin })).status, 200);
});

test('Idempotency-Key: a retried service creation or upload answers the first result and writes nothing twice', async (tt) => {
  const key = `svc-${Math.random()}`;
  const first = await t.request('POST', '/v1/ai/services', { token: admin, body: { name: 'Idempotent', locationIds: [downtown.id] }, idempotencyKey: key });
  const again = await t.request('POST', '/v1/ai/services', { token: admin, body: { name: 'Idempotent', locationIds: [downtown.id] }, idempotencyKey: key });
  tt.is(first.status, 201);
  tt.is(again.status, 201);
  tt.is(again.body.id, first.body.id);
  tt.is(again.headers.get('idempotent-replayed'), 'true');
  const other = await t.request('POST', '/v1/ai/services', { token: admin, body: { name: 'Different' }, idempotencyKey: key });
  tt.is(other.status, 422);
  tt.is(other.body.code, 'idempotency_key_mismatch');

  const uploadKey = `doc-${Math.random()}`;
  const file = Buffer.from('Idempotent upload: the file is stored once.');
  const u1 = await t.request('POST', `/v1/ai/services/${first.body.id}/documents`, {
    token: admin,
    ...form(file, 'once.txt', 'text/plain'),
    idempotencyKey: uploadKey,
  });
  const u2 = await t.request('POST', `/v1/ai/services/${first.body.id}/documents`, {
    token: admin,
    ...form(file, 'once.txt', 'text/plain'),
    idempotencyKey: uploadKey,
  });
  tt.is(u1.status, 202);
  tt.is(u2.status, 202);
  tt.is(u2.body.id, u1.body.id);
  tt.is(u2.headers.get('idempotent-replayed'), 'true');
  const rows = t.stores.get('live').sqlite.prepare('select count(*) as n from ai_documents where service_id = ?').get(first.body.id) as { n: number };
  tt.is(rows.n, 1);
});
