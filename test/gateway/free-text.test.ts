import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { png, upload } from '../documents/document-helpers.js';
import { assertProblem, fieldsOf, uniqueName } from './gateway-support.js';

/**
 * What a free-text field takes (issue 24 item 2): no C0 controls (multi-line fields keep tab, LF and
 * CR; a document's text also form feed), no DEL or C1 controls, no unpaired surrogates, and in names
 * no bidirectional override, embedding or isolate controls. One rule in the validator for every
 * JSON and query string; ids, enums, dates and uploaded files keep their own rules.
 */
let admin: string;
let household: Awaited<ReturnType<typeof createHousehold>>;

const t = useTestApp(test, { jobs: false });
test.before(async () => {
  admin = await t.adminToken();
  household = await createHousehold(t);
});

const petBody = (extra: Record<string, unknown>) => ({
  name: uniqueName('Text'),
  species: 'dog',
  breed: 'Beagle',
  ownerId: household.parent.id,
  locationId: household.location.id,
  ...extra,
});

test('POST /v1/pets: NUL, BEL, U+202E, C1, DEL and lone surrogates in the name are 400 on name; nothing is written', async (a) => {
  const base = uniqueName('Rex');
  for (const name of [
    `${base}\u0000\u202e\ud800`,
    `${base}\u0000`,
    `${base}\u0007`,
    `${base}\u202e`,
    `${base}\u2066x\u2069`,
    `${base}\u202a`,
    `${base}\ud800`,
    `${base}\udc00x`,
    `${base}\u0085`,
    `${base}\u007f`,
    `${base}\tx`,
    `${base}\nx`,
  ]) {
    const res = await t.request('POST', '/v1/pets', { token: admin, body: petBody({ name }) });
    assertProblem(a, res, 400, 'validation_failed', '/v1/pets');
    a.deepEqual(fieldsOf(res), ['name'], JSON.stringify(name));
    a.regex(res.body.errors[0].message, /U\+[0-9A-F]{4}/, 'the message names the character');
  }
  a.is((await t.stores.get('live').db.selectFrom('pets').select('id').where('name', 'like', `${base}%`).execute()).length, 0);
  const patched = await t.request('PATCH', `/v1/pets/${household.pet.id}`, { token: admin, body: { name: 'Bella\u202egnp.exe' } });
  assertProblem(a, patched, 400, 'validation_failed');
  a.deepEqual(fieldsOf(patched), ['name']);
  // Other fields refuse controls too; bidi controls are refused in names only.
  const breed = await t.request('POST', '/v1/pets', { token: admin, body: petBody({ breed: 'Beagle\u0000' }) });
  assertProblem(a, breed, 400, 'validation_failed');
  a.deepEqual(fieldsOf(breed), ['breed']);
});

test('well-formed text of any script is kept as sent: emoji (surrogate pairs), right-to-left names, accents', async (a) => {
  for (const name of [`Rex 🐕 ${uniqueName('')}`, `ريكس ${uniqueName('')}`, `רקס ${uniqueName('')}`, `Zoë Ünal ${uniqueName('')}`]) {
    const res = await t.request('POST', '/v1/pets', { token: admin, body: petBody({ name, breed: 'Shiba \u202bInu\u202c' }) });
    a.is(res.status, 201, res.text);
    a.is(res.body.name, name);
  }
});

test('multi-line fields keep tab and line breaks, and refuse every other control character, by its field path', async (a) => {
  const pet = household.pet.id;
  const note = await t.request('POST', `/v1/pets/${pet}/medical`, { token: admin, body: { kind: 'note', text: 'Seen\tfor: limp\r\nGiven: rest\fPage two' } });
  a.is(note.status, 201, note.text);
  a.is(note.body.text, 'Seen\tfor: limp\r\nGiven: rest\fPage two');
  for (const text of ['Seen\u0007', 'Seen\u0000', 'Seen\u001b[31m', 'Seen\ud83d']) {
    const res = await t.request('POST', `/v1/pets/${pet}/medical`, { token: admin, body: { kind: 'note', text } });
    assertProblem(a, res, 400, 'validation_failed');
    a.deepEqual(fieldsOf(res), ['text'], JSON.stringify(text));
  }
  // A one-line field refuses line breaks.
  const dosage = await t.request('POST', `/v1/pets/${pet}/medical`, {
    token: admin,
    body: { kind: 'prescription', medication: 'Meloxicam', dosage: '1 mg\nthen 2 mg' },
  });
  assertProblem(a, dosage, 400, 'validation_failed');
  a.deepEqual(fieldsOf(dosage), ['dosage']);
  // Nested fields are named by their path.
  const invoice = await t.request('POST', '/v1/invoices', {
    token: admin,
    body: {
      parentId: household.parent.id,
      locationId: household.location.id,
      lines: [
        { description: 'Exam\nfollow-up', quantity: 1, unitAmount: 100 },
        { description: 'Bad\u0000', quantity: 1, unitAmount: 100 },
      ],
    },
  });
  assertProblem(a, invoice, 400, 'validation_failed', '/v1/invoices');
  a.deepEqual(fieldsOf(invoice), ['lines[1].description']);
  const described = await t.request('POST', '/v1/ai/services', {
    token: admin,
    body: { name: uniqueName('Protocols'), description: 'SOPs\nline two\u0000', locationIds: [household.location.id] },
  });
  assertProblem(a, described, 400, 'validation_failed');
  a.deepEqual(fieldsOf(described), ['description']);
});

