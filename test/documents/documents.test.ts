import { createHash } from 'node:crypto';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { DocumentFiles } from '../../src/modules/documents/index.js';
import { useTestApp } from '../helpers/test-app.js';
import { download, jpeg, makePdf, png, storedFiles, upload, webp } from './document-helpers.js';

let admin: string;
let petId: string;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  ({
    pet: { id: petId },
  } = await createHousehold(t));
});

const db = () => t.stores.get('live').db;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test('a PDF upload is stored under its id, hashed, its text extracted; the download is byte-identical', async (a) => {
  const pdf = await makePdf(['Blood panel: ALT 42 U/L', 'Second page: creatinine normal']);
  const res = await upload(t, petId, {
    token: admin,
    file: { bytes: pdf, name: 'blood panel.pdf', type: 'application/pdf' },
    fields: { title: 'Blood panel', kind: 'lab_result' },
  });
  a.is(res.status, 201, JSON.stringify(res.body));
  const doc = res.body;
  a.regex(doc.id, /^doc_[0-9a-z]{26}$/);
  a.like(doc, {
    petId,
    title: 'Blood panel',
    kind: 'lab_result',
    contentType: 'application/pdf',
    declaredContentType: 'application/pdf',
    contentTypeMismatch: false,
    sizeBytes: pdf.length,
    sha256: sha256(pdf),
    filename: 'blood panel.pdf',
    textStatus: 'extracted',
    textExtracted: true,
    pageCount: 2,
  });
  a.is(doc.contentUrl, `${t.url}/v1/documents/${doc.id}/content`);
  a.true(doc.textLength > 0);

  // Stored under the generated name, never the client's.
  a.deepEqual(
    storedFiles(t).filter((f) => f.startsWith(doc.id)),
    [`${doc.id}.pdf`],
  );
  a.deepEqual(readFileSync(path.join(t.dataDir, 'documents', 'live', `${doc.id}.pdf`)), pdf);

  const row = await db().selectFrom('documents').selectAll().where('id', '=', doc.id).executeTakeFirstOrThrow();
  a.regex(row.extracted_text ?? '', /Blood panel: ALT 42 U\/L/);
  a.regex(row.extracted_text ?? '', /creatinine normal/);
  a.is(row.text_length, row.extracted_text?.length ?? -1);
  a.is(doc.textLength, row.text_length);

  const got = await download(t, doc.id, admin);
  a.is(got.status, 200);
  a.deepEqual(got.bytes, pdf);
  a.is(got.headers.get('content-type'), 'application/pdf');
  a.is(got.headers.get('content-length'), String(pdf.length));
  a.is(got.headers.get('etag'), `"${sha256(pdf)}"`);
  a.is(got.headers.get('x-content-type-options'), 'nosniff');
  a.is(got.headers.get('content-disposition'), `attachment; filename="blood panel.pdf"; filename*=UTF-8''blood%20panel.pdf`);
  a.regex(got.headers.get('content-security-policy') ?? '', /sandbox/);

  const meta = await t.request('GET', `/v1/documents/${doc.id}`, { token: admin });
  a.is(meta.status, 200);
  a.deepEqual(meta.body, doc);
});

test('PNG, JPEG and WebP are recognised from their bytes; images have no text', async (a) => {
  for (const [bytes, type, ext] of [
    [png, 'image/png', 'png'],
    [jpeg, 'image/jpeg', 'jpg'],
    [webp, 'image/webp', 'webp'],
  ] as const) {
    const res = await upload(t, petId, { token: admin, file: { bytes, name: `xray.${ext}` }, fields: { kind: 'xray' } });
    a.is(res.status, 201, `${type}: ${JSON.stringify(res.body)}`);
    a.like(res.body, {
      contentType: type,
      declaredContentType: 'application/octet-stream',
      contentTypeMismatch: false,
      textStatus: 'not_applicable',
      textExtracted: false,
      textLength: 0,
      pageCount: null,
      title: `xray.${ext}`,
    });
    a.true(storedFiles(t).includes(`${res.body.id}.${ext}`));
    const got = await download(t, res.body.id, admin);
    a.deepEqual(got.bytes, bytes);
    a.is(got.headers.get('content-type'), type);
  }
});

