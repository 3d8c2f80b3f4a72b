import test from 'ava';
import { addDays, utcDate } from '../../src/calendar-dates.js';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { importFile, postImport } from './import-helpers.js';

const t = useTestApp(test, { config: { importMaxBytes: 4096 } });

let admin: string;
let loc: { id: string };

test.before(async () => {
  admin = await t.adminToken();
  loc = await createLocation(t);
});

const parentsCsv = (prefix: string) =>
  `externalId,name,email,reminderConsent\r\n${prefix}-1,Ada Lovelace,ada@example.com,yes\r\n${prefix}-2,"Brown, Charlie",,no\r\n`;

test('pet parents, pets, vaccinations and notes go in by externalId; references resolve against earlier imports; GET ?externalId= finds them', async (a) => {
  const parents = await importFile(t, admin, parentsCsv('P'), { type: 'pet-parents', locationId: loc.id });
  a.like(parents, { status: 'done', type: 'pet-parents', dryRun: false, total: 2, processed: 2, created: 2, updated: 0, skipped: 0, failed: 0, errors: [] });
  a.truthy(parents.startedAt);
  a.truthy(parents.finishedAt);
  const found = await t.request('GET', '/v1/pet-parents?externalId=P-2', { token: admin });
  a.is(found.body.data.length, 1);
  a.like(found.body.data[0], { name: 'Brown, Charlie', email: null, reminderConsent: false, locationId: loc.id, externalId: 'P-2' });

  const pets = await importFile(
    t,
    admin,
    'externalId,name,breed,species,ownerExternalId,birthDate\nA-1,Rex,Beagle,dog,P-1,2020-01-02\nA-2,Tom,Tabby,cat,P-2,\n',
    {
      type: 'pets',
    },
  );
  a.like(pets, { status: 'done', total: 2, created: 2, failed: 0 });
  const rex = (await t.request('GET', '/v1/pets?externalId=A-1', { token: admin })).body.data[0];
  a.like(rex, {
    name: 'Rex',
    ownerId: found.body.data.length ? (await t.request('GET', '/v1/pet-parents?externalId=P-1', { token: admin })).body.data[0].id : '',
    locationId: loc.id,
    externalId: 'A-1',
    birthDate: '2020-01-02',
  });

  const today = utcDate(t.clock.now());
  const vaccinations = await importFile(
    t,
    admin,
    `externalId,petExternalId,vaccine,administeredOn,dueOn,lotNumber\nV-1,A-1,Rabies,2021-01-01,${addDays(today, 10)},L1\nV-2,A-2,FVRCP,2021-01-01,2022-01-01,\n`,
    { type: 'vaccinations' },
  );
  a.like(vaccinations, { status: 'done', total: 2, created: 2, failed: 0 });
  const vac = (await t.request('GET', `/v1/pets/${rex.id}/vaccinations?externalId=V-1`, { token: admin })).body.data;
  a.like(vac, [{ vaccine: 'Rabies', administeredOn: '2021-01-01', lotNumber: 'L1', externalId: 'V-1' }]);
  // The imported history drives the pet's status as any record does.
  a.is((await t.request('GET', `/v1/pets/${rex.id}`, { token: admin })).body.vaccinationStatus, 'Due soon');

  const notes = await importFile(
    t,
    admin,
    '{"externalId":"N-1","petExternalId":"A-1","text":"Allergic to chicken"}\n{"externalId":"N-2","petExternalId":"A-9","text":"x"}\n',
    {
      type: 'medical-records',
    },
  );
  a.like(notes, { status: 'done', format: 'ndjson', total: 2, created: 1, failed: 1 });
  a.deepEqual(notes.errors, [
    {
      row: 2,
      field: 'petExternalId',
      message: "no pet with externalId 'A-9' (import the pets file first; a record outside the importer's locations is not found either)",
    },
  ]);
  const records = (await t.request('GET', `/v1/pets/${rex.id}/medical?externalId=N-1`, { token: admin })).body.data;
  a.like(records, [{ kind: 'note', text: 'Allergic to chicken', externalId: 'N-1' }]);

  // History fires no events (pet.registered and the others come from the API only).
  const events = await t.stores.get('live').db.selectFrom('events').select('type').where('type', 'in', ['pet.registered', 'pet.vaccination_due']).execute();
  a.deepEqual(events, []);
});