test('query strings follow the same rules', async (a) => {
  for (const [query, field] of [
    ['name=Rex%00', 'name'],
    ['name=Rex%E2%80%AE', 'name'],
    ['name=Rex%C2%85', 'name'],
  ] as const) {
    const res = await t.request('GET', `/v1/pets?${query}`, { token: admin });
    assertProblem(a, res, 400, 'validation_failed', '/v1/pets');
    a.deepEqual(fieldsOf(res), [field], query);
  }
  a.is((await t.request('GET', `/v1/pets?name=${encodeURIComponent('ريكس')}`, { token: admin })).status, 200);
});

test('ids, enums, dates, cursors and uploaded files keep their own rules', async (a) => {
  // An enum or an id with a control character is refused by its own rule, as before.
  const species = await t.request('POST', '/v1/pets', { token: admin, body: petBody({ species: 'dog\u0000' }) });
  assertProblem(a, species, 400, 'validation_failed');
  a.deepEqual(fieldsOf(species), ['species']);
  a.regex(species.body.errors[0].message, /must be one of/);
  const owner = await t.request('POST', '/v1/pets', { token: admin, body: petBody({ ownerId: `${household.parent.id}\u0000` }) });
  a.deepEqual(fieldsOf(owner), ['ownerId']);
  // A cursor (opaque) pages as before.
  for (let i = 0; i < 3; i++) await t.request('POST', '/v1/pets', { token: admin, body: petBody({}) });
  const first = await t.request('GET', '/v1/pets?limit=2', { token: admin });
  const second = await t.request('GET', `/v1/pets?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: admin });
  a.is(second.status, 200, second.text);
  // Files in a multipart upload are judged by their content, not by the text rules: a text file with
  // a form feed, and a PNG whose bytes are all control characters to a text reader.
  const text = await upload(t, household.pet.id, {
    token: admin,
    file: { bytes: 'Page one\fPage two\tend\n', name: 'notes.txt', type: 'text/plain' },
    fields: { title: 'Visit notes' },
  });
  a.is(text.status, 201, JSON.stringify(text.body));
  const image = await upload(t, household.pet.id, { token: admin, file: { bytes: png, name: 'scan.png', type: 'image/png' }, fields: { title: 'Scan' } });
  a.is(image.status, 201, JSON.stringify(image.body));
  // A knowledge document's JSON text keeps its page breaks (form feed).
  const service = await t.request('POST', '/v1/ai/services', { token: admin, body: { name: uniqueName('Knowledge'), locationIds: [household.location.id] } });
  a.is(service.status, 201, service.text);
  const doc = await t.request('POST', `/v1/ai/services/${service.body.id}/documents`, {
    token: admin,
    body: { title: 'Protocols', text: 'Fasting.\fRecovery.\tDone.' },
  });
  a.true(doc.status === 202 || doc.status === 201, doc.text);
});

test('OpenAPI says it: each text field its kind (x-text) and rule, date-times their offsets, the headers their empty form', async (a) => {
  const doc = (await t.request('GET', '/openapi.json')).body;
  const deref = (node: { $ref?: string }) =>
    node.$ref
      ? node.$ref
          .slice(2)
          .split('/')
          .reduce((n: Record<string, any>, k: string) => n[k], doc)
      : (node as Record<string, any>);
  const petSchema = deref(doc.paths['/v1/pets'].post.requestBody.content['application/json'].schema);
  a.is(petSchema.properties.name['x-text'], 'name');
  a.regex(petSchema.properties.name.description, /U\+202A–U\+202E/);
  a.is(petSchema.properties.breed['x-text'], 'line');
  a.is(petSchema.properties.ownerId['x-text'], undefined, 'an id spelt out by its pattern is not text');
  const notes = deref(doc.paths['/v1/appointments'].post.requestBody.content['application/json'].schema).properties;
  a.is(notes.notes.anyOf[0]['x-text'], 'multiline');
  a.regex(notes.startsAt.description, /−14:00…\+14:00/);
  const since = doc.paths['/v1/events'].get.parameters.find((p: { name: string }) => p.name === 'since');
  a.regex(since.description, /years 0001–9999/);
  a.regex(doc.components.parameters['Idempotency-Key'].description, /empty/);
  a.regex(doc.components.parameters['Petcare-Version'].description, /empty/);
  a.regex(doc.info.description, /Input rules/);
});