test('plain text and Markdown are stored with their text; Markdown is told by name or declared type', async (a) => {
  const notes = 'Owner reports Bella limps after walks.\nCheck left hind leg.\n';
  const txt = await upload(t, petId, { token: admin, file: { bytes: notes, name: 'notes.txt', type: 'text/plain' } });
  a.is(txt.status, 201);
  a.like(txt.body, { contentType: 'text/plain', textStatus: 'extracted', textLength: notes.length, filename: 'notes.txt', kind: 'other', title: 'notes.txt' });
  const txtRow = await db().selectFrom('documents').select(['extracted_text', 'storage_key']).where('id', '=', txt.body.id).executeTakeFirstOrThrow();
  a.is(txtRow.extracted_text, notes);
  a.is(txtRow.storage_key, `${txt.body.id}.txt`);
  const got = await download(t, txt.body.id, admin);
  a.is(got.headers.get('content-type'), 'text/plain; charset=utf-8');
  a.is(got.bytes.toString('utf8'), notes);

  const markdown = '# Referral\n\nPlease see **Bella** — suspected cruciate injury. Ünïcödé ✓\n';
  const md = await upload(t, petId, { token: admin, file: { bytes: markdown, name: 'referral.md' }, fields: { kind: 'referral' } });
  a.is(md.status, 201);
  a.like(md.body, { contentType: 'text/markdown', kind: 'referral', textStatus: 'extracted', textLength: markdown.length });
  a.true(storedFiles(t).includes(`${md.body.id}.md`));

  const declared = await upload(t, petId, { token: admin, file: { bytes: '*care plan*', name: 'plan', type: 'text/markdown' } });
  a.is(declared.body.contentType, 'text/markdown');
  a.is(declared.body.contentTypeMismatch, false);
  a.is((await download(t, declared.body.id, admin)).headers.get('content-disposition'), `attachment; filename="plan.md"; filename*=UTF-8''plan.md`);

  // A UTF-8 BOM is fine; the stored text leaves it out.
  const bom = await upload(t, petId, {
    token: admin,
    file: { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello')]), name: 'bom.txt' },
  });
  a.is(bom.status, 201);
  a.is(bom.body.textLength, 5);
});

test('a PNG declared as application/pdf is stored as a PNG and the mismatch is reported; its download name gets .png', async (a) => {
  const res = await upload(t, petId, { token: admin, file: { bytes: png, name: 'scan.pdf', type: 'application/pdf' } });
  a.is(res.status, 201);
  a.like(res.body, { contentType: 'image/png', declaredContentType: 'application/pdf', contentTypeMismatch: true, filename: 'scan.pdf' });
  a.true(storedFiles(t).includes(`${res.body.id}.png`));
  const got = await download(t, res.body.id, admin);
  a.is(got.headers.get('content-type'), 'image/png');
  a.is(got.headers.get('content-disposition'), `attachment; filename="scan.pdf.png"; filename*=UTF-8''scan.pdf.png`);
});

test('a PDF that cannot be parsed is kept, with textStatus failed (the file is still the record)', async (a) => {
  const broken = Buffer.from('%PDF-1.7\nthis is not really a PDF at all\n%%EOF\n');
  const res = await upload(t, petId, { token: admin, file: { bytes: broken, name: 'damaged.pdf', type: 'application/pdf' } });
  a.is(res.status, 201);
  a.like(res.body, { contentType: 'application/pdf', textStatus: 'failed', textExtracted: false, textLength: 0, pageCount: null });
  a.deepEqual((await download(t, res.body.id, admin)).bytes, broken);
});

test('a PDF without a text layer is marked empty', async (a) => {
  const res = await upload(t, petId, { token: admin, file: { bytes: await makePdf(['']), name: 'blank.pdf' } });
  a.is(res.status, 201);
  a.like(res.body, { contentType: 'application/pdf', textStatus: 'empty', textExtracted: false, textLength: 0, pageCount: 1 });
});

test("the client's file name is kept only as sanitized metadata: no path, no control or bidi characters; downloads use RFC 6266", async (a) => {
  const sneaky = await upload(t, petId, { token: admin, file: { bytes: 'x', name: '../../etc/passwd' } });
  a.is(sneaky.status, 201);
  a.is(sneaky.body.filename, 'passwd');
  a.deepEqual(
    storedFiles(t).filter((f) => f.includes('passwd')),
    [],
  );
  a.is((await download(t, sneaky.body.id, admin)).headers.get('content-disposition'), `attachment; filename="passwd.txt"; filename*=UTF-8''passwd.txt`);

  // U+202E (right-to-left override) would show "invoice\u202Efdp.exe" as "invoiceexe.pdf".
  const bidi = await upload(t, petId, { token: admin, file: { bytes: await makePdf(['x']), name: 'invoice\u202efdp.exe' } });
  a.is(bidi.body.filename, 'invoicefdp.exe');
  a.is(
    (await download(t, bidi.body.id, admin)).headers.get('content-disposition'),
    `attachment; filename="invoicefdp.exe.pdf"; filename*=UTF-8''invoicefdp.exe.pdf`,
  );

  const unicode = await upload(t, petId, { token: admin, file: { bytes: png, name: 'Röntgen «Bella» 1.png' } });
  a.is(unicode.body.filename, 'Röntgen «Bella» 1.png');
  a.is(
    (await download(t, unicode.body.id, admin)).headers.get('content-disposition'),
    `attachment; filename="R_ntgen _Bella_ 1.png"; filename*=UTF-8''R%C3%B6ntgen%20%C2%ABBella%C2%BB%201.png`,
  );

  const long = await upload(t, petId, { token: admin, file: { bytes: png, name: `${'a'.repeat(400)}.png` } });
  a.is(long.body.filename.length, 200);
  a.true(long.body.filename.endsWith('a.png'));
});

test('ETag revalidation answers 304 without a body', async (a) => {
  const res = await upload(t, petId, { token: admin, file: { bytes: png, name: 'etag.png' } });
  const first = await download(t, res.body.id, admin);
  const again = await download(t, res.body.id, admin, { 'if-none-match': first.headers.get('etag') ?? '' });
  a.is(again.status, 304);
  a.is(again.bytes.length, 0);
  const other = await download(t, res.body.id, admin, { 'if-none-match': '"0000"' });
  a.is(other.status, 200);
});

test("a pet's documents list newest first with cursor paging and a kind filter; unknown pets are 404", async (a) => {
  const { pet } = await createHousehold(t);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await upload(t, pet.id, { token: admin, file: { bytes: `note ${i}`, name: `n${i}.txt` }, fields: { kind: i === 1 ? 'consent' : 'other' } });
    ids.push(res.body.id);
  }
  const first = await t.request('GET', `/v1/pets/${pet.id}/documents?limit=2`, { token: admin });
  a.is(first.status, 200);
  a.deepEqual(
    first.body.data.map((d: { id: string }) => d.id),
    [ids[2], ids[1]],
  );
  a.true(first.body.hasMore);
  const second = await t.request('GET', `/v1/pets/${pet.id}/documents?limit=2&cursor=${first.body.nextCursor}`, { token: admin });
  a.deepEqual(
    second.body.data.map((d: { id: string }) => d.id),
    [ids[0]],
  );
  a.false(second.body.hasMore);
  a.is(second.body.nextCursor, null);

  const consent = await t.request('GET', `/v1/pets/${pet.id}/documents?kind=consent`, { token: admin });
  a.deepEqual(
    consent.body.data.map((d: { id: string }) => d.id),
    [ids[1]],
  );

  a.is((await t.request('GET', `/v1/pets/${pet.id}/documents?kind=selfie`, { token: admin })).status, 400);
  a.is((await t.request('GET', `/v1/pets/${pet.id}/documents?limit=0`, { token: admin })).status, 400);
  a.is((await t.request('GET', '/v1/pets/pet_00000000000000000000000000/documents', { token: admin })).status, 404);
  a.is((await t.request('GET', '/v1/documents/doc_00000000000000000000000000', { token: admin })).status, 404);
  a.is((await t.request('GET', '/v1/documents/doc_00000000000000000000000000/content', { token: admin })).status, 404);
});

