import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { deferCompliance, settleCompliance } from '../../src/modules/imports/imports.repository.js';
import { prng } from '../helpers/prng.js';

/**
 * An import batch recomputes each pet's compliance once at its end (migration defer_import_compliance)
 * instead of once per dose (the vaccinations triggers), and its earliest due date and the analytics
 * change counter too (migration defer_import_pet_triggers): both paths, on the same random doses,
 * inserts and updates (dates, due dates, a dose moved to another pet) and new pets (some given doses
 * in the same batch), must leave the same compliance: each pet's stored events, and the
 * analytics_daily rows (the per-dose path leaves rows that net to 0 behind its intermediate states:
 * those count for nothing and are left out), the same earliest due dates, and a counter that moved
 * in every batch. Seeded.
 */

type Op =
  | { kind: 'insert'; id: string; pet: string; vaccine: string; on: string; due: string }
  | { kind: 'update'; id: string; pet: string; on: string; due: string }
  | { kind: 'pet'; id: string; location: string; created: string };

const vaccines = ['rabies', 'dhpp', 'lepto', 'bordetella'];
const locations = ['loc_a', 'loc_b'];

function plan(seed: number): { pets: Array<{ id: string; location: string; created: string }>; batches: Op[][] } {
  const random = prng(seed);
  const int = (n: number) => Math.floor(random() * n);
  const date = () => new Date(Date.parse('2024-01-01T00:00:00Z') + int(700) * 86_400_000).toISOString().slice(0, 10);
  const pets = Array.from({ length: 12 }, (_, i) => ({
    id: `pet_${String(i).padStart(4, '0')}`,
    location: locations[i % 2] as string,
    created: `${date()}T${String(int(24)).padStart(2, '0')}:00:00.000Z`,
  }));
  const doses: string[] = [];
  const batches: Op[][] = [];
  // Pets known to the doses: the seeded ones, then those the batches add.
  const known = pets.map((p) => ({ ...p }));
  for (let b = 0; b < 6; b += 1) {
    const ops: Op[] = [];
    for (let n = 0; n < 40; n += 1) {
      if (random() < 0.1) {
        const pet = { id: `pet_${String(known.length).padStart(4, '0')}`, location: locations[int(2)] as string, created: `${date()}T08:00:00.000Z` };
        known.push(pet);
        ops.push({ kind: 'pet', ...pet });
        continue;
      }
      const pet = (known[int(known.length)] as { id: string }).id;
      const on = date();
      // Due dates often on or next to another dose's date: the edges of the events.
      const due = random() < 0.3 ? on : new Date(Date.parse(on) + (1 + int(400)) * 86_400_000).toISOString().slice(0, 10);
      if (doses.length > 0 && random() < 0.25) ops.push({ kind: 'update', id: doses[int(doses.length)] as string, pet: random() < 0.2 ? pet : '', on, due });
      else {
        const id = `vac_${String(doses.length).padStart(6, '0')}`;
        doses.push(id);
        ops.push({ kind: 'insert', id, pet, vaccine: vaccines[int(vaccines.length)] as string, on, due });
      }
    }
    batches.push(ops);
  }
  return { pets: known, batches };
}

const insertPet = (db: DatabaseHandle, pet: { id: string; location: string; created: string }) =>
  db.sqlite
    .prepare(
      "insert into pets (id, tenant_id, location_id, owner_id, name, breed, species, created_at, updated_at) values (?, 'ten_a', ?, 'par_x', 'Rex', 'mix', 'dog', ?, ?)",
    )
    .run(pet.id, pet.location, pet.created, pet.created);

function seed(db: DatabaseHandle, pets: ReturnType<typeof plan>['pets'], added: ReadonlySet<string>): void {
  const s = db.sqlite;
  s.pragma('foreign_keys = off');
  s.prepare("insert into tenants (id, name, created_at) values ('ten_a', 'a', '2023-01-01T00:00:00.000Z')").run();
  for (const id of locations) {
    s.prepare(
      "insert into locations (id, tenant_id, name, timezone, created_at, updated_at, currency) values (?, 'ten_a', ?, 'UTC', '2023-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z', 'USD')",
    ).run(id, id);
  }
  for (const pet of pets) if (!added.has(pet.id)) insertPet(db, pet);
}

