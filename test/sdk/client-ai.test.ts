import test from 'ava';
import { PetCare, PetCareError } from '../../sdk/src/index.js';
import { eventually } from '../helpers/eventually.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { fixture } from '../ai/ai-support.js';
import { recordingFetch } from './sdk-support.js';

/** The SDK's AI calls of DESIGN §15 against the real server: services.create, knowledge.upload (file and JSON), knowledge.query. */

const t = useTestApp(test);

const sdkFor = (fetchImpl?: typeof fetch) =>
  new PetCare({ baseUrl: t.url, ...adminCredentials.live, retryBaseDelayMs: 5, ...(fetchImpl ? { fetch: fetchImpl } : {}) });

async function untilIndexed(sdk: PetCare, serviceId: string, docId: string) {
  return eventually(
    async () => {
      const doc = await sdk.ai.knowledge.get(serviceId, docId);
      if (doc.status === 'failed') throw new Error(`indexing failed: ${doc.error}`);
      return doc.status === 'indexed' ? doc : null;
    },
    { timeoutMs: 15_000, what: `document ${docId} indexed` },
  );
}

test('ai.services.create, ai.knowledge.upload of a PDF file and of JSON text, ai.knowledge.query with a cited page', async (a) => {
  const rec = recordingFetch();
  const sdk = sdkFor(rec.fetch);
  const service = await sdk.ai.services.create({ name: 'Clinic protocols (SDK)' });
  a.regex(service.id, /^ais_/);
  a.true(service.retrieval.lexical);

  const pdf = await sdk.ai.knowledge.upload(service.id, {
    file: fixture('anaesthesia-protocol.pdf'),
    filename: 'anaesthesia-protocol.pdf',
    title: 'Anaesthesia protocol',
  });
  a.regex(pdf.id, /^kdoc_/);
  const upload = rec.exchanges.find((e) => e.method === 'POST' && e.url.pathname.endsWith('/documents'))!;
  a.is(upload.body, undefined, 'a file goes as a FormData body (multipart), not JSON');
  a.is(upload.headers.get('content-type'), null, 'fetch sets the multipart content type and boundary itself');
  a.is(upload.status, 202);
  a.truthy(upload.headers.get('idempotency-key'), 'an upload is a write: it carries an Idempotency-Key');

  const text = await sdk.ai.knowledge.upload(service.id, {
    title: 'Front desk note',
    text: 'Cats in for surgery must not be fed after midnight. Water stays available.',
  });
  a.regex(text.id, /^kdoc_/);
  const again = await sdk.ai.knowledge.upload(service.id, {
    title: 'Front desk note',
    text: 'Cats in for surgery must not be fed after midnight. Water stays available.',
  });
  a.is(again.id, text.id, 'the same text is the same document (sha256)');

  const indexedPdf = await untilIndexed(sdk, service.id, pdf.id);
  a.true((indexedPdf.pages ?? 0) > 1);
  await untilIndexed(sdk, service.id, text.id);
  const docs = await sdk.ai.knowledge.list(service.id).toArray();
  a.deepEqual(docs.map((d) => d.id).sort(), [pdf.id, text.id].sort());

  const answer = await sdk.ai.knowledge.query(service.id, { question: 'What does the anaesthesia protocol say about fasting for cats?' });
  a.false(answer.abstained);
  a.true(answer.citations.length > 0);
  a.true(
    answer.citations.some((c) => c.documentId === pdf.id && typeof c.page === 'number'),
    'the PDF is cited with its page',
  );

  const unknown = await sdk.ai.knowledge.query(service.id, { question: 'What is the parking policy for delivery trucks on Sundays?' });
  a.true(unknown.abstained, 'what the documents do not cover is abstained');
});

test('ai.knowledge.upload refusals surface as PetCareError with the problem code', async (a) => {
  const sdk = sdkFor();
  const error = await a.throwsAsync(sdk.ai.knowledge.upload('ais_doesnotexist00000000', { title: 'x', text: 'y' }));
  a.true(error instanceof PetCareError);
  a.is((error as PetCareError).status, 404);
});