test('a re-run of the same file updates by externalId instead of duplicating; unchanged rows are skipped', async (a) => {
  const first = await importFile(t, admin, parentsCsv('R'), { type: 'pet-parents', locationId: loc.id });
  a.like(first, { created: 2, updated: 0 });
  const again = await importFile(t, admin, parentsCsv('R'), { type: 'pet-parents', locationId: loc.id });
  a.like(again, { status: 'done', created: 0, updated: 0, skipped: 2 });
  const changed = await importFile(t, admin, parentsCsv('R').replace('Ada Lovelace', 'Ada King'), { type: 'pet-parents', locationId: loc.id });
  a.like(changed, { created: 0, updated: 1, skipped: 1 });
  const rows = (await t.request('GET', '/v1/pet-parents?externalId=R-1', { token: admin })).body.data;
  a.is(rows.length, 1);
  a.is(rows[0].name, 'Ada King');
});

test('a dry run checks every row and writes nothing', async (a) => {
  const dry = await importFile(t, admin, parentsCsv('D') + 'D-3,,bad-email,maybe\n', { type: 'pet-parents', locationId: loc.id, dryRun: 'true' });
  a.like(dry, { status: 'done', dryRun: true, total: 3, created: 2, failed: 1 });
  a.deepEqual(dry.errors, [
    { row: 4, field: 'reminderConsent', message: 'must be true or false' },
    { row: 4, field: 'name', message: 'is required' },
    // The API's own message for the same email (POST /v1/pet-parents answers it too).
    { row: 4, field: 'email', message: 'Expected union value' },
  ]);
  a.is((await t.request('GET', '/v1/pet-parents?externalId=D-1', { token: admin })).body.data.length, 0);
});

test('rows are refused one by one with the API messages: unknown references, other date formats, duplicate externalIds (each reported)', async (a) => {
  await importFile(t, admin, parentsCsv('Q'), { type: 'pet-parents', locationId: loc.id });
  const csv =
    'externalId,name,breed,species,ownerExternalId,birthDate\n' +
    'B-1,Rex,Beagle,dog,Q-1,12/03/2021\n' +
    'B-2,Rex,Beagle,dragon,Q-1,\n' +
    'B-3,Rex,Beagle,dog,Q-404,\n' +
    'B-4,Rex,Beagle,dog,Q-1,\n' +
    'B-4,Max,Boxer,dog,Q-2,\n' +
    'B-5,Ok,Boxer,dog,Q-2,2019-02-30\n' +
    'B-6,Fine,Boxer,dog,Q-2,2019-02-03\n';
  const report = await importFile(t, admin, csv, { type: 'pets' });
  a.like(report, { status: 'done', total: 7, created: 1, failed: 6 });
  a.deepEqual(report.errors, [
    { row: 2, field: 'birthDate', message: "'12/03/2021' is not a date in the expected format YYYY-MM-DD" },
    { row: 3, field: 'species', message: 'must be one of: dog, cat, rabbit, bird, reptile, ferret, guinea_pig, hamster, horse, other' },
    {
      row: 4,
      field: 'ownerExternalId',
      message: "no pet parent with externalId 'Q-404' (import the pet-parents file first; a record outside the importer's locations is not found either)",
    },
    { row: 5, field: 'externalId', message: "'B-4' is on more than one row of this file (rows 5, 6)" },
    { row: 6, field: 'externalId', message: "'B-4' is on more than one row of this file (rows 5, 6)" },
    { row: 7, field: 'birthDate', message: "'2019-02-30' is not a calendar date" },
  ]);
});

