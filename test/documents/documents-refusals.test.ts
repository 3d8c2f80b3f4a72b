import { request as httpRequest } from 'node:http';
import test from 'ava';
import { eventually } from '../helpers/eventually.js';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { documentCount, exe, makePdf, png, storedFiles, upload, zip } from './document-helpers.js';

/**
 * Refused uploads: wrong type, too large, malformed forms, aborted clients and failed writes all
 * leave no file (not even a temp file) and no row behind.
 */
const maxBytes = 4096;
let admin: string;
let petId: string;

const t = useTestApp(test, { config: { documentMaxBytes: maxBytes } });
test.before(async () => {
  admin = await t.adminToken();
  ({
    pet: { id: petId },
  } = await createHousehold(t));
});

/** Nothing stored: no file in the documents folder and no row. */
async function nothingLeft(a: { deepEqual: (x: unknown, y: unknown, m?: string) => void; is: (x: unknown, y: unknown, m?: string) => void }, label: string) {
  a.deepEqual(storedFiles(t), [], `${label}: files`);
  a.is(await documentCount(t), 0, `${label}: rows`);
}

test.serial('an executable or a ZIP declared as a PDF is refused with 415 and leaves nothing behind', async (a) => {
  for (const [bytes, name] of [
    [exe, 'report.pdf'],
    [zip, 'lab.pdf'],
  ] as const) {
    const res = await upload(t, petId, { token: admin, file: { bytes, name, type: 'application/pdf' } });
    a.is(res.status, 415, name);
    a.is(res.body.code, 'unsupported_media_type');
    a.is(res.headers.get('content-type'), 'application/problem+json');
    await nothingLeft(a, name);
  }
});

test.serial('text that is not UTF-8 or carries control characters is refused with 415', async (a) => {
  for (const [bytes, label] of [
    [Buffer.concat([Buffer.from('hello '), Buffer.from([0xc3, 0x28]), Buffer.from(' world')]), 'invalid UTF-8'],
    [Buffer.from('hello\u0000world'), 'NUL byte'],
    [Buffer.from('bell\u0007'), 'control character'],
    [Buffer.from([0xe2, 0x82]), 'cut multi-byte sequence'],
    [Buffer.concat([Buffer.from('a'.repeat(3000)), Buffer.from([0xff])]), 'invalid byte late in the file'],
    // At other alignments than the word-at-a-time check of the bytes reads.
    [Buffer.from(`${'a'.repeat(3001)}\u007f${'a'.repeat(10)}`), 'DEL late in the file'],
    [Buffer.from(`${'é'.repeat(1000)}x\u000b`), 'vertical tab after multi-byte text'],
    [Buffer.concat([Buffer.from('€'.repeat(1000)), Buffer.from([0xed, 0xa0, 0x80])]), 'an encoded surrogate'],
    [Buffer.concat([Buffer.from('x'.repeat(3002)), Buffer.from([0xf0, 0x9f, 0x98])]), 'a file ending inside a four-byte sequence'],
  ] as const) {
    const res = await upload(t, petId, { token: admin, file: { bytes, name: 'notes.txt', type: 'text/plain' } });
    a.is(res.status, 415, label);
    await nothingLeft(a, label);
  }
});

test.serial('a file over documentMaxBytes answers 413 and leaves nothing behind; exactly the limit is accepted', async (a) => {
  const over = await upload(t, petId, { token: admin, file: { bytes: 'x'.repeat(maxBytes + 1), name: 'big.txt' } });
  a.is(over.status, 413);
  a.is(over.body.code, 'payload_too_large');
  await nothingLeft(a, 'one byte over');

  // Content-Length already says it is too large: refused before reading the body.
  const huge = await upload(t, petId, { token: admin, file: { bytes: Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]), name: 'huge.png' } });
  a.is(huge.status, 413);
  await nothingLeft(a, 'huge');

  const exact = await upload(t, petId, { token: admin, file: { bytes: 'y'.repeat(maxBytes), name: 'exact.txt' } });
  a.is(exact.status, 201);
  a.is(exact.body.sizeBytes, maxBytes);
  await t.request('DELETE', `/v1/documents/${exact.body.id}`, { token: admin });
  await nothingLeft(a, 'after delete');
});

