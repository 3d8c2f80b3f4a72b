import test from 'ava';
import { sql } from 'kysely';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Medical records are append-only in the database itself: triggers refuse UPDATE and DELETE,
 * whatever code issues them. The one exception is the explicit erasure of a sandbox reset.
 */
let admin: string;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
});

const db = () => t.stores.get('live').db;

/** The error a refused statement raised (better-sqlite3's SqliteError is not an `Error` of ava's realm, so no throwsAsync). */
async function refusal(run: () => unknown): Promise<{ code: string; message: string } | null> {
  try {
    await run();
    return null;
  } catch (err) {
    const { code, message } = err as { code: string; message: string };
    return { code, message };
  }
}
const refused = { code: 'SQLITE_CONSTRAINT_TRIGGER' };

async function recordFor(petId: string, token = admin) {
  const res = await t.request('POST', `/v1/pets/${petId}/medical`, { token, body: { kind: 'diagnosis', text: 'Gingivitis', code: 'K05' } });
  if (res.status !== 201) throw new Error(`record: ${res.status} ${res.text}`);
  return res.body as { id: string; text: string };
}

test('the database refuses UPDATE of a medical record, through Kysely or raw SQL', async (a) => {
  const { pet } = await createHousehold(t);
  const record = await recordFor(pet.id);
  const message = 'medical records are append-only: record an amendment instead';
  a.deepEqual(await refusal(() => db().updateTable('medical_records').set({ text: 'Rewritten' }).where('id', '=', record.id).execute()), {
    ...refused,
    message,
  });
  a.deepEqual(await refusal(() => sql`UPDATE medical_records SET amends = NULL, author_role = 'admin'`.execute(db())), { ...refused, message });
  const raw = t.stores.get('live').sqlite;
  a.deepEqual(await refusal(() => raw.prepare('UPDATE medical_records SET text = ? WHERE id = ?').run('Rewritten', record.id)), { ...refused, message });

  const row = await db().selectFrom('medical_records').select('text').where('id', '=', record.id).executeTakeFirstOrThrow();
  a.is(row.text, 'Gingivitis');
  const api = await t.request('GET', `/v1/medical-records/${record.id}`, { token: admin });
  a.is(api.body.text, 'Gingivitis');
});

test('the database refuses DELETE of a medical record', async (a) => {
  const { pet } = await createHousehold(t);
  const record = await recordFor(pet.id);
  a.deepEqual(await refusal(() => db().deleteFrom('medical_records').where('id', '=', record.id).execute()), {
    ...refused,
    message: 'medical records are append-only: they cannot be deleted',
  });
  a.like(await refusal(() => sql`DELETE FROM medical_records`.execute(db())), refused);
  a.truthy(await db().selectFrom('medical_records').select('id').where('id', '=', record.id).executeTakeFirst());
});

test('there are no PATCH or DELETE routes for medical records', async (a) => {
  const { pet } = await createHousehold(t);
  const record = await recordFor(pet.id);
  for (const method of ['PATCH', 'DELETE', 'PUT']) {
    const res = await t.request(method, `/v1/medical-records/${record.id}`, { token: admin, body: { text: 'x' } });
    a.is(res.status, 405, method);
  }
});

test.serial('a sandbox reset erases the clinical records of the sandbox (and only there)', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const { pet: livePet } = await createHousehold(t);
  const liveRecord = await recordFor(livePet.id);
  const sandboxRecord = await recordFor('pet_demo_bella', sandboxAdmin);
  const vaccination = await t.request('POST', '/v1/pets/pet_demo_bella/vaccinations', {
    token: sandboxAdmin,
    body: { vaccine: 'Rabies', administeredOn: '2026-01-05', dueOn: '2027-01-05' },
  });
  a.is(vaccination.status, 201, vaccination.text);

  const reset = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin });
  a.is(reset.status, 200, reset.text);

  const sandbox = t.stores.get('sandbox').db;
  a.deepEqual(await sandbox.selectFrom('medical_records').select('id').execute(), []);
  // Only the demo vaccinations are back; the one recorded before the reset is gone.
  a.is((await sandbox.selectFrom('vaccinations').select('id').where('id', '=', vaccination.body.id).execute()).length, 0);
  a.deepEqual(
    (await sandbox.selectFrom('vaccinations').select('id').where('pet_id', '=', 'pet_demo_bella').orderBy('id').execute()).map((v) => v.id),
    ['vac_demo_bella_dhpp', 'vac_demo_bella_rabies'],
  );
  a.deepEqual(await sandbox.selectFrom('medical_record_erasures').selectAll().execute(), [], 'the erasure permit is gone');
  a.is((await t.request('GET', `/v1/medical-records/${sandboxRecord.id}`, { token: sandboxAdmin })).status, 404);
  const bella = await t.request('GET', '/v1/pets/pet_demo_bella', { token: sandboxAdmin });
  a.is(bella.body.vaccinationStatus, 'Due soon', 'as the demo data seeds it');

  // Append-only holds again after the reset, and live records were never touched.
  const again = await recordFor('pet_demo_bella', sandboxAdmin);
  a.like(await refusal(() => sandbox.deleteFrom('medical_records').where('id', '=', again.id).execute()), refused);
  a.truthy(await db().selectFrom('medical_records').select('id').where('id', '=', liveRecord.id).executeTakeFirst());
});
