import test from 'ava';
import { sql } from 'kysely';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { adminCredentials, TestClock, useTestApp } from '../helpers/test-app.js';

/**
 * A pet's vaccinationStatus (GET /v1/pets/:id and the list) is derived from its vaccinations as of
 * the service clock's date: per vaccine the latest record by administeredOn counts; the earliest
 * of those due dates decides. Serial: the tests move the clock.
 */
let location: { id: string };
let parent: { id: string };

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-01-10T12:00:00Z')) });
test.before(async () => {
  location = await createLocation(t, { timezone: 'UTC' });
  parent = await createPetParent(t, location.id);
});

/** A token valid at the current (moved) clock: the cached admin token expires when time jumps. */
async function token(): Promise<string> {
  const res = await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret, 'pets');
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

async function newPet(name: string) {
  return createPet(t, parent.id, location.id, { name }, await token());
}

async function vaccinate(petId: string, vaccine: string, administeredOn: string, dueOn: string) {
  const res = await t.request('POST', `/v1/pets/${petId}/vaccinations`, { token: await token(), body: { vaccine, administeredOn, dueOn } });
  if (res.status !== 201) throw new Error(`vaccinate: ${res.status} ${res.text}`);
}

async function statusOf(petId: string): Promise<string> {
  const res = await t.request('GET', `/v1/pets/${petId}`, { token: await token() });
  if (res.status !== 200) throw new Error(`get pet: ${res.status} ${res.text}`);
  return res.body.vaccinationStatus as string;
}

test.serial('the four values follow the service clock: Up to date → Due soon (30 days, inclusive) → Overdue; a new dose resets it', async (a) => {
  const none = await newPet('Never vaccinated');
  const pet = await newPet('Rex');
  a.is(await statusOf(pet.id), 'No records');
  await vaccinate(pet.id, 'Rabies', '2026-01-05', '2026-03-01');

  // 2026-01-10: due in 50 days.
  a.is(await statusOf(pet.id), 'Up to date');
  // 2026-01-29: due in 31 days.
  t.clock.set(new Date('2026-01-29T23:59:59Z'));
  a.is(await statusOf(pet.id), 'Up to date');
  // 2026-01-30: due in exactly 30 days.
  t.clock.set(new Date('2026-01-30T00:00:00Z'));
  a.is(await statusOf(pet.id), 'Due soon');
  // Due today is not yet overdue.
  t.clock.set(new Date('2026-03-01T18:00:00Z'));
  a.is(await statusOf(pet.id), 'Due soon');
  t.clock.set(new Date('2026-03-02T00:00:00Z'));
  a.is(await statusOf(pet.id), 'Overdue');
  a.is(await statusOf(none.id), 'No records');

  // The next dose supersedes the overdue one (only the latest record per vaccine counts).
  await vaccinate(pet.id, 'Rabies', '2026-03-02', '2027-03-02');
  a.is(await statusOf(pet.id), 'Up to date');
});

test.serial('per vaccine the latest by administeredOn counts, whatever the order of recording; names match case-insensitively', async (a) => {
  // Clock: 2026-03-02 (set by the previous test).
  const pet = await newPet('Order');
  await vaccinate(pet.id, 'DHPP', '2026-02-01', '2027-02-01'); // latest dose, recorded first
  await vaccinate(pet.id, 'dhpp', '2025-02-01', '2026-02-01'); // an older certificate entered later: already past due
  a.is(await statusOf(pet.id), 'Up to date');
});

test.serial('the most urgent vaccine decides across vaccines', async (a) => {
  const pet = await newPet('Several');
  await vaccinate(pet.id, 'Rabies', '2026-01-01', '2027-01-01');
  a.is(await statusOf(pet.id), 'Up to date');
  await vaccinate(pet.id, 'Bordetella', '2025-09-01', '2026-03-20');
  a.is(await statusOf(pet.id), 'Due soon');
  await vaccinate(pet.id, 'Leptospirosis', '2025-01-01', '2026-01-01');
  a.is(await statusOf(pet.id), 'Overdue');
});