test('bad files are refused before any row: encodings, empty, missing columns, too large; a UTF-8 BOM is fine', async (a) => {
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('externalId,name\r\n', 'utf16le')]);
  const r16 = await postImport(t.url, admin, utf16, { type: 'pet-parents', locationId: loc.id });
  a.is(r16.status, 400);
  a.is(r16.body.code, 'import_encoding_unsupported');
  a.regex(r16.body.detail, /UTF-16/);
  const r16nobom = await postImport(t.url, admin, Buffer.from('externalId,name\r\n', 'utf16le'), { type: 'pet-parents', locationId: loc.id });
  a.is(r16nobom.body.code, 'import_encoding_unsupported');
  const latin1 = Buffer.from('externalId,name\r\nL-1,Jos\xe9\r\n', 'latin1');
  const rl = await postImport(t.url, admin, latin1, { type: 'pet-parents', locationId: loc.id });
  a.is(rl.status, 400);
  a.is(rl.body.code, 'import_encoding_unsupported');
  a.regex(rl.body.detail, /UTF-8/);

  const empty = await postImport(t.url, admin, '', { type: 'pet-parents', locationId: loc.id });
  a.is(empty.status, 400);
  a.deepEqual(empty.body.errors, [{ field: 'file', message: 'is empty' }]);

  const missing = await postImport(t.url, admin, 'externalId,name,species\nX,Rex,dog\n', { type: 'pets' });
  a.is(missing.status, 400);
  a.deepEqual(missing.body.errors, [
    { field: 'breed', message: 'is a required column of a pets import and is missing from the header row' },
    { field: 'ownerExternalId', message: 'is a required column of a pets import and is missing from the header row' },
  ]);

  const big = await postImport(t.url, admin, `externalId,name\n${'x,y\n'.repeat(2000)}`, { type: 'pet-parents', locationId: loc.id });
  a.is(big.status, 413);
  a.regex(big.body.detail, /4096-byte import limit/);

  const bom = await importFile(t, admin, `\ufeffexternalId,name\nBOM-1,Zoë\n`, { type: 'pet-parents', locationId: loc.id });
  a.like(bom, { status: 'done', created: 1 });
  a.is((await t.request('GET', '/v1/pet-parents?externalId=BOM-1', { token: admin })).body.data[0].name, 'Zoë');

  const mapped = await importFile(t, admin, `Client No,Full Name\nM-1,Mapped Person\n`, {
    type: 'pet-parents',
    locationId: loc.id,
    mapping: JSON.stringify({ 'Client No': 'externalId', 'Full Name': 'name' }),
  });
  a.like(mapped, { status: 'done', created: 1 });

  // A pretty-printed mapping (a mapping file as an editor saves it, ending in a newline) is JSON like any other.
  const pretty = await importFile(t, admin, `Client No,Full Name\nM-2,Pretty Person\n`, {
    type: 'pet-parents',
    locationId: loc.id,
    mapping: `${JSON.stringify({ 'Client No': 'externalId', 'Full Name': 'name' }, null, 2)}\r\n`.replace('  "Full', '\t"Full'),
  });
  a.like(pretty, { status: 'done', created: 1, mapping: { 'Client No': 'externalId', 'Full Name': 'name' } });
  a.is((await t.request('GET', '/v1/pet-parents?externalId=M-2', { token: admin })).body.data[0].name, 'Pretty Person');
  // Other control characters stay refused: in the JSON text, or escaped into a column name.
  const bell = await postImport(t.url, admin, `Client No\nM-3\n`, { type: 'pet-parents', locationId: loc.id, mapping: '{"Client No":\u0007"externalId"}' });
  a.is(bell.status, 400);
  a.is(bell.body.errors[0].field, 'mapping');
  a.regex(bell.body.errors[0].message, /control character \(U\+0007/);
  const escaped = await postImport(t.url, admin, `Client No\nM-3\n`, { type: 'pet-parents', locationId: loc.id, mapping: '{"Client\\nNo": "externalId"}' });
  a.is(escaped.status, 400);
  a.is(escaped.body.errors[0].field, 'mapping.Client\nNo');
  a.regex(escaped.body.errors[0].message, /control character \(U\+000A/);
});

