import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { documentCount, download, makePdf, png, storedFiles, upload } from './document-helpers.js';

/** Auth (401/403), location scoping (404 across locations, before the body is read) and Idempotency-Key replay of uploads. */
let admin: string;
let locA: { id: string };
let locB: { id: string };
let parentA: { id: string };
let parentB: { id: string };
let petA: { id: string };
let petB: { id: string };
let docB: string;
let scopedA: TokenSet;
let reader: TokenSet;
let medicalOnly: TokenSet;

const t = useTestApp(test, { config: { documentMaxBytes: 64 * 1024 } });
test.before(async () => {
  admin = await t.adminToken();
  locA = await createLocation(t, { name: 'Location A' });
  locB = await createLocation(t, { name: 'Location B' });
  parentA = await createPetParent(t, locA.id);
  parentB = await createPetParent(t, locB.id);
  petA = await createPet(t, parentA.id, locA.id);
  petB = await createPet(t, parentB.id, locB.id);
  [scopedA, reader, medicalOnly] = await Promise.all([
    t.client({ name: 'A only', role: 'staff', scopes: ['pets'], locationIds: [locA.id] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['pets.read'] }),
    t.client({ name: 'medical', role: 'doctor', scopes: ['medical'] }),
  ]);
  const res = await upload(t, petB.id, { token: admin, file: { bytes: png, name: 'b.png' } });
  if (res.status !== 201) throw new Error(`setup upload: ${res.status}`);
  docB = res.body.id;
});

test.serial('no token or a bad token answers 401 on every document route', async (a) => {
  const noToken = await fetch(`${t.url}/v1/pets/${petA.id}/documents`, { method: 'POST', body: new FormData() });
  a.is(noToken.status, 401);
  a.truthy(noToken.headers.get('www-authenticate'));
  const bad = await upload(t, petA.id, { token: 'not-a-jwt', file: { bytes: png } });
  a.is(bad.status, 401);
  for (const path of [`/v1/pets/${petA.id}/documents`, `/v1/documents/${docB}`, `/v1/documents/${docB}/content`]) {
    a.is((await t.request('GET', path)).status, 401, path);
  }
  a.is((await t.request('DELETE', `/v1/documents/${docB}`)).status, 401);
  a.is(await documentCount(t), 1);
});

test.serial('pets.read may list and download but not upload or delete (403); a token without pets scope gets 403 on reads', async (a) => {
  const up = await upload(t, petA.id, { token: reader.accessToken, file: { bytes: png, name: 'r.png' } });
  a.is(up.status, 403);
  a.is(up.body.code, 'insufficient_scope');
  a.is((await t.request('DELETE', `/v1/documents/${docB}`, { token: reader.accessToken })).status, 403);
  a.is((await t.request('GET', `/v1/documents/${docB}`, { token: reader.accessToken })).status, 200);
  a.is((await download(t, docB, reader.accessToken)).status, 200);
  a.is((await t.request('GET', `/v1/pets/${petB.id}/documents`, { token: reader.accessToken })).status, 200);

  for (const path of [`/v1/pets/${petA.id}/documents`, `/v1/documents/${docB}`, `/v1/documents/${docB}/content`]) {
    const res = await t.request('GET', path, { token: medicalOnly.accessToken });
    a.is(res.status, 403, path);
    a.is(res.body.code, 'insufficient_scope');
  }
  a.is(await documentCount(t), 1);
  a.deepEqual(storedFiles(t), [`${docB}.png`]);
});

test.serial('a client scoped to location A gets 404 for a pet or document in B, on every route', async (a) => {
  const up = await upload(t, petB.id, { token: scopedA.accessToken, file: { bytes: png, name: 'x.png' } });
  a.is(up.status, 404);
  a.is(up.body.code, 'not_found');
  for (const path of [`/v1/pets/${petB.id}/documents`, `/v1/documents/${docB}`, `/v1/documents/${docB}/content`]) {
    const res = await t.request('GET', path, { token: scopedA.accessToken });
    a.is(res.status, 404, path);
  }
  a.is((await t.request('DELETE', `/v1/documents/${docB}`, { token: scopedA.accessToken })).status, 404);
  // Same answer as for a document that does not exist.
  const none = await t.request('GET', '/v1/documents/doc_00000000000000000000000000', { token: scopedA.accessToken });
  const hidden = await t.request('GET', `/v1/documents/${docB}`, { token: scopedA.accessToken });
  a.is(hidden.body.detail.replace(docB, '<id>'), none.body.detail.replace('doc_00000000000000000000000000', '<id>'));

  // Its own location works.
  const own = await upload(t, petA.id, { token: scopedA.accessToken, file: { bytes: png, name: 'a.png' } });
  a.is(own.status, 201);
  a.is((await download(t, own.body.id, scopedA.accessToken)).status, 200);
  const list = await t.request('GET', `/v1/pets/${petA.id}/documents`, { token: scopedA.accessToken });
  a.deepEqual(
    list.body.data.map((d: { id: string }) => d.id),
    [own.body.id],
  );
  a.is((await t.request('DELETE', `/v1/documents/${own.body.id}`, { token: scopedA.accessToken })).status, 200);
  a.deepEqual(storedFiles(t), [`${docB}.png`]);
});