test.serial('a streamed (chunked) upload is cut off with 413 as soon as it passes the limit', async (a) => {
  const boundary = 'x-boundary-7MA4YWxkTrZu0gW';
  let sent = 0;
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="endless.txt"\r\nContent-Type: text/plain\r\n\r\n`),
      );
    },
    pull(controller) {
      // Never ends by itself: only the server refusing it stops this upload.
      if (sent > 64 * 1024 * 1024) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  let status: number | string;
  try {
    const res = await fetch(`${t.url}/v1/pets/${petId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    status = res.status;
    await res.text();
  } catch (err) {
    status = `connection closed: ${(err as Error).message}`; // the server hung up on a body it refused: also fine
  }
  a.true(status === 413 || typeof status === 'string', String(status));
  a.true(sent < 8 * 1024 * 1024, `the server kept reading: ${sent} bytes sent`);
  await eventually(() => storedFiles(t).length === 0, { what: () => `the refused upload's file to go (left: ${storedFiles(t).join(', ')})` });
  a.is(await documentCount(t), 0);
});

test.serial('malformed forms answer 400: no file, empty file, unknown or repeated fields, bad kind or title, two files', async (a) => {
  const cases: Array<[string, FormData | undefined, string]> = [];
  const form = (build: (f: FormData) => void) => {
    const f = new FormData();
    build(f);
    return f;
  };
  cases.push(['no file', form((f) => f.append('title', 'Nothing attached')), 'file']);
  cases.push(['empty file', form((f) => f.append('file', new Blob([]), 'empty.txt')), 'file']);
  cases.push(['file sent as a text field', form((f) => f.append('file', 'just text')), 'file']);
  cases.push(['unknown field', form((f) => (f.append('owner', 'me'), f.append('file', new Blob([png]), 'a.png'))), 'owner']);
  cases.push(['unknown file field', form((f) => f.append('attachment', new Blob([png]), 'a.png')), 'attachment']);
  cases.push(['repeated title', form((f) => (f.append('title', 'a'), f.append('title', 'b'), f.append('file', new Blob([png]), 'a.png'))), 'title']);
  cases.push(['bad kind', form((f) => (f.append('kind', 'selfie'), f.append('file', new Blob([png]), 'a.png'))), 'kind']);
  cases.push(['blank title', form((f) => (f.append('title', '   '), f.append('file', new Blob([png]), 'a.png'))), 'title']);
  cases.push(['long title', form((f) => (f.append('title', 't'.repeat(201)), f.append('file', new Blob([png]), 'a.png'))), 'title']);
  cases.push(['huge field', form((f) => (f.append('title', 't'.repeat(10_000)), f.append('file', new Blob([png]), 'a.png'))), 'title']);
  cases.push(['two files', form((f) => (f.append('file', new Blob([png]), 'a.png'), f.append('file', new Blob([png]), 'b.png'))), 'file']);
  for (const [label, body, field] of cases) {
    const res = await fetch(`${t.url}/v1/pets/${petId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body });
    const problem = (await res.json()) as { code: string; errors?: Array<{ field: string }> };
    a.is(res.status, 400, label);
    a.is(problem.code, 'validation_failed', label);
    a.is(problem.errors?.[0]?.field, field, label);
    await nothingLeft(a, label);
  }
});

test.serial('a body that is not multipart/form-data answers 415; no body at all answers 400', async (a) => {
  const json = await t.request('POST', `/v1/pets/${petId}/documents`, { token: admin, body: { file: 'abc' } });
  a.is(json.status, 415);
  const none = await t.request('POST', `/v1/pets/${petId}/documents`, { token: admin });
  a.is(none.status, 400);
  a.is(none.body.errors[0].field, 'file');
  const noBoundary = await t.request('POST', `/v1/pets/${petId}/documents`, {
    token: admin,
    rawBody: 'abc',
    headers: { 'content-type': 'multipart/form-data' },
  });
  a.is(noBoundary.status, 400);
  await nothingLeft(a, 'not multipart');
});

test.serial('a client that disconnects mid-upload leaves no file and no row', async (a) => {
  const boundary = 'abort-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  const url = new URL(`${t.url}/v1/pets/${petId}/documents`);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(maxBytes) },
  });
  req.on('error', () => undefined);
  req.write(head);
  req.write('z'.repeat(1000));
  // Wait until the server has started writing the temp file, then vanish.
  await eventually(() => storedFiles(t).length === 1, { what: 'the upload to be staged' });
  req.destroy();
  await eventually(() => storedFiles(t).length === 0, { what: () => `the staged file to go (left: ${storedFiles(t).join(', ')})` });
  a.is(await documentCount(t), 0);
});

test.serial('a failed database write removes the staged file', async (a) => {
  const sqlite = t.stores.get('live').sqlite;
  sqlite.exec("CREATE TRIGGER documents_fail BEFORE INSERT ON documents BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
  try {
    const res = await upload(t, petId, { token: admin, file: { bytes: await makePdf(['x']), name: 'x.pdf' } });
    a.is(res.status, 500);
    a.is(res.body.code, 'internal_error');
    await nothingLeft(a, 'db error');
  } finally {
    sqlite.exec('DROP TRIGGER documents_fail');
  }
});