test('DELETE removes the row and the file; the document is then 404', async (a) => {
  const res = await upload(t, petId, { token: admin, file: { bytes: png, name: 'wrong.png' } });
  const id = res.body.id as string;
  a.true(storedFiles(t).includes(`${id}.png`));
  const del = await t.request('DELETE', `/v1/documents/${id}`, { token: admin });
  a.is(del.status, 200);
  a.deepEqual(del.body, { id, deleted: true });
  a.false(storedFiles(t).some((f) => f.startsWith(id)));
  a.is((await t.request('GET', `/v1/documents/${id}`, { token: admin })).status, 404);
  a.is((await t.request('DELETE', `/v1/documents/${id}`, { token: admin })).status, 404);
});

test('uploads are recorded in the audit trail with the new document id', async (a) => {
  const res = await upload(t, petId, { token: admin, file: { bytes: png, name: 'audit.png' } });
  const row = await db().selectFrom('audit_events').select(['route', 'status', 'resource_id']).where('resource_id', '=', res.body.id).executeTakeFirst();
  a.like(row, { route: 'POST /v1/pets/:id/documents', status: 201 });
});

test('text beyond 1,000,000 characters is stored whole on disk but cut in the index, marked truncated', async (a) => {
  const big = 'é'.repeat(600_000); // 1.2 M bytes, 600 k characters …
  const bytes = Buffer.from(big + 'x'.repeat(500_000)); // … plus 500 k more: 1.1 M characters
  const res = await upload(t, petId, { token: admin, file: { bytes, name: 'long.txt' } });
  a.is(res.status, 201);
  a.like(res.body, { textStatus: 'truncated', textExtracted: true, textLength: 1_000_000, sizeBytes: bytes.length });
  a.deepEqual((await download(t, res.body.id, admin)).bytes, bytes);
});

test.serial('temp files of uploads interrupted by a stop are swept once stale; fresh ones and stored files stay', async (a) => {
  const kept = await upload(t, petId, { token: admin, file: { bytes: png, name: 'kept.png' } });
  const files = new DocumentFiles(t.dataDir);
  const dir = await files.ensureDirectory('live');
  const stale = path.join(dir, '.upload-doc_stale.tmp');
  const fresh = path.join(dir, '.upload-doc_fresh.tmp');
  writeFileSync(stale, 'half');
  writeFileSync(fresh, 'half');
  const dayAgo = (Date.now() - 25 * 3600 * 1000) / 1000;
  utimesSync(stale, dayAgo, dayAgo);
  const before = storedFiles(t).filter((f) => !f.startsWith('.upload-'));
  a.is(await files.sweepStaleUploads('live', Date.now()), 1);
  a.false(storedFiles(t).includes('.upload-doc_stale.tmp'));
  a.true(storedFiles(t).includes('.upload-doc_fresh.tmp'));
  a.deepEqual(
    storedFiles(t).filter((f) => !f.startsWith('.upload-')),
    before,
  );
  a.true(before.includes(`${kept.body.id}.png`));
  await files.remove(fresh);
});
