import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { useTestApp, type TokenSet } from '../helpers/test-app.js';
import { form } from '../ai/ai-support.js';

/**
 * A knowledge document made from a pet document follows its pet (a child row follows its parent):
 * once the pet moves to another location, a client confined to the old one no longer reads the
 * document, its chunks through a knowledge query, its title in the service's list or its count; moving the pet
 * back shows it again (a read rule: nothing is deleted).
 */
let admin: string;
let downtown: { id: string };
let uptown: { id: string };
let confined: TokenSet;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  downtown = await createLocation(t, { name: 'Downtown' });
  uptown = await createLocation(t, { name: 'Uptown' });
  confined = await t.client({ name: 'Downtown AI', role: 'doctor', scopes: ['ai.read', 'pets.read', 'medical.read'], locationIds: [downtown.id] });
});

const question = { question: 'What did the histopathology say about the mastocytoma margins?' };

test('a pet document in a knowledge service leaves the old location’s answers, list and reads when its pet moves', async (a) => {
  const parent = await createPetParent(t, downtown.id);
  const pet = await createPet(t, parent.id, downtown.id);
  const upload = await t.request('POST', `/v1/pets/${pet.id}/documents`, {
    token: admin,
    ...form(Buffer.from('Histopathology: the mastocytoma margins were clean; recheck in three months.'), 'histopathology.txt', 'text/plain'),
  });
  a.is(upload.status, 201, upload.text);
  const service = await t.request('POST', '/v1/ai/services', { token: admin, body: { name: 'Downtown records', locationIds: [downtown.id] } });
  a.is(service.status, 201, service.text);
  const added = await t.request('POST', `/v1/ai/services/${service.body.id}/documents`, { token: admin, body: { documentId: upload.body.id } });
  a.is(added.status, 202, added.text);
  const docPath = `/v1/ai/services/${service.body.id}/documents/${added.body.id}`;
  await eventually(async () => (await t.request('GET', docPath, { token: admin })).body.status === 'indexed', {
    timeoutMs: 60_000,
    what: 'the knowledge document to be indexed',
  });

  const ask = (token: string) => t.request('POST', `/v1/ai/services/${service.body.id}/query`, { token, body: question });
  const listed = async (token: string) =>
    ((await t.request('GET', `/v1/ai/services/${service.body.id}/documents?limit=100`, { token })).body.data as Array<{ id: string }>).map((d) => d.id);

  const counted = async (token: string) => (await t.request('GET', `/v1/ai/services/${service.body.id}`, { token })).body.documentCount as number;

  // While the pet is downtown, the downtown client reads it all.
  const before = await ask(confined.accessToken);
  a.is(before.status, 200, before.text);
  a.false(before.body.abstained, before.text);
  a.is(before.body.citations[0]?.documentId, added.body.id);
  a.is((await t.request('GET', docPath, { token: confined.accessToken })).status, 200);
  a.true((await listed(confined.accessToken)).includes(added.body.id));
  a.is(await counted(confined.accessToken), 1);

  // The pet moves uptown: its document is no longer the downtown client's to read, in any form.
  const moved = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { locationId: uptown.id } });
  a.is(moved.status, 200, moved.text);
  a.is((await t.request('GET', `/v1/documents/${upload.body.id}`, { token: confined.accessToken })).status, 404);
  const after = await ask(confined.accessToken);
  a.is(after.status, 200, after.text);
  a.true(after.body.abstained, after.text);
  a.deepEqual(after.body.citations, []);
  a.notRegex(after.text, /mastocytoma margins were clean/);
  a.is((await t.request('GET', docPath, { token: confined.accessToken })).status, 404);
  a.false((await listed(confined.accessToken)).includes(added.body.id));
  a.is(await counted(confined.accessToken), 0, 'nor counts it');
  // Nor does the service quote it to anyone: its answers are readable by its locations' staff.
  const adminAfter = await ask(admin);
  a.deepEqual(adminAfter.body.citations, [], adminAfter.text);
  a.is((await t.request('GET', docPath, { token: admin })).status, 200, 'a tenant-wide caller still sees the row');
  a.is(await counted(admin), 1);

  // Back downtown, it is the downtown client's again.
  a.is((await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { locationId: downtown.id } })).status, 200);
  const back = await ask(confined.accessToken);
  a.is(back.body.citations[0]?.documentId, added.body.id, back.text);
  a.is((await t.request('GET', docPath, { token: confined.accessToken })).status, 200);
});
