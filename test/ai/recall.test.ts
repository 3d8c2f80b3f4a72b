import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { runJob } from '../notifications/notification-kit.js';

/**
 * POST /v1/ai/recall (DESIGN §13): pets selected by vaccine and due window within the caller's
 * locations, sent through the notifications outbox once per pet + vaccine + due date — shared with
 * the vaccination-reminders job in both directions — with dry runs, bad input and parallel calls.
 */
const clock = new TestClock(Date.parse('2026-11-23T05:00:00.000Z')); // today: 2026-11-23

let admin: string;
let downtown: { id: string };
let uptown: { id: string };
let alex: { id: string };
let sam: { id: string };
let jo: { id: string };
let kim: { id: string };
let bella: { id: string };
let luna: { id: string };
let max: { id: string };
let otis: { id: string };
let vet: TokenSet;
let downtownVet: TokenSet;
let uptownReader: TokenSet;
let reader: TokenSet;
const vac: Record<string, string> = {};

const db = () => t.stores.get('live').db;

async function vaccinate(petId: string, vaccine: string, administeredOn: string, dueOn: string): Promise<string> {
  const res = await t.request('POST', `/v1/pets/${petId}/vaccinations`, { token: admin, body: { vaccine, administeredOn, dueOn } });
  if (res.status !== 201) throw new Error(`vaccination: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const recall = (token: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  t.request('POST', '/v1/ai/recall', { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });

/** What a recall may write: every count must stay put when a call is refused or dry. */
async function counts() {
  const count = async (table: 'notifications' | 'reminder_ledger' | 'ai_recall_campaigns' | 'ai_recall_recipients' | 'events') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    notifications: await count('notifications'),
    ledger: await count('reminder_ledger'),
    campaigns: await count('ai_recall_campaigns'),
    recipients: await count('ai_recall_recipients'),
    events: await count('events'),
  };
}

async function remindersTo(petId: string) {
  return db().selectFrom('notifications').selectAll().where('pet_id', '=', petId).where('kind', '=', 'vaccination_reminder').orderBy('id').execute();
}

type Recipient = {
  petId: string;
  vaccine: string;
  dueOn: string;
  status: string;
  reason: string | null;
  parentId: string;
  vaccinationId: string;
  notificationId: string | null;
};
const rows = (recipients: Recipient[]) => recipients.map((r) => [r.petId, r.vaccine, r.dueOn, r.status, r.reason]);

const t = useTestApp(test, { clock, config: { jobPollMs: 20 } });
test.before(async () => {
  admin = await t.adminToken();
  downtown = await createLocation(t, { name: 'Downtown Clinic', timezone: 'America/New_York' });
  uptown = await createLocation(t, { name: 'Uptown Clinic' });
  alex = await createPetParent(t, downtown.id, { name: 'Alex Morgan', email: 'alex@example.com', reminderConsent: true });
  sam = await createPetParent(t, downtown.id, { name: 'Sam Patel', email: 'sam@example.com', reminderConsent: false });
  jo = await createPetParent(t, downtown.id, { name: 'Jo Williams', email: null, reminderConsent: true });
  kim = await createPetParent(t, uptown.id, { name: 'Kim Lee', email: 'kim@example.com', reminderConsent: true });
  bella = await createPet(t, alex.id, downtown.id, { name: 'Bella' });
  luna = await createPet(t, sam.id, downtown.id, { name: 'Luna' });
  max = await createPet(t, jo.id, downtown.id, { name: 'Max' });
  otis = await createPet(t, kim.id, uptown.id, { name: 'Otis' });

  vac.bellaRabies = await vaccinate(bella.id, 'Rabies', '2025-12-10', '2026-12-10'); // in 17 days
  vac.bellaParvo = await vaccinate(bella.id, 'Parvovirus', '2025-11-13', '2026-11-13'); // overdue 10 days
  vac.bellaFelv = await vaccinate(bella.id, 'FeLV', '2024-09-01', '2025-09-01'); // overdue over a year: the job's window misses it, a recall does not
  await vaccinate(bella.id, 'Bordetella', '2026-03-01', '2027-03-01'); // beyond 30 days
  await vaccinate(bella.id, 'Leptospirosis', '2025-12-01', '2026-12-01'); // superseded by the next dose
  await vaccinate(bella.id, 'leptospirosis', '2026-11-20', '2027-11-20');
  vac.lunaRabies = await vaccinate(luna.id, 'Rabies', '2025-12-01', '2026-12-01');
  vac.maxRabies = await vaccinate(max.id, 'Rabies', '2025-12-02', '2026-12-02');
  vac.otisRabies = await vaccinate(otis.id, 'Rabies', '2025-12-05', '2026-12-05');

  vet = await t.client({ name: 'vet', role: 'doctor', scopes: ['ai'] });
  downtownVet = await t.client({ name: 'downtown vet', role: 'doctor', scopes: ['ai'], locationIds: [downtown.id] });
  uptownReader = await t.client({ name: 'uptown desk', role: 'staff', scopes: ['ai.read'], locationIds: [uptown.id] });
  reader = await t.client({ name: 'desk', role: 'staff', scopes: ['ai.read'] });
});

test.serial('a dry run is a stored campaign (201, dryRun, an id, readable back) that sends and records nothing', async (a) => {
  const before = await counts();
  const res = await recall(vet.accessToken, { dueWithinDays: 30, dryRun: true });
  a.is(res.status, 201, res.text);
  a.regex(res.body.id, /^rcl_[a-z0-9]{26}$/);
  a.like(res.body, {
    dryRun: true,
    locationId: null,
    vaccines: null,
    dueWithinDays: 30,
    today: '2026-11-23',
    dueThrough: '2026-12-23',
    sent: 0,
    wouldSend: 4,
    skipped: 2,
    createdAt: new Date(clock.now()).toISOString(),
  });
  // Earliest due first; overdue doses of any age included; the superseded dose and the one beyond the window are not.
  a.deepEqual(rows(res.body.recipients), [
    [bella.id, 'FeLV', '2025-09-01', 'would_send', null],
    [bella.id, 'Parvovirus', '2026-11-13', 'would_send', null],
    [luna.id, 'Rabies', '2026-12-01', 'skipped', 'no_consent'],
    [max.id, 'Rabies', '2026-12-02', 'skipped', 'no_email'],
    [otis.id, 'Rabies', '2026-12-05', 'would_send', null],
    [bella.id, 'Rabies', '2026-12-10', 'would_send', null],
  ]);
  a.like(res.body.recipients[0], { parentId: alex.id, vaccinationId: vac.bellaFelv, locationId: downtown.id, notificationId: null });
  // Stored: the campaign and its recipients; nothing sent, no reminder recorded, no event.
  a.deepEqual(await counts(), { ...before, campaigns: before.campaigns + 1, recipients: before.recipients + 6 });
  const got = await t.request('GET', `/v1/ai/recall/${res.body.id}`, { token: reader.accessToken });
  a.is(got.status, 200, got.text);
  a.deepEqual(got.body, res.body);
  const listed = (await t.request('GET', '/v1/ai/recall', { token: reader.accessToken })).body.data[0];
  a.like(listed, { id: res.body.id, dryRun: true, recipientCount: 6, sent: 0, wouldSend: 4, skipped: 2 });
});

test.serial('bad input answers 400 with the field, another location 404, and nothing changes', async (a) => {
  const before = await counts();
  for (const [body, field] of [
    [{ dueWithinDays: -1 }, 'dueWithinDays'],
    [{ dueWithinDays: 366 }, 'dueWithinDays'],
    [{ dueWithinDays: 1.5 }, 'dueWithinDays'],
    [{}, 'dueWithinDays'],
    [{ dueWithinDays: 30, vaccines: [] }, 'vaccines'],
    [{ dueWithinDays: 30, vaccines: Array.from({ length: 21 }, (_, i) => `Vaccine ${i}`) }, 'vaccines'],
    [{ dueWithinDays: 30, vaccines: ['x'.repeat(201)] }, 'vaccines[0]'],
    [{ dueWithinDays: 30, vaccines: ['   '] }, 'vaccines[0]'],
    [{ dueWithinDays: 30, locationId: 'downtown' }, 'locationId'],
    [{ dueWithinDays: 30, dryRun: 'yes' }, 'dryRun'],
    [{ dueWithinDays: 30, channel: 'sms' }, 'channel'],
  ] as const) {
    const res = await recall(vet.accessToken, body);
    assertProblem(a, res, 400, 'validation_failed');
    a.deepEqual(fieldsOf(res), [field], JSON.stringify(body));
  }
  assertProblem(a, await recall(vet.accessToken, { dueWithinDays: 30, locationId: 'loc_doesnotexist' }), 404, 'not_found');
  assertProblem(a, await recall(downtownVet.accessToken, { dueWithinDays: 30, locationId: uptown.id }), 404, 'not_found');
  assertProblem(a, await t.request('POST', '/v1/ai/recall', { body: { dueWithinDays: 30 } }), 401, 'unauthorized');
  assertProblem(a, await recall(reader.accessToken, { dueWithinDays: 30 }), 403, 'insufficient_scope');
  a.deepEqual(await counts(), before);
});

test.serial('a recall sends once per pet, vaccine and due date; the job then does not remind those pets again', async (a) => {
  const res = await recall(downtownVet.accessToken, { dueWithinDays: 30, vaccines: ['RABIES '] }, 'recall-rabies');
  a.is(res.status, 201, res.text);
  a.regex(res.body.id, /^rcl_[a-z0-9]{26}$/);
  a.like(res.body, {
    dryRun: false,
    locationId: null,
    vaccines: ['RABIES'],
    sent: 1,
    wouldSend: 0,
    skipped: 2,
    createdAt: new Date(clock.now()).toISOString(),
  });
  // Only Downtown pets (the caller's location), only Rabies.
  a.deepEqual(rows(res.body.recipients), [
    [luna.id, 'Rabies', '2026-12-01', 'skipped', 'no_consent'],
    [max.id, 'Rabies', '2026-12-02', 'skipped', 'no_email'],
    [bella.id, 'Rabies', '2026-12-10', 'sent', null],
  ]);
  const [message] = await remindersTo(bella.id);
  a.like(message, {
    id: res.body.recipients[2].notificationId,
    parent_id: alex.id,
    related_id: vac.bellaRabies,
    to_address: 'alex@example.com',
    status: 'queued',
    channel: 'email',
  });
  a.is(message!.subject, "Bella's Rabies vaccination is due on Thursday 10 December 2026");

  // The ledger the job reads has all three; each got its pet.vaccination_due; the campaign its ai.recall_sent.
  const ledger = await db().selectFrom('reminder_ledger').selectAll().where('kind', '=', 'vaccination').orderBy('reminder_key').execute();
  a.deepEqual(
    ledger.map((r) => [r.reminder_key, r.outcome]).sort(),
    [
      [`${bella.id}|rabies|2026-12-10`, 'notified'],
      [`${luna.id}|rabies|2026-12-01`, 'no_consent'],
      [`${max.id}|rabies|2026-12-02`, 'no_email'],
    ].sort(),
  );
  const due = await db().selectFrom('events').selectAll().where('type', '=', 'pet.vaccination_due').execute();
  a.deepEqual(due.map((e) => JSON.parse(e.data).vaccinationId).sort(), [vac.bellaRabies, vac.lunaRabies, vac.maxRabies].sort());
  const sentEvents = await db().selectFrom('events').selectAll().where('type', '=', 'ai.recall_sent').execute();
  a.is(sentEvents.length, 1);
  a.deepEqual(JSON.parse(sentEvents[0]!.data), { campaignId: res.body.id, locationId: null, dueThrough: '2026-12-23', recipients: 3, sent: 1, skipped: 2 });

  // Stored and readable; a replay answers the same campaign and sends nothing more.
  const got = await t.request('GET', `/v1/ai/recall/${res.body.id}`, { token: downtownVet.accessToken });
  a.is(got.status, 200, got.text);
  a.deepEqual(got.body, res.body);
  const replay = await recall(downtownVet.accessToken, { dueWithinDays: 30, vaccines: ['RABIES '] }, 'recall-rabies');
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, res.body);
  a.is((await remindersTo(bella.id)).length, 1);

  // The job: only what the recall did not handle (Bella's Parvovirus, Otis's Rabies); nothing for the recalled three.
  const run = await runJob(t, 'vaccination-reminders');
  a.like(run.result, { due: 2, eventsEmitted: 2, notified: 2 });
  a.deepEqual((await remindersTo(bella.id)).map((n) => n.related_id).sort(), [vac.bellaRabies, vac.bellaParvo].sort());
  a.is((await remindersTo(otis.id)).length, 1);
  a.is((await db().selectFrom('events').selectAll().where('type', '=', 'pet.vaccination_due').execute()).length, 5);
});

test.serial('a pet the job reminded is not recalled again; what neither handled is sent', async (a) => {
  const res = await recall(vet.accessToken, { dueWithinDays: 30 });
  a.is(res.status, 201, res.text);
  a.like(res.body, { sent: 1, skipped: 5 });
  a.deepEqual(rows(res.body.recipients), [
    [bella.id, 'FeLV', '2025-09-01', 'sent', null],
    [bella.id, 'Parvovirus', '2026-11-13', 'skipped', 'already_reminded'],
    [luna.id, 'Rabies', '2026-12-01', 'skipped', 'already_reminded'],
    [max.id, 'Rabies', '2026-12-02', 'skipped', 'already_reminded'],
    [otis.id, 'Rabies', '2026-12-05', 'skipped', 'already_reminded'],
    [bella.id, 'Rabies', '2026-12-10', 'skipped', 'already_reminded'],
  ]);
  a.is((await remindersTo(bella.id)).length, 3);
  a.is((await remindersTo(otis.id)).length, 1);
  // A new dose moves the due date: a new pet + vaccine + due date, so it can be recalled again.
  await vaccinate(otis.id, 'Rabies', '2026-11-22', '2026-12-20');
  const again = await recall(vet.accessToken, { dueWithinDays: 30, vaccines: ['rabies'], locationId: uptown.id });
  a.like(again.body, { locationId: uptown.id, sent: 1, skipped: 0 });
  a.deepEqual(rows(again.body.recipients), [[otis.id, 'Rabies', '2026-12-20', 'sent', null]]);
  a.is((await remindersTo(otis.id)).length, 2);
});

test.serial('reading and listing campaigns follows the locations they covered', async (a) => {
  const downtownOnly = (await recall(downtownVet.accessToken, { dueWithinDays: 0, dryRun: false })).body.id as string;
  const tenantWide = (await recall(vet.accessToken, { dueWithinDays: 0 })).body.id as string;
  const uptownOnly = (await recall(vet.accessToken, { dueWithinDays: 0, locationId: uptown.id })).body.id as string;
  const get = (id: string, token: string) => t.request('GET', `/v1/ai/recall/${id}`, { token });
  a.is((await get(downtownOnly, downtownVet.accessToken)).status, 200);
  a.is((await get(downtownOnly, reader.accessToken)).status, 200, 'a tenant-wide reader sees every campaign');
  assertProblem(a, await get(downtownOnly, uptownReader.accessToken), 404, 'not_found');
  assertProblem(a, await get(tenantWide, downtownVet.accessToken), 404, 'not_found');
  a.is((await get(uptownOnly, uptownReader.accessToken)).status, 200);
  assertProblem(a, await get(uptownOnly, downtownVet.accessToken), 404, 'not_found');
  assertProblem(a, await get('rcl_doesnotexist', reader.accessToken), 404, 'not_found');
  assertProblem(a, await t.request('GET', `/v1/ai/recall/${downtownOnly}`), 401, 'unauthorized');

  // The list follows the same rule, newest first, and pages.
  const list = async (token: string, query = '') => {
    const res = await t.request('GET', `/v1/ai/recall${query}`, { token });
    a.is(res.status, 200, res.text);
    return res.body as {
      data: Array<{ id: string; recipientCount: number; sent: number; wouldSend: number; skipped: number }>;
      nextCursor: string | null;
      hasMore: boolean;
    };
  };
  const all = (await list(reader.accessToken, '?limit=100')).data;
  a.is(all.length, 7, 'every campaign of this file so far, the dry run included');
  a.deepEqual(
    all.slice(0, 3).map((c) => c.id),
    [uptownOnly, tenantWide, downtownOnly],
  );
  for (const c of all) a.is(c.sent + c.wouldSend + c.skipped, c.recipientCount);
  const downtownIds = (await list(downtownVet.accessToken)).data.map((c) => c.id);
  a.true(downtownIds.includes(downtownOnly));
  a.false(downtownIds.includes(tenantWide) || downtownIds.includes(uptownOnly));
  const uptownIds = (await list(uptownReader.accessToken)).data.map((c) => c.id);
  a.true(uptownIds.includes(uptownOnly));
  a.false(uptownIds.includes(tenantWide) || uptownIds.includes(downtownOnly));
  const first = await list(reader.accessToken, '?limit=2');
  a.true(first.hasMore);
  const second = await list(reader.accessToken, `?limit=2&cursor=${first.nextCursor}`);
  a.deepEqual(
    [...first.data, ...second.data].map((c) => c.id),
    all.slice(0, 4).map((c) => c.id),
  );
  assertProblem(a, await t.request('GET', '/v1/ai/recall?limit=101', { token: reader.accessToken }), 400, 'validation_failed');
});

test.serial('20 recalls at once queue one message per pet, vaccine and due date', async (a) => {
  const pets = [];
  for (let i = 0; i < 5; i++) {
    const parent = await createPetParent(t, downtown.id, { email: `dhpp${i}@example.com`, reminderConsent: true });
    const pet = await createPet(t, parent.id, downtown.id);
    await vaccinate(pet.id, 'DHPP', '2025-12-01', `2026-12-0${i + 1}`);
    pets.push(pet);
  }
  const results = await Promise.all(Array.from({ length: 20 }, () => recall(vet.accessToken, { dueWithinDays: 30, vaccines: ['DHPP'] })));
  a.deepEqual(
    [...new Set(results.map((r) => r.status))],
    [201],
    results
      .map((r) => r.text)
      .join('\n')
      .slice(0, 500),
  );
  a.is(
    results.reduce((sum, r) => sum + (r.body.sent as number), 0),
    5,
  );
  a.is(results.filter((r) => r.body.sent === 5).length, 1, 'one campaign sent all five; the others found them handled');
  for (const r of results) a.is((r.body.sent as number) + (r.body.skipped as number), 5);
  for (const pet of pets) a.is((await remindersTo(pet.id)).length, 1, pet.id);
  const ledger = await db().selectFrom('reminder_ledger').select('reminder_key').where('reminder_key', 'like', '%|dhpp|%').execute();
  a.is(ledger.length, 5);
});

test.serial('in the sandbox the window follows the sandbox clock, and a reset erases its campaigns (live ones stay)', async (a) => {
  const sandbox = await t.adminToken('sandbox');
  const moved = await t.request('POST', '/v1/sandbox/clock', { token: sandbox, body: { advanceTo: '2027-01-10T12:00:00Z' } });
  a.is(moved.status, 200, moved.text);
  const dry = await recall(sandbox, { dueWithinDays: 0, dryRun: true });
  a.is(dry.status, 201, dry.text);
  a.is(dry.body.today, '2027-01-10');
  a.true(dry.body.recipients.every((r: Recipient) => r.dueOn <= '2027-01-10'));
  const sent = await recall(sandbox, { dueWithinDays: 30 });
  a.is(sent.status, 201, sent.text);
  a.true(sent.body.recipients.length > 0, 'the demo data has vaccinations due');
  const sandboxDb = t.stores.get('sandbox').db;
  a.is((await sandboxDb.selectFrom('ai_recall_campaigns').selectAll().execute()).length, 2, 'the dry run and the campaign');
  const live = Number(
    (
      await db()
        .selectFrom('ai_recall_campaigns')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  a.is((await t.request('POST', '/v1/sandbox/reset', { token: sandbox })).status, 200);
  a.deepEqual(await sandboxDb.selectFrom('ai_recall_campaigns').selectAll().execute(), []);
  a.deepEqual(await sandboxDb.selectFrom('ai_recall_recipients').selectAll().execute(), []);
  assertProblem(a, await t.request('GET', `/v1/ai/recall/${sent.body.id}`, { token: sandbox }), 404, 'not_found');
  a.is(
    Number(
      (
        await db()
          .selectFrom('ai_recall_campaigns')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    live,
  );
});

test.serial('a recall selecting more than 2,000 pet and vaccine pairs is 422 recall_too_large and sends nothing; a narrower one runs', async (a) => {
  const bulk = await createLocation(t, { name: 'Bulk Clinic' });
  const parent = await createPetParent(t, bulk.id, { name: 'Pat Bulk', email: 'pat@example.com', reminderConsent: true });
  const pet = await createPet(t, parent.id, bulk.id, { name: 'Rex' });
  const first = await vaccinate(pet.id, 'Vaccine 0', '2025-11-01', '2026-11-01');
  // 2,000 more vaccines overdue, written straight to the tables (2,001 pairs in all), spread over 40
  // pets: each write's triggers walk its pet's vaccinations, so 2,000 on one pet would cost 2,000².
  const sqlite = t.stores.get('live').sqlite;
  const row = sqlite.prepare('select * from vaccinations where id = ?').get(first) as Record<string, unknown>;
  const petRow = sqlite.prepare('select * from pets where id = ?').get(pet.id) as Record<string, unknown>;
  const pets = [pet.id, ...Array.from({ length: 39 }, (_, i) => `pet_bulk${String(i).padStart(3, '0')}`)];
  const insertPet = sqlite.prepare(
    `insert into pets (${Object.keys(petRow).join(', ')}) values (${Object.keys(petRow)
      .map((k) => `@${k}`)
      .join(', ')})`,
  );
  const insert = sqlite.prepare(
    'insert into vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, lot_number, provider_id, recorded_by_client_id, recorded_by_role, created_at) ' +
      'values (@id, @tenant_id, @location_id, @pet_id, @vaccine, @vaccine_key, @administered_on, @due_on, @lot_number, @provider_id, @recorded_by_client_id, @recorded_by_role, @created_at)',
  );
  sqlite.transaction(() => {
    for (const id of pets.slice(1)) insertPet.run({ ...petRow, id, name: `Rex ${id}` });
    for (let i = 1; i <= 2000; i++)
      insert.run({ ...row, id: `vac_bulk${String(i).padStart(5, '0')}`, pet_id: pets[i % pets.length], vaccine: `Vaccine ${i}`, vaccine_key: `vaccine ${i}` });
  })();
  try {
    const before = await counts();
    for (const dryRun of [false, true]) {
      const res = await recall(vet.accessToken, { locationId: bulk.id, dueWithinDays: 0, dryRun });
      assertProblem(a, res, 422, 'recall_too_large');
      a.is(res.body.selected, 2001);
      a.is(res.body.max, 2000);
    }
    a.deepEqual(await counts(), before);
    const narrow = await recall(vet.accessToken, { locationId: bulk.id, dueWithinDays: 0, vaccines: ['Vaccine 0', 'Vaccine 7'], dryRun: true });
    a.is(narrow.status, 201, narrow.text);
    a.is(narrow.body.recipients.length, 2);
  } finally {
    sqlite.transaction(() => {
      for (const id of pets) sqlite.prepare('delete from vaccinations where pet_id = ?').run(id);
      for (const id of pets.slice(1)) sqlite.prepare('delete from pets where id = ?').run(id);
    })();
  }
});