test.serial('the pet is checked before the body is read: an oversized upload to an invisible pet answers 404, not 413', async (a) => {
  const res = await upload(t, petB.id, { token: scopedA.accessToken, file: { bytes: Buffer.alloc(256 * 1024, 0x61), name: 'big.txt' } });
  a.is(res.status, 404);
  const missing = await upload(t, 'pet_00000000000000000000000000', { token: admin, file: { bytes: Buffer.alloc(256 * 1024, 0x61), name: 'big.txt' } });
  a.is(missing.status, 404);
  a.is(missing.headers.get('connection'), 'close', 'the unread body is not drained on a keep-alive connection');
  a.deepEqual(storedFiles(t), [`${docB}.png`]);
});

test.serial('documents follow their pet: after the pet moves to B, the A-scoped client no longer sees them', async (a) => {
  const pet = await createPet(t, parentA.id, locA.id);
  const doc = await upload(t, pet.id, { token: scopedA.accessToken, file: { bytes: png, name: 'moving.png' } });
  a.is(doc.status, 201);
  const moved = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { locationId: locB.id, ownerId: parentB.id } });
  a.is(moved.status, 200);
  a.is((await t.request('GET', `/v1/documents/${doc.body.id}`, { token: scopedA.accessToken })).status, 404);
  a.is((await t.request('GET', `/v1/documents/${doc.body.id}`, { token: admin })).status, 200);
  await t.request('DELETE', `/v1/documents/${doc.body.id}`, { token: admin });
});

test.serial('Idempotency-Key: the same file and fields replay the first document, with one file on disk', async (a) => {
  const pdf = await makePdf(['Consent form signed']);
  const send = (key: string, fields: Record<string, string> = { title: 'Consent', kind: 'consent' }, bytes = pdf) =>
    upload(t, petA.id, { token: admin, idempotencyKey: key, file: { bytes, name: 'consent.pdf', type: 'application/pdf' }, fields });
  const first = await send('upload-1');
  a.is(first.status, 201);
  a.is(first.headers.get('idempotent-replayed'), null);
  const filesAfterFirst = storedFiles(t);

  const replay = await send('upload-1');
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.deepEqual(storedFiles(t), filesAfterFirst, 'no second file, no temp file');
  a.is(storedFiles(t).filter((f) => f.endsWith('.pdf')).length, 1);

  // Same key, another file or other fields: 422, and nothing new is kept.
  const otherFile = await send('upload-1', { title: 'Consent', kind: 'consent' }, await makePdf(['Another form']));
  a.is(otherFile.status, 422);
  a.is(otherFile.body.code, 'idempotency_key_mismatch');
  const otherFields = await send('upload-1', { title: 'Consent (signed)', kind: 'consent' });
  a.is(otherFields.status, 422);
  a.deepEqual(storedFiles(t), filesAfterFirst);

  // A new key is a new document.
  const second = await send('upload-2');
  a.is(second.status, 201);
  a.not(second.body.id, first.body.id);
  a.is(storedFiles(t).length, filesAfterFirst.length + 1);
  const rows = await t.stores.get('live').db.selectFrom('documents').select('id').where('pet_id', '=', petA.id).execute();
  a.is(rows.length, 2);
});

test.serial('Idempotency-Key on DELETE replays the first answer', async (a) => {
  const doc = await upload(t, petA.id, { token: admin, file: { bytes: png, name: 'del.png' } });
  const first = await t.request('DELETE', `/v1/documents/${doc.body.id}`, { token: admin, idempotencyKey: 'del-1' });
  a.is(first.status, 200);
  const again = await t.request('DELETE', `/v1/documents/${doc.body.id}`, { token: admin, idempotencyKey: 'del-1' });
  a.is(again.status, 200);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
});

test.serial('live and sandbox keep their documents apart', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const res = await upload(t, 'pet_demo_bella', { token: sandboxAdmin, file: { bytes: png, name: 'sandbox.png' } });
  a.is(res.status, 201);
  a.deepEqual(storedFiles(t, 'sandbox'), [`${res.body.id}.png`]);
  a.false(storedFiles(t, 'live').includes(`${res.body.id}.png`));
  a.is((await t.request('GET', `/v1/documents/${res.body.id}`, { token: admin })).status, 404);
  a.is((await t.request('GET', `/v1/documents/${docB}`, { token: sandboxAdmin })).status, 404);
});

test.serial('a sandbox reset removes sandbox documents, rows and files, and leaves live ones', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  a.true(storedFiles(t, 'sandbox').length > 0);
  const liveFiles = storedFiles(t, 'live');
  const reset = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin });
  a.is(reset.status, 200);
  a.is(await documentCount(t, 'sandbox'), 0);
  a.deepEqual(storedFiles(t, 'sandbox'), []);
  a.deepEqual(storedFiles(t, 'live'), liveFiles);
});