test.serial('GET /v1/pets shows each pet of a page with its own status', async (a) => {
  const household = await createPetParent(t, location.id, {}, await token());
  const noRecords = await createPet(t, household.id, location.id, { name: 'A' }, await token());
  const upToDate = await createPet(t, household.id, location.id, { name: 'B' }, await token());
  const dueSoon = await createPet(t, household.id, location.id, { name: 'C' }, await token());
  const overdue = await createPet(t, household.id, location.id, { name: 'D' }, await token());
  await vaccinate(upToDate.id, 'Rabies', '2026-03-01', '2027-03-01');
  await vaccinate(dueSoon.id, 'Rabies', '2025-03-15', '2026-03-15');
  await vaccinate(overdue.id, 'Rabies', '2025-02-15', '2026-02-15');
  const res = await t.request('GET', `/v1/pets?ownerId=${household.id}`, { token: await token() });
  a.is(res.status, 200);
  const byId = Object.fromEntries(res.body.data.map((p: { id: string; vaccinationStatus: string }) => [p.id, p.vaccinationStatus]));
  a.deepEqual(byId, {
    [noRecords.id]: 'No records',
    [upToDate.id]: 'Up to date',
    [dueSoon.id]: 'Due soon',
    [overdue.id]: 'Overdue',
  });
});

test.serial('pets.vaccination_earliest_due, kept by triggers, equals the rule computed from the records after any write to them', async (a) => {
  const db = t.stores.get('live').db;
  const pets = [await newPet('E'), await newPet('F'), await newPet('G')];
  const { tenant_id: tenantId } = await db.selectFrom('pets').select('tenant_id').where('id', '=', pets[0]!.id).executeTakeFirstOrThrow();
  // The rule, as vaccination-status.ts states it, computed from the records.
  const expected = async (petId: string) =>
    (
      await sql<{ due: string | null }>`select min(due_on) as due from (
        select due_on, row_number() over (partition by vaccine_key order by administered_on desc, id desc) as rank from vaccinations where pet_id = ${petId}
      ) where rank = 1`.execute(db)
    ).rows[0]!.due;
  const kept = async (petId: string) =>
    (await db.selectFrom('pets').select('vaccination_earliest_due').where('id', '=', petId).executeTakeFirstOrThrow()).vaccination_earliest_due;
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const day = () => `2026-${String(1 + random(12)).padStart(2, '0')}-${String(1 + random(28)).padStart(2, '0')}`;
  for (let step = 0; step < 60; step++) {
    const ids = (
      await db
        .selectFrom('vaccinations')
        .select('id')
        .where(
          'pet_id',
          'in',
          pets.map((p) => p.id),
        )
        .execute()
    ).map((r) => r.id);
    const op = ids.length === 0 ? 0 : random(4);
    const pet = pets[random(pets.length)]!;
    const vaccine = ['Rabies', 'DHPP', 'Lepto'][random(3)]!;
    if (op === 0) {
      await db
        .insertInto('vaccinations')
        .values({
          id: `vac_test_${step}`,
          tenant_id: tenantId,
          location_id: location.id,
          pet_id: pet.id,
          vaccine,
          vaccine_key: vaccine.toLowerCase(),
          administered_on: day(),
          due_on: day(),
          lot_number: null,
          provider_id: null,
          recorded_by_client_id: 'cli_test',
          recorded_by_role: 'admin',
          created_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
    } else if (op === 1) {
      await db.updateTable('vaccinations').set({ due_on: day(), administered_on: day() }).where('id', '=', ids[random(ids.length)]!).execute();
    } else if (op === 2) {
      await db.updateTable('vaccinations').set({ pet_id: pet.id }).where('id', '=', ids[random(ids.length)]!).execute();
    } else {
      await db.deleteFrom('vaccinations').where('id', '=', ids[random(ids.length)]!).execute();
    }
    for (const p of pets) a.is(await kept(p.id), await expected(p.id), `step ${step}, pet ${p.id}`);
  }
});
