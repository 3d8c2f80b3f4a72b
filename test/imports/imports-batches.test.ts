import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { importFile } from './import-helpers.js';

/**
 * How an import's batches are read, looked up and written (issue 29's speed work): rows read a
 * chunk of the file at a time, every row's references looked up for the whole batch in one
 * statement, new rows inserted together (multi-row INSERTs). The reports must stay what they were:
 * row numbers across batches, unknown and repeated externalIds each reported, a batch the database
 * refuses written again one row at a time, a file the CSV parser refuses failing with its reason.
 */
const t = useTestApp(test);

let admin: string;
let loc: { id: string };

test.before(async () => {
  admin = await t.adminToken();
  loc = await createLocation(t);
});

const lines = (header: string, n: number, row: (i: number) => string) => `${header}\n${Array.from({ length: n }, (_, i) => row(i)).join('\n')}\n`;

test('files of several batches: every row counted, references resolved per batch, unknown and repeated externalIds reported by row', async (a) => {
  const parents = await importFile(
    t,
    admin,
    lines('externalId,name,email', 250, (i) => `M-${i},Parent ${i},m${i}@example.com`),
    { type: 'pet-parents', locationId: loc.id },
  );
  a.like(parents, { status: 'done', total: 250, created: 250, failed: 0 });
  // 330 pets over 4 batches: every 50th names an unknown owner; M-P-7 is on two rows (in two batches).
  const pets = lines('externalId,name,breed,species,ownerExternalId', 330, (i) =>
    i === 301 ? 'M-P-7,Again,Beagle,dog,M-1' : `M-P-${i},Pet ${i},Beagle,dog,${i % 50 === 49 ? `M-404-${i}` : `M-${i % 250}`}`,
  );
  const report = await importFile(t, admin, pets, { type: 'pets' });
  const unknown = Array.from({ length: 330 }, (_, i) => i).filter((i) => i % 50 === 49);
  a.like(report, { status: 'done', total: 330, processed: 330, created: 330 - unknown.length - 2, failed: unknown.length + 2 });
  a.deepEqual(
    report.errors,
    [
      { row: 9, field: 'externalId', message: "'M-P-7' is on more than one row of this file (rows 9, 303)" },
      ...unknown.map((i) => ({
        row: i + 2,
        field: 'ownerExternalId',
        message: `no pet parent with externalId 'M-404-${i}' (import the pet-parents file first; a record outside the importer's locations is not found either)`,
      })),
      { row: 303, field: 'externalId', message: "'M-P-7' is on more than one row of this file (rows 9, 303)" },
    ].sort((x, y) => x.row - y.row),
  );
  const last = (await t.request('GET', '/v1/pets?externalId=M-P-329', { token: admin })).body.data[0];
  a.like(last, { name: 'Pet 329', externalId: 'M-P-329' });
  // Doses for pets of every batch, looked up by petExternalId; then the same file again: every row unchanged.
  const doses = lines('externalId,petExternalId,vaccine,administeredOn,dueOn', 300, (i) => `M-V-${i},M-P-${i},Rabies,2024-01-0${1 + (i % 9)},2027-01-01`);
  // Doses of the pets that did not go in (an unknown owner, a repeated externalId) are refused as unknown pets.
  const missing = unknown.filter((i) => i < 300).length + 1;
  const first = await importFile(t, admin, doses, { type: 'vaccinations' });
  a.like(first, { status: 'done', total: 300, created: 300 - missing, failed: missing });
  a.like(first.errors.at(-1), { row: 301, field: 'petExternalId' });
  a.regex(first.errors.at(-1).message, /^no pet with externalId 'M-P-299'/);
  const again = await importFile(t, admin, doses, { type: 'vaccinations' });
  a.like(again, { status: 'done', total: 300, created: 0, updated: 0, skipped: 300 - missing, failed: missing });
  const pet = (await t.request('GET', '/v1/pets?externalId=M-P-8', { token: admin })).body.data[0];
  const given = (await t.request('GET', `/v1/pets/${pet.id}/vaccinations`, { token: admin })).body;
  a.is(given.data.length, 1);
  a.like(given.data[0], { vaccine: 'Rabies', administeredOn: '2024-01-09', dueOn: '2027-01-01', externalId: 'M-V-8' });
});

test('a batch the database refuses is written again row by row: the refused row is reported, the others go in', async (a) => {
  await importFile(
    t,
    admin,
    lines('externalId,name', 3, (i) => `R-${i},Parent ${i}`),
    { type: 'pet-parents', locationId: loc.id },
  );
  // A rule of the database the import's checks do not know: a trigger planted for this test.
  t.stores
    .get('live')
    .sqlite.exec(
      "CREATE TRIGGER refuse_for_the_test BEFORE INSERT ON pets WHEN NEW.name = 'Refused by the test' BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END",
    );
  try {
    const report = await importFile(
      t,
      admin,
      lines('externalId,name,breed,species,ownerExternalId', 5, (i) => `R-P-${i},${i === 2 ? 'Refused by the test' : `Pet ${i}`},Beagle,dog,R-${i % 3}`),
      { type: 'pets' },
    );
    a.like(report, { status: 'done', total: 5, created: 4, failed: 1 });
    a.deepEqual(report.errors, [{ row: 4, field: 'row', message: 'could not be written: refused by the test trigger' }]);
    for (const i of [0, 1, 3, 4]) a.is((await t.request('GET', `/v1/pets?externalId=R-P-${i}`, { token: admin })).body.data.length, 1);
    a.is((await t.request('GET', '/v1/pets?externalId=R-P-2', { token: admin })).body.data.length, 0);
  } finally {
    t.stores.get('live').sqlite.exec('DROP TRIGGER refuse_for_the_test');
  }
});

test('a CSV file the parser refuses (a quote never closed) ends the import failed, saying why', async (a) => {
  const report = await importFile(t, admin, 'externalId,name\nQ-1,Ada\nQ-2,"Never closed\n', { type: 'pet-parents', locationId: loc.id });
  a.is(report.status, 'failed');
  a.regex(report.failure, /quote/i);
  a.is((await t.request('GET', '/v1/pet-parents?externalId=Q-1', { token: admin })).body.data.length, 0);
});
