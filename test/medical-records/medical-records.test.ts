import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';

/** GET/POST /v1/pets/:id/medical, amendments and GET /v1/medical-records/:id. */
const recordKeys = [
  'id',
  'petId',
  'kind',
  'text',
  'code',
  'medication',
  'dosage',
  'frequency',
  'durationDays',
  'weightKg',
  'allergen',
  'severity',
  'amends',
  'amendmentReason',
  'supersededBy',
  'locationId',
  'recordedBy',
  'createdAt',
  'externalId',
];
const empty = {
  text: null,
  code: null,
  medication: null,
  dosage: null,
  frequency: null,
  durationDays: null,
  weightKg: null,
  allergen: null,
  severity: null,
  amends: null,
  amendmentReason: null,
  supersededBy: null,
  externalId: null,
};

let admin: string;
let doctor: TokenSet; // doctor, medical
let staff: TokenSet; // staff, pets + medical.read
let petsOnly: TokenSet; // staff, pets (no medical scope)
let doctorA: TokenSet; // doctor, medical, location A only
let locationA: { id: string };
let locationB: { id: string };
let petA: { id: string };
let petB: { id: string };

const now = Date.parse('2026-06-15T12:00:00Z');

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  locationA = await createLocation(t, { name: 'A' });
  locationB = await createLocation(t, { name: 'B' });
  petA = await createPet(t, (await createPetParent(t, locationA.id)).id, locationA.id);
  petB = await createPet(t, (await createPetParent(t, locationB.id)).id, locationB.id);
  [doctor, staff, petsOnly, doctorA] = await Promise.all([
    t.client({ name: 'doctor', role: 'doctor', scopes: ['medical'] }),
    t.client({ name: 'front desk', role: 'staff', scopes: ['pets', 'medical.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
    t.client({ name: 'doctor at A', role: 'doctor', scopes: ['medical', 'pets'], locationIds: [locationA.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const write = (petId: string, body: unknown, token = doctor.accessToken, idempotencyKey?: string) =>
  t.request('POST', `/v1/pets/${petId}/medical`, { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const amend = (petId: string, recordId: string, body: unknown, token = doctor.accessToken, idempotencyKey?: string) =>
  t.request('POST', `/v1/pets/${petId}/medical/${recordId}/amendments`, { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const list = (petId: string, query = '', token = doctor.accessToken) => t.request('GET', `/v1/pets/${petId}/medical${query}`, { token });
const freshPet = async (locationId = locationA.id) => createPet(t, (await createPetParent(t, locationId)).id, locationId);

// ---------------------------------------------------------------- happy path, each kind

test('a doctor writes each kind; the author and every documented field come back', async (a) => {
  const pet = await freshPet();
  const bodies = [
    { kind: 'note', text: 'Bright and alert. Mild tartar.' },
    { kind: 'diagnosis', text: 'Otitis externa, left ear', code: 'VeNom-1234' },
    { kind: 'prescription', medication: 'Amoxicillin', dosage: '250 mg', frequency: 'twice daily', durationDays: 10, text: 'With food' },
    { kind: 'weight', weightKg: 12.4 },
    { kind: 'allergy', allergen: 'Penicillin', severity: 'severe', text: 'Anaphylaxis in 2024' },
  ];
  const created = [];
  for (const body of bodies) {
    const res = await write(pet.id, body);
    a.is(res.status, 201, res.text);
    a.regex(res.body.id, /^med_[a-z0-9]{26}$/);
    a.deepEqual(Object.keys(res.body).sort(), [...recordKeys].sort());
    const { kind, code, ...rest } = body as Record<string, unknown>;
    a.deepEqual(res.body, {
      ...empty,
      ...rest,
      ...(code !== undefined ? { code } : {}),
      id: res.body.id,
      petId: pet.id,
      kind,
      locationId: locationA.id,
      recordedBy: { clientId: doctor.id, role: 'doctor' },
      createdAt: new Date(now).toISOString(),
    });
    created.push(res.body);
  }

  const page = await list(pet.id, '', staff.accessToken);
  a.is(page.status, 200);
  a.deepEqual(page.body, { data: [...created].reverse(), nextCursor: null, hasMore: false });
  const one = await t.request('GET', `/v1/medical-records/${created[2].id}`, { token: staff.accessToken });
  a.is(one.status, 200);
  a.deepEqual(one.body, created[2]);
});

test('an admin may write too, and is recorded as admin', async (a) => {
  const res = await write(petA.id, { kind: 'note', text: 'Admin note' }, admin);
  a.is(res.status, 201, res.text);
  a.is(res.body.recordedBy.role, 'admin');
});

test('the list pages newest first and filters by kind', async (a) => {
  const pet = await freshPet();
  const ids: string[] = [];
  for (const body of [
    { kind: 'weight', weightKg: 10 },
    { kind: 'note', text: 'one' },
    { kind: 'weight', weightKg: 10.5 },
    { kind: 'note', text: 'two' },
    { kind: 'weight', weightKg: 11 },
  ])
    ids.push((await write(pet.id, body)).body.id);
  const first = await list(pet.id, '?limit=2');
  a.deepEqual(
    first.body.data.map((r: { id: string }) => r.id),
    [ids[4], ids[3]],
  );
  a.true(first.body.hasMore);
  const second = await list(pet.id, `?limit=2&cursor=${first.body.nextCursor}`);
  a.deepEqual(
    second.body.data.map((r: { id: string }) => r.id),
    [ids[2], ids[1]],
  );
  const third = await list(pet.id, `?limit=2&cursor=${second.body.nextCursor}`);
  a.deepEqual(
    third.body.data.map((r: { id: string }) => r.id),
    [ids[0]],
  );
  a.false(third.body.hasMore);

  const weights = await list(pet.id, '?kind=weight');
  a.deepEqual(
    weights.body.data.map((r: { weightKg: number }) => r.weightKg),
    [11, 10.5, 10],
  );
  const allergies = await list(pet.id, '?kind=allergy');
  a.deepEqual(allergies.body.data, []);
});

// ---------------------------------------------------------------- amendments

test('an amendment keeps the original: both are listed, linked by amends and supersededBy', async (a) => {
  const pet = await freshPet();
  const original = await write(pet.id, { kind: 'prescription', medication: 'Amoxicillin', dosage: '2500 mg', frequency: 'twice daily' });
  a.is(original.status, 201);
  const fix = await amend(pet.id, original.body.id, { reason: 'Dosage typo', medication: 'Amoxicillin', dosage: '250 mg', frequency: 'twice daily' });
  a.is(fix.status, 201, fix.text);
  a.like(fix.body, {
    kind: 'prescription',
    petId: pet.id,
    medication: 'Amoxicillin',
    dosage: '250 mg',
    frequency: 'twice daily',
    amends: original.body.id,
    amendmentReason: 'Dosage typo',
    supersededBy: null,
    recordedBy: { clientId: doctor.id, role: 'doctor' },
  });

  // The original is unchanged except that it now names its amendment.
  const before = await t.request('GET', `/v1/medical-records/${original.body.id}`, { token: doctor.accessToken });
  a.deepEqual(before.body, { ...original.body, supersededBy: fix.body.id });
  const all = await list(pet.id);
  a.deepEqual(
    all.body.data.map((r: { id: string }) => r.id),
    [fix.body.id, original.body.id],
  );
  a.is(all.body.data[1].dosage, '2500 mg');
  a.is(all.body.data[1].supersededBy, fix.body.id);

  // current=true leaves out superseded versions.
  const current = await list(pet.id, '?current=true');
  a.deepEqual(
    current.body.data.map((r: { id: string }) => r.id),
    [fix.body.id],
  );
  const explicitAll = await list(pet.id, '?current=false');
  a.is(explicitAll.body.data.length, 2);
});

test('only the current version can be amended: amendments form a chain', async (a) => {
  const pet = await freshPet();
  const original = await write(pet.id, { kind: 'weight', weightKg: 120 });
  const first = await amend(pet.id, original.body.id, { reason: 'Grams, not kg', weightKg: 0.12 });
  a.is(first.status, 201);
  const again = await amend(pet.id, original.body.id, { reason: 'Another fix', weightKg: 12 });
  a.is(again.status, 409);
  a.is(again.body.code, 'conflict');
  a.is(again.body.detail, `Medical record '${original.body.id}' was already amended by '${first.body.id}'; amend the current version instead.`);
  const second = await amend(pet.id, first.body.id, { reason: 'Scale was wrong', weightKg: 12 });
  a.is(second.status, 201);
  a.is(second.body.amends, first.body.id);
  const records = (await list(pet.id)).body.data as Array<{ id: string; supersededBy: string | null; weightKg: number }>;
  a.deepEqual(
    records.map((r) => [r.weightKg, r.supersededBy]),
    [
      [12, null],
      [0.12, second.body.id],
      [120, first.body.id],
    ],
  );
});

test('an amendment is checked against the kind of the original', async (a) => {
  const pet = await freshPet();
  const allergy = await write(pet.id, { kind: 'allergy', allergen: 'Chicken', severity: 'mild' });
  const cases: Array<[unknown, string[]]> = [
    [{ allergen: 'Chicken', severity: 'moderate' }, ['reason']],
    [{ reason: '   ', allergen: 'Chicken', severity: 'moderate' }, ['reason']],
    [{ reason: 'x'.repeat(1001), allergen: 'Chicken', severity: 'moderate' }, ['reason']],
    [{ reason: 'Worse', severity: 'moderate' }, ['allergen']],
    [{ reason: 'Worse', allergen: 'Chicken', severity: 'moderate', medication: 'x' }, ['medication']],
    [{ reason: 'Worse', allergen: 'Chicken', severity: 'moderate', kind: 'note' }, ['kind']],
    [{ reason: 'Worse', allergen: 'Chicken', severity: 'catastrophic' }, ['severity']],
  ];
  for (const [body, fields] of cases) {
    const res = await amend(pet.id, allergy.body.id, body);
    a.is(res.status, 400, JSON.stringify(body));
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), fields, JSON.stringify(body));
  }
  const ok = await amend(pet.id, allergy.body.id, { reason: 'Worse reaction seen', allergen: 'Chicken', severity: 'moderate', text: 'Hives' });
  a.is(ok.status, 201);
  a.like(ok.body, { kind: 'allergy', allergen: 'Chicken', severity: 'moderate', text: 'Hives', amends: allergy.body.id });
});

test('amending a record of another pet, or one that does not exist, answers 404', async (a) => {
  const pet = await freshPet();
  const other = await freshPet();
  const record = await write(pet.id, { kind: 'note', text: 'Mine' });
  const wrongPet = await amend(other.id, record.body.id, { reason: 'x', text: 'Theirs' });
  a.is(wrongPet.status, 404);
  a.is(wrongPet.body.detail, `No medical record with id '${record.body.id}' exists.`);
  a.is((await amend(pet.id, 'med_00000000000000000000000000', { reason: 'x', text: 'y' })).status, 404);
  a.is((await amend('pet_00000000000000000000000000', record.body.id, { reason: 'x', text: 'y' })).status, 404);
});

// ---------------------------------------------------------------- validation

test('invalid bodies answer 400 naming the field', async (a) => {
  const cases: Array<[unknown, string[]]> = [
    [{}, ['kind']],
    [{ kind: 'surgery', text: 'x' }, ['kind']],
    [{ kind: 'note' }, ['text']],
    [{ kind: 'note', text: '' }, ['text']],
    [{ kind: 'note', text: ' \n ' }, ['text']],
    [{ kind: 'note', text: 'x'.repeat(10_001) }, ['text']],
    [{ kind: 'note', text: 'x', medication: 'Aspirin' }, ['medication']],
    [{ kind: 'note', text: 'x', author: 'me' }, ['author']],
    [{ kind: 'note', text: 'x', amends: 'med_x' }, ['amends']],
    [{ kind: 'diagnosis', code: 'A1' }, ['text']],
    [{ kind: 'diagnosis', text: 'x', code: 'C'.repeat(51) }, ['code']],
    [{ kind: 'prescription', medication: 'Amoxicillin' }, ['dosage']],
    [{ kind: 'prescription', dosage: '5 mg' }, ['medication']],
    [{ kind: 'prescription', medication: 'A', dosage: '5 mg', durationDays: 0 }, ['durationDays']],
    [{ kind: 'prescription', medication: 'A', dosage: '5 mg', durationDays: 2.5 }, ['durationDays']],
    [{ kind: 'prescription', medication: 'M'.repeat(201), dosage: '5 mg' }, ['medication']],
    [{ kind: 'weight' }, ['weightKg']],
    [{ kind: 'weight', weightKg: 0 }, ['weightKg']],
    [{ kind: 'weight', weightKg: -3 }, ['weightKg']],
    [{ kind: 'weight', weightKg: '12' }, ['weightKg']],
    [{ kind: 'weight', weightKg: 5000 }, ['weightKg']],
    [{ kind: 'weight', weightKg: 5, severity: 'mild' }, ['severity']],
    [{ kind: 'allergy', allergen: 'Pollen' }, ['severity']],
    [{ kind: 'allergy', allergen: 'Pollen', severity: 'extreme' }, ['severity']],
  ];
  for (const [body, fields] of cases) {
    const res = await write(petA.id, body);
    a.is(res.status, 400, JSON.stringify(body).slice(0, 100));
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), fields, JSON.stringify(body).slice(0, 100));
  }
  const wrongKind = await write(petA.id, { kind: 'surgery', text: 'x' });
  a.deepEqual(wrongKind.body.errors, [{ field: 'kind', message: 'must be one of: note, diagnosis, prescription, weight, allergy' }]);
  const foreign = await write(petA.id, { kind: 'note', text: 'x', medication: 'Aspirin' });
  a.deepEqual(foreign.body.errors, [{ field: 'medication', message: 'is not a recognised field' }]);
  const missing = await write(petA.id, { kind: 'prescription', medication: 'A' });
  a.deepEqual(missing.body.errors, [{ field: 'dosage', message: 'is required' }]);
});

test('list query parameters are validated; an unknown pet answers 404', async (a) => {
  for (const query of ['?kind=surgery', '?limit=0', '?current=yes', '?order=asc', '?cursor=zzz']) {
    a.is((await list(petA.id, query)).status, 400, query);
  }
  a.is((await list('pet_00000000000000000000000000')).status, 404);
  a.is((await write('pet_00000000000000000000000000', { kind: 'note', text: 'x' })).status, 404);
  a.is((await t.request('GET', '/v1/medical-records/med_00000000000000000000000000', { token: doctor.accessToken })).status, 404);
});

// ---------------------------------------------------------------- auth

test('401 without a token', async (a) => {
  a.is((await t.request('GET', `/v1/pets/${petA.id}/medical`)).status, 401);
  a.is((await t.request('POST', `/v1/pets/${petA.id}/medical`, { body: { kind: 'note', text: 'x' } })).status, 401);
});

test('staff (medical.read at most) can read but not write or amend: 403; a doctor can', async (a) => {
  const record = await write(petA.id, { kind: 'note', text: 'Doctor note' });
  a.is(record.status, 201);
  const staffWrite = await write(petA.id, { kind: 'note', text: 'Staff note' }, staff.accessToken);
  a.is(staffWrite.status, 403);
  a.is(staffWrite.body.code, 'insufficient_scope');
  const staffAmend = await amend(petA.id, record.body.id, { reason: 'x', text: 'y' }, staff.accessToken);
  a.is(staffAmend.status, 403);
  a.is((await list(petA.id, '', staff.accessToken)).status, 200);
  a.is((await t.request('GET', `/v1/medical-records/${record.body.id}`, { token: staff.accessToken })).status, 200);
});

test('a client without a medical scope cannot read medical records', async (a) => {
  const record = await write(petA.id, { kind: 'note', text: 'Private' });
  for (const res of [
    await list(petA.id, '', petsOnly.accessToken),
    await t.request('GET', `/v1/medical-records/${record.body.id}`, { token: petsOnly.accessToken }),
  ]) {
    a.is(res.status, 403);
    a.is(res.body.code, 'insufficient_scope');
  }
});

test('a doctor token asking only for medical.read cannot write', async (a) => {
  const res = await t.token(doctor.clientId, doctor.clientSecret, 'medical.read');
  a.is(res.status, 200);
  const readOnly = res.body.access_token as string;
  a.is((await list(petA.id, '', readOnly)).status, 200);
  const denied = await write(petA.id, { kind: 'note', text: 'x' }, readOnly);
  a.is(denied.status, 403);
  a.is(denied.body.code, 'insufficient_scope');
});

// ---------------------------------------------------------------- location scoping

test('a client scoped to location A gets 404 on the medical records of a pet in B', async (a) => {
  const inB = await write(petB.id, { kind: 'diagnosis', text: 'Hip dysplasia' });
  a.is(inB.status, 201);
  const responses = [
    await list(petB.id, '', doctorA.accessToken),
    await write(petB.id, { kind: 'note', text: 'x' }, doctorA.accessToken),
    await amend(petB.id, inB.body.id, { reason: 'x', text: 'y' }, doctorA.accessToken),
    await t.request('GET', `/v1/medical-records/${inB.body.id}`, { token: doctorA.accessToken }),
  ];
  for (const res of responses) {
    a.is(res.status, 404);
    a.is(res.body.code, 'not_found');
  }
  // Naming B's record under A's pet is a 404 too.
  a.is((await amend(petA.id, inB.body.id, { reason: 'x', text: 'y' }, doctorA.accessToken)).status, 404);
  // Nothing was written in B by the refused calls.
  const rows = await db().selectFrom('medical_records').select('id').where('pet_id', '=', petB.id).execute();
  a.is(rows.length, 1);
  // Its own location works.
  a.is((await write(petA.id, { kind: 'note', text: 'ok' }, doctorA.accessToken)).status, 201);
  a.is((await list(petA.id, '', doctorA.accessToken)).status, 200);
});

// ---------------------------------------------------------------- idempotency and events

test.serial('Idempotency-Key: replays of a record and of an amendment write once and answer the first response', async (a) => {
  const pet = await freshPet();
  const body = { kind: 'weight', weightKg: 8.2 };
  const first = await write(pet.id, body, doctor.accessToken, 'med-key-1');
  const replay = await write(pet.id, body, doctor.accessToken, 'med-key-1');
  a.is(first.status, 201);
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const mismatch = await write(pet.id, { kind: 'weight', weightKg: 8.3 }, doctor.accessToken, 'med-key-1');
  a.is(mismatch.status, 422);
  a.is(mismatch.body.code, 'idempotency_key_mismatch');

  const fix = { reason: 'Wrong pet on the scale', weightKg: 6.1 };
  const amended = await amend(pet.id, first.body.id, fix, doctor.accessToken, 'med-key-2');
  const amendedAgain = await amend(pet.id, first.body.id, fix, doctor.accessToken, 'med-key-2');
  a.is(amended.status, 201);
  a.is(amendedAgain.status, 201, 'a replay, not a 409 for a second amendment');
  a.is(amendedAgain.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(amendedAgain.body, amended.body);

  const rows = await db().selectFrom('medical_records').select('id').where('pet_id', '=', pet.id).execute();
  a.is(rows.length, 2);
});

test.serial('medical writes emit no events', async (a) => {
  const pet = await freshPet();
  const count = async () => (await db().selectFrom('events').select('id').execute()).length;
  const before = await count();
  const record = await write(pet.id, { kind: 'note', text: 'x' });
  await amend(pet.id, record.body.id, { reason: 'y', text: 'z' });
  a.is(await count(), before);
});