function apply(db: DatabaseHandle, pets: ReturnType<typeof plan>['pets'], op: Op): void {
  const s = db.sqlite;
  if (op.kind === 'pet') insertPet(db, op);
  else if (op.kind === 'insert') {
    const location = pets.find((p) => p.id === op.pet)?.location;
    s.prepare(
      `insert into vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, recorded_by_client_id, recorded_by_role, created_at)
       values (?, 'ten_a', ?, ?, ?, ?, ?, ?, 'cli_x', 'admin', '2026-01-01T00:00:00.000Z')`,
    ).run(op.id, location, op.pet, op.vaccine, op.vaccine, op.on, op.due);
  } else if (op.pet === '') s.prepare('update vaccinations set administered_on = ?, due_on = ? where id = ?').run(op.on, op.due, op.id);
  else s.prepare('update vaccinations set pet_id = ?, administered_on = ?, due_on = ? where id = ?').run(op.pet, op.on, op.due, op.id);
}

function compliance(db: DatabaseHandle): { events: unknown[]; daily: unknown[]; earliestDue: unknown[]; deferral: unknown[] } {
  const s = db.sqlite;
  return {
    events: s.prepare('select pet_id, tenant_id, location_id, events from analytics_pet_events order by pet_id').all(),
    daily: s
      .prepare(
        "select measure, location_id, day, key, num, den from analytics_daily where measure in ('compliance', 'pets') and (num <> 0 or den <> 0) order by measure, location_id, day, key",
      )
      .all(),
    earliestDue: s.prepare('select id, vaccination_earliest_due from pets order by id').all(),
    deferral: s.prepare('select * from compliance_deferral').all(),
  };
}

const petsVersion = (db: DatabaseHandle): number =>
  (db.sqlite.prepare("select version from analytics_versions where name = 'pets'").get() as { version: number }).version;

for (const seedValue of [1, 2, 3]) {
  test(`compliance recomputed once per pet per batch equals the per-dose triggers (seed ${seedValue})`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compliance-deferral-'));
    const perDose = openDatabase(path.join(dir, 'per-dose.sqlite'));
    const perBatch = openDatabase(path.join(dir, 'per-batch.sqlite'));
    try {
      await migrateToLatest(perDose.db);
      await migrateToLatest(perBatch.db);
      const { pets, batches } = plan(seedValue);
      const added = new Set(batches.flatMap((ops) => ops.flatMap((op) => (op.kind === 'pet' ? [op.id] : []))));
      seed(perDose, pets, added);
      seed(perBatch, pets, added);
      for (const ops of batches) {
        for (const op of ops) apply(perDose, pets, op);
        const before = petsVersion(perBatch);
        await perBatch.db.transaction().execute(async (trx) => {
          await deferCompliance(trx);
          for (const op of ops) apply(perBatch, pets, op);
          // Nothing recomputed yet: the pets are noted, the counter waits.
          t.true((perBatch.sqlite.prepare('select count(*) as n from compliance_deferral').get() as { n: number }).n > 1);
          t.is(petsVersion(perBatch), before);
          await settleCompliance(trx);
        });
        t.true(petsVersion(perBatch) > before);
        t.deepEqual(compliance(perBatch), compliance(perDose));
      }
      const final = compliance(perDose);
      t.true(final.events.length > 0 && final.daily.length > 0 && added.size > 0);
      t.true(final.earliestDue.some((p) => (p as { vaccination_earliest_due: string | null }).vaccination_earliest_due !== null));
      t.deepEqual(final.deferral, []);
    } finally {
      await perDose.db.destroy();
      await perBatch.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