test('a client confined to a location imports into it only; access, templates, list and cancel', async (a) => {
  const other = await createLocation(t);
  const confined = await t.client({ role: 'admin', scopes: ['admin', 'pets'], locationIds: [loc.id] });
  const none = await postImport(t.url, confined.accessToken, parentsCsv('C'), { type: 'pet-parents' });
  a.is(none.status, 422);
  a.is(none.body.code, 'locations_required');
  const elsewhere = await postImport(t.url, confined.accessToken, parentsCsv('C'), { type: 'pet-parents', locationId: other.id });
  a.is(elsewhere.status, 400);
  a.is(elsewhere.body.code, 'resource_missing');
  const rows = `externalId,name,locationId\nC-1,Here,${loc.id}\nC-2,There,${other.id}\n`;
  const report = await importFile(t, confined.accessToken, rows, { type: 'pet-parents', locationId: loc.id });
  a.like(report, { created: 1, failed: 1 });
  a.deepEqual(report.errors, [{ row: 3, field: 'locationId', message: `no location with id '${other.id}'` }]);

  const staff = await t.client({ role: 'staff', scopes: ['pets'] });
  a.is((await postImport(t.url, staff.accessToken, parentsCsv('S'), { type: 'pet-parents', locationId: loc.id })).status, 403);
  a.is((await t.request('GET', '/v1/imports', { token: staff.accessToken })).status, 403);
  a.is((await postImport(t.url, '', parentsCsv('S'), { type: 'pet-parents' })).status, 401);

  const template = await fetch(`${t.url}/v1/imports/templates/pets`, { headers: { authorization: `Bearer ${admin}` } });
  a.is(template.status, 200);
  a.regex(template.headers.get('content-type') ?? '', /^text\/csv/);
  a.is(await template.text(), 'externalId,name,breed,species,ownerExternalId,locationId,birthDate,size\r\n');

  const list = await t.request('GET', '/v1/imports?limit=2', { token: admin });
  a.is(list.status, 200);
  a.is(list.body.data.length, 2);
  a.true(list.body.hasMore);

  // An import that has ended (this test's own: the file's other tests run at the same time).
  const late = await t.request('POST', `/v1/imports/${report.id}/cancel`, { token: admin });
  a.is(late.status, 409);
  a.is(late.body.code, 'invalid_state_transition');
  a.is((await t.request('GET', '/v1/imports/imp_nope', { token: admin })).status, 404);
});

