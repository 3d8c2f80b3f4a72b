import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { up as repairFutureIds } from '../../migrations/2026_11_26_1610_repair_future_dated_ids.js';
import { startTestApp, TestClock } from '../helpers/test-app.js';
import { createHousehold, createPet } from '../helpers/factories.js';

/**
 * Issue 24.1: a data dir made while the sandbox clock reached the id generator holds ids dated in the
 * future, which hid every later row from newest-first lists. The repair migration gives them the time
 * of their row's created_at and rewrites every reference.
 */
const day = 86_400_000;
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const idTime = (id: string) => [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)].reduce((value, char) => value * 32 + alphabet.indexOf(char), 0);

test('a data dir with future-dated ids is repaired: lists put new rows first, every reference follows the new ids', async (a) => {
  // Made as the bug made it: the process's id clock 60 days ahead, the rows' created_at real.
  const ahead = new TestClock(Date.now() + 60 * day);
  const before = await startTestApp({ clock: ahead });
  const admin = await before.adminToken();
  const { location, parent, pet } = await createHousehold(before);
  const vaccination = await before.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
    token: admin,
    body: { vaccine: 'Rabies', administeredOn: '2026-11-01', dueOn: '2027-11-01' },
  });
  a.is(vaccination.status, 201, vaccination.text);
  a.true(idTime(pet.id) > Date.now() + 59 * day);
  const dataDir = before.dataDir;
  await before.close({ keepData: true });

  // The repair, run on the data dir as the first start of the version that has it runs it.
  const triggersBefore: number[] = [];
  for (const file of ['live.sqlite', 'sandbox.sqlite']) {
    const sqlite = new Database(path.join(dataDir, file));
    triggersBefore.push((sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get() as { n: number }).n);
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    await repairFutureIds(db);
    await db.destroy();
  }
  const now = Date.now();
  const t = await startTestApp({ clock: new TestClock(now), dataDir });
  try {
    const token = await t.adminToken();
    type Pet = { id: string; name: string; ownerId: string; locationId: string };
    const [old] = (await t.request('GET', '/v1/pets', { token })).body.data as Pet[];
    if (!old) throw new Error('the old pet is not listed');
    const newer = await createPet(t, old.ownerId, old.locationId);
    const listed = (await t.request('GET', '/v1/pets', { token })).body.data as Pet[];
    a.deepEqual(
      listed.map((p) => p.id),
      [newer.id, old.id],
      'the pet made after the repair lists first',
    );
    a.not(old.id, pet.id);
    a.is(old.id.slice(-16), pet.id.slice(-16), 'the random part is kept');
    a.true(idTime(old.id) <= now, 'the repaired id carries its created_at time');

    // References followed: owner, location, vaccinations, the event log.
    const owner = await t.request('GET', `/v1/pet-parents/${old.ownerId}`, { token });
    a.is(owner.status, 200, owner.text);
    a.regex(owner.body.name, /^Parent /);
    a.not(old.ownerId, parent.id);
    const loc = await t.request('GET', `/v1/locations/${old.locationId}`, { token });
    a.is(loc.status, 200, loc.text);
    a.is(loc.body.name, location.name);
    const vaccinations = await t.request('GET', `/v1/pets/${old.id}/vaccinations`, { token });
    a.is(vaccinations.status, 200, vaccinations.text);
    a.is(vaccinations.body.data.length, 1);
    a.is(vaccinations.body.data[0].petId, old.id);
    a.is((await t.request('GET', `/v1/pets/${pet.id}`, { token })).status, 404, 'the future-dated id is gone');
    const events = (await t.request('GET', '/v1/events?type=pet.registered', { token })).body.data as { data: { petId: string } }[];
    a.deepEqual(events.map((e) => e.data.petId).sort(), [old.id, newer.id].sort());

    // No id left in the future; the append-only guards and counters are all back.
    for (const [i, file] of ['live.sqlite', 'sandbox.sqlite'].entries()) {
      const db = new Database(path.join(dataDir, file), { readonly: true });
      const ids = ['pets', 'pet_parents', 'locations', 'vaccinations', 'events'].flatMap((table) =>
        (db.prepare(`SELECT id FROM ${table}`).all() as { id: string }[]).map((r) => r.id),
      );
      a.deepEqual(
        ids.filter((id) => /_[0-9a-z]{26}$/.test(id) && idTime(id) > Date.now() + 60_000),
        [],
        file,
      );
      a.is((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get() as { n: number }).n, triggersBefore[i]!);
      a.deepEqual(db.prepare('PRAGMA foreign_key_check').all(), []);
      db.close();
    }
  } finally {
    await t.close();
  }
});
