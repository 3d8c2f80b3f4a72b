import test from 'ava';
import { parseByteRange } from '../../src/modules/documents/byte-range.js';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { download, makePdf, upload } from './document-helpers.js';

/** Resumable downloads: one byte range per request (RFC 9110 §14), with ETag and If-Range. */
let token: string;
let id: string;
let pdf: Buffer;

const t = useTestApp(test, { jobs: false });
test.before(async () => {
  token = await t.adminToken();
  const { pet } = await createHousehold(t);
  pdf = await makePdf(['Range requests', 'page two', 'page three']);
  const res = await upload(t, pet.id, { token, file: { bytes: pdf, name: 'r.pdf', type: 'application/pdf' } });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  id = res.body.id;
});

test('the range parser: first-last, open end, suffix, clamping, unsatisfiable and ignored forms', (a) => {
  a.deepEqual(parseByteRange('bytes=0-99', 1000), { start: 0, end: 99 });
  a.deepEqual(parseByteRange('bytes=900-', 1000), { start: 900, end: 999 });
  a.deepEqual(parseByteRange('bytes=-100', 1000), { start: 900, end: 999 });
  a.deepEqual(parseByteRange('bytes=-5000', 1000), { start: 0, end: 999 });
  a.deepEqual(parseByteRange('bytes=990-5000', 1000), { start: 990, end: 999 });
  a.is(parseByteRange('bytes=1000-', 1000), 'unsatisfiable');
  a.is(parseByteRange('bytes=-0', 1000), 'unsatisfiable');
  a.is(parseByteRange('bytes=5-1', 1000), null);
  a.is(parseByteRange('bytes=0-1,5-6', 1000), null);
  a.is(parseByteRange('items=0-1', 1000), null);
  a.is(parseByteRange('bytes=-', 1000), null);
});

test('a whole download advertises Accept-Ranges and its ETag', async (a) => {
  const res = await download(t, id, token);
  a.is(res.status, 200);
  a.is(res.headers.get('accept-ranges'), 'bytes');
  a.regex(res.headers.get('etag') ?? '', /^"[0-9a-f]{64}"$/);
  a.true(res.bytes.equals(pdf));
});

test('a range answers 206 with Content-Range and exactly those bytes; the parts put together are the file', async (a) => {
  const first = await download(t, id, token, { range: 'bytes=0-99' });
  a.is(first.status, 206);
  a.is(first.headers.get('content-range'), `bytes 0-99/${pdf.length}`);
  a.is(first.headers.get('content-length'), '100');
  a.true(first.bytes.equals(pdf.subarray(0, 100)));
  const rest = await download(t, id, token, { range: 'bytes=100-' });
  a.is(rest.status, 206);
  a.is(rest.headers.get('content-range'), `bytes 100-${pdf.length - 1}/${pdf.length}`);
  a.true(Buffer.concat([first.bytes, rest.bytes]).equals(pdf));
  const tail = await download(t, id, token, { range: 'bytes=-10' });
  a.is(tail.status, 206);
  a.true(tail.bytes.equals(pdf.subarray(pdf.length - 10)));
});

test('a range past the end answers 416 with Content-Range: bytes */size', async (a) => {
  const res = await download(t, id, token, { range: `bytes=${pdf.length}-` });
  a.is(res.status, 416);
  a.is(res.headers.get('content-range'), `bytes */${pdf.length}`);
  a.is(JSON.parse(res.bytes.toString()).code, 'range_not_satisfiable');
});

test('If-Range with the current ETag honours the range; a stale one gets the whole file; If-None-Match still answers 304', async (a) => {
  const etag = (await download(t, id, token)).headers.get('etag')!;
  const fresh = await download(t, id, token, { range: 'bytes=0-9', 'if-range': etag });
  a.is(fresh.status, 206);
  a.is(fresh.bytes.length, 10);
  const stale = await download(t, id, token, { range: 'bytes=0-9', 'if-range': '"0000"' });
  a.is(stale.status, 200);
  a.true(stale.bytes.equals(pdf));
  const cached = await download(t, id, token, { range: 'bytes=0-9', 'if-none-match': etag });
  a.is(cached.status, 304);
  const several = await download(t, id, token, { range: 'bytes=0-1,4-5' });
  a.is(several.status, 200, 'several ranges: the whole file');
});