test('a client confined to locations sees and cancels only the imports of clients confined within its locations; the others only a tenant-wide client', async (a) => {
  const mine = await createLocation(t);
  const theirs = await createLocation(t);
  const confined = await t.client({ role: 'admin', scopes: ['admin', 'pets'], locationIds: [mine.id] });
  const colleague = await t.client({ role: 'admin', scopes: ['admin', 'pets'], locationIds: [mine.id] });
  const both = await t.client({ role: 'admin', scopes: ['admin', 'pets'], locationIds: [mine.id, theirs.id] });
  const own = await importFile(t, colleague.accessToken, `externalId,name\nL-1,Mine\n`, { type: 'pet-parents', locationId: mine.id });
  const other = await importFile(t, admin, `externalId,name,email\nL-2,Theirs,not-an-email\n`, { type: 'pet-parents', locationId: theirs.id });
  a.is(other.failed, 1);
  const wide = await importFile(t, admin, `externalId,name,locationId\nL-3,Wide,${theirs.id}\nL-4,Bad,loc_nowhere\n`, { type: 'pet-parents' });
  a.like(wide, { locationId: null, created: 1, failed: 1 });
  // Into my location, but by clients that reach further: their rows may name the other location.
  const adminsIntoMine = await importFile(t, admin, `externalId,name,locationId\nL-5,Here,${mine.id}\nL-6,There,${theirs.id}\n`, {
    type: 'pet-parents',
    locationId: mine.id,
  });
  a.like(adminsIntoMine, { locationId: mine.id, created: 2 });
  const widerIntoMine = await importFile(t, both.accessToken, `externalId,name,locationId\nL-7,There,${theirs.id}\n`, {
    type: 'pet-parents',
    locationId: mine.id,
  });
  a.like(widerIntoMine, { locationId: mine.id, created: 1 });

  const token = confined.accessToken;
  a.is((await t.request('GET', `/v1/imports/${own.id}`, { token })).body.id, own.id);
  for (const hidden of [other, wide, adminsIntoMine, widerIntoMine]) {
    const got = await t.request('GET', `/v1/imports/${hidden.id}`, { token });
    a.is(got.status, 404);
    a.is(got.body.code, 'not_found');
    a.is((await t.request('POST', `/v1/imports/${hidden.id}/cancel`, { token })).status, 404);
    // The tenant-wide admin still sees it.
    a.is((await t.request('GET', `/v1/imports/${hidden.id}`, { token: admin })).status, 200);
  }
  // The client of both locations sees its own and the one confined to its locations.
  const bothSees = (await t.request('GET', '/v1/imports?limit=100', { token: both.accessToken })).body.data.map((i: { id: string }) => i.id);
  a.deepEqual([...bothSees].sort(), [own.id, widerIntoMine.id].sort());
  // Its own has ended: found, and 409 rather than 404.
  a.is((await t.request('POST', `/v1/imports/${own.id}/cancel`, { token })).status, 409);
  const listed = await t.request('GET', '/v1/imports?limit=100', { token });
  a.is(listed.status, 200);
  a.deepEqual(
    listed.body.data.map((i: { id: string }) => i.id),
    [own.id],
  );
  const all = (await t.request('GET', '/v1/imports?limit=100', { token: admin })).body.data.map((i: { id: string }) => i.id);
  for (const id of [own.id, other.id, wide.id, adminsIntoMine.id, widerIntoMine.id]) a.true(all.includes(id));
});

test('providers go in with their locations and services; a re-run updates them; an unknown service or location is refused', async (a) => {
  const other = await createLocation(t);
  const csv = (name: string) =>
    `externalId,name,kind,locationIds,services,status\nV-1,${name},vet,${loc.id};${other.id},vaccination,active\nV-2,Groomer,groomer,,,inactive\nV-3,Bad,vet,loc_nowhere,haircut,retired\n`;
  const first = await importFile(t, admin, csv('Dr. Import'), { type: 'providers', locationId: loc.id });
  a.like(first, { status: 'done', total: 3, created: 2, failed: 1 });
  a.deepEqual(first.errors, [
    { row: 4, field: 'status', message: 'must be one of: active, inactive' },
    { row: 4, field: 'locationIds[0]', message: "no location with id 'loc_nowhere'" },
    { row: 4, field: 'services[0]', message: "unknown appointment type 'haircut'" },
  ]);
  const vet = (await t.request('GET', '/v1/providers?externalId=V-1', { token: admin })).body.data[0];
  a.like(vet, { name: 'Dr. Import', kind: 'vet', status: 'active', services: ['vaccination'], externalId: 'V-1' });
  a.deepEqual([...vet.locationIds].sort(), [loc.id, other.id].sort());
  const groomer = (await t.request('GET', '/v1/providers?externalId=V-2', { token: admin })).body.data[0];
  a.like(groomer, { status: 'inactive', locationIds: [loc.id], services: [] });
  const again = await importFile(t, admin, csv('Dr. Renamed'), { type: 'providers', locationId: loc.id });
  a.like(again, { created: 0, updated: 1, skipped: 1, failed: 1 });
  a.is((await t.request('GET', '/v1/providers?externalId=V-1', { token: admin })).body.data[0].name, 'Dr. Renamed');
});

test('appointments: history goes in as it was (a completed visit sets lastVisit); visits to come hold their provider and are never double-booked', async (a) => {
  await importFile(t, admin, `externalId,name\nAP-P,Appointment Parent\n`, { type: 'pet-parents', locationId: loc.id });
  await importFile(t, admin, `externalId,name,breed,species,ownerExternalId\nAP-A,Rex,Beagle,dog,AP-P\n`, { type: 'pets' });
  await importFile(t, admin, `externalId,name,kind\nAP-V,Dr. Ap,vet\n`, { type: 'providers', locationId: loc.id });
  const next = new Date(t.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const csv =
    'externalId,petExternalId,providerExternalId,type,startsAt,status,notes\n' +
    'AP-1,AP-A,AP-V,VET_CONSULTATION,2024-03-01T09:30:00Z,,Annual check\n' +
    `AP-2,AP-A,AP-V,vet_consultation,${next}T10:00:00Z,,\n` +
    `AP-3,AP-A,AP-V,vet_consultation,${next}T10:10:00Z,,\n` +
    'AP-4,AP-A,AP-V,vet_consultation,01/03/2024 09:30,,\n' +
    `AP-5,AP-A,AP-V,vet_consultation,${next}T12:00:00Z,completed,\n`;
  const report = await importFile(t, admin, csv, { type: 'appointments' });
  a.like(report, { status: 'done', total: 5, created: 2, failed: 3 });
  a.is(report.errors.length, 3);
  a.like(report.errors[0], { row: 4, field: 'startsAt' });
  a.regex(report.errors[0].message, /already has an appointment/);
  a.deepEqual(report.errors.slice(1), [
    { row: 5, field: 'startsAt', message: "'01/03/2024 09:30' is not a date-time in the expected format (ISO 8601 with an offset, e.g. 2024-03-01T09:30:00Z)" },
    { row: 6, field: 'status', message: 'a future appointment is confirmed or cancelled' },
  ]);
  const past = (await t.request('GET', '/v1/appointments?externalId=AP-1', { token: admin })).body.data[0];
  a.like(past, {
    status: 'completed',
    type: 'vet_consultation',
    startsAt: '2024-03-01T09:30:00.000Z',
    notes: 'Annual check',
    locationId: loc.id,
    externalId: 'AP-1',
  });
  a.regex(past.calendarUrl, /token=ct_live_/);
  const pet = (await t.request('GET', '/v1/pets?externalId=AP-A', { token: admin })).body.data[0];
  a.is(pet.lastVisit, '2024-03-01');
  const coming = (await t.request('GET', '/v1/appointments?externalId=AP-2', { token: admin })).body.data[0];
  a.is(coming.status, 'confirmed');
  // The imported visit holds the provider's time against API bookings too.
  const clash = await t.request('POST', '/v1/appointments', {
    token: admin,
    body: { petId: pet.id, providerId: coming.providerId, type: 'vet_consultation', startsAt: `${next}T10:00:00Z`, locationId: loc.id },
  });
  a.is(clash.status, 409);
  const again = await importFile(t, admin, csv, { type: 'appointments' });
  a.like(again, { created: 0, skipped: 2, failed: 3 });
});

test('an Idempotency-Key replay answers the first import and queues no second one', async (a) => {
  const send = async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(parentsCsv('I'))], { type: 'text/csv' }), 'parents.csv');
    form.append('type', 'pet-parents');
    form.append('locationId', loc.id);
    const res = await fetch(`${t.url}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'idempotency-key': 'import-once' },
      body: form,
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { id: string; sha256: string } };
  };
  const first = await send();
  a.is(first.status, 202);
  const second = await send();
  a.is(second.status, 202);
  a.is(second.replayed, 'true');
  a.is(second.body.id, first.body.id);
  const runs = await t.stores.get('live').db.selectFrom('imports').select('id').where('sha256', '=', first.body.sha256).execute();
  a.is(runs.length, 1);
});
