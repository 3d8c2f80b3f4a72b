import test from 'ava';
import { createProvider, putSchedule } from '../appointments/scheduling-support.js';
import { approvedWalker } from '../marketplace/orders-support.js';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { adminCredentials, TestClock, type Response, type TokenSet, useTestApp } from '../helpers/test-app.js';

/**
 * GET /v1/agents/care-coordinator (DESIGN §13): a pet's care summary computed from records made
 * through the API — vaccinations, an appointment, boarding stays with a care plan and a dose log, a
 * groom, invoices — and every action rule with its sources; location scoping and 404s.
 */

// Tuesday 1 Dec 2026 10:00 in London (GMT = UTC): the records are made then; the summary is read a day later.
const start = Date.parse('2026-12-01T10:00:00.000Z');
const later = Date.parse('2026-12-02T12:00:00.000Z');

let admin: string;
let downtown: { id: string; name: string };
let uptown: { id: string; name: string };
let parent: { id: string };
let rex: { id: string };
let bare: { id: string };
let vet: TokenSet;
let downtownDesk: TokenSet;
let uptownDesk: TokenSet;
let petsOnly: TokenSet;
const vac: Record<string, string> = {};
const ids: Record<string, string> = {};

async function ok(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

async function vaccinate(petId: string, vaccine: string, administeredOn: string, dueOn: string): Promise<string> {
  return (await ok(await t.request('POST', `/v1/pets/${petId}/vaccinations`, { token: admin, body: { vaccine, administeredOn, dueOn } }), 201, vaccine)).body
    .id;
}

const summary = (petId: string, token: string) => t.request('GET', `/v1/agents/care-coordinator?petId=${encodeURIComponent(petId)}`, { token });

const t = useTestApp(test, { clock: new TestClock(start), config: { doseOverdueMinutes: 60 } });
test.before(async () => {
  admin = await t.adminToken();
  downtown = await createLocation(t, { name: 'Downtown', currency: 'USD', taxRateBps: 0, boardingRequiredVaccines: { dog: ['Rabies', 'Bordetella'] } });
  uptown = await createLocation(t, { name: 'Uptown', currency: 'USD', taxRateBps: 0 });
  parent = await createPetParent(t, downtown.id, { name: 'Alex Morgan' });
  rex = await createPet(t, parent.id, downtown.id, { name: 'Rex', size: 'medium' });
  bare = await createPet(t, parent.id, downtown.id, { name: 'Nova' });

  vac.rabies = await vaccinate(rex.id, 'Rabies', '2025-11-20', '2026-11-20'); // overdue by 12 days on 2 Dec
  vac.dhpp = await vaccinate(rex.id, 'DHPP', '2026-01-01', '2026-12-20'); // due in 18 days
  vac.bordetella = await vaccinate(rex.id, 'Bordetella', '2026-06-01', '2027-06-01'); // up to date
  // Superseded: the older dose's due date would be "due soon"; the newer dose moves it a year out.
  vac.leptoOld = await vaccinate(rex.id, 'Leptospirosis', '2025-12-05', '2026-12-05');
  vac.lepto = await vaccinate(rex.id, 'leptospirosis', '2026-11-30', '2027-11-30');

  // An appointment tomorrow afternoon.
  const provider = await createProvider(t, { locationIds: [downtown.id] });
  await putSchedule(t, provider.id, downtown.id);
  ids.appointment = (
    await ok(
      await t.request('POST', '/v1/appointments', {
        token: admin,
        body: { petId: rex.id, providerId: provider.id, type: 'checkup', startsAt: '2026-12-02T14:00:00Z' },
      }),
      201,
      'appointment',
    )
  ).body.id;
  // A cancelled one is not upcoming; one at Uptown is shown to tenant-wide callers only.
  const cancelled = (
    await ok(
      await t.request('POST', '/v1/appointments', {
        token: admin,
        body: { petId: rex.id, providerId: provider.id, type: 'checkup', startsAt: '2026-12-04T10:00:00Z' },
      }),
      201,
      'appointment',
    )
  ).body.id;
  await ok(await t.request('PATCH', `/v1/appointments/${cancelled}`, { token: admin, body: { status: 'cancelled' } }), 200, 'cancel');
  const uptownVet = await createProvider(t, { locationIds: [uptown.id] });
  await putSchedule(t, uptownVet.id, uptown.id);
  ids.uptownAppointment = (
    await ok(
      await t.request('POST', '/v1/appointments', {
        token: admin,
        body: { petId: rex.id, providerId: uptownVet.id, type: 'checkup', startsAt: '2026-12-03T11:00:00Z', locationId: uptown.id },
      }),
      201,
      'uptown appointment',
    )
  ).body.id;

  // Boarding: in house from today (checked in over the missing Rabies by an admin override), and a later stay.
  await ok(
    await t.request('POST', '/v1/boarding/rooms', {
      token: admin,
      body: { locationId: downtown.id, name: 'Kennel 1', roomType: 'standard', capacity: 2, species: ['dog'], nightlyRate: 5_000 },
    }),
    201,
    'room',
  );
  ids.stay = (
    await ok(
      await t.request('POST', '/v1/boarding/bookings', {
        token: admin,
        body: { petId: rex.id, locationId: downtown.id, roomType: 'standard', checkInOn: '2026-12-01', checkOutOn: '2026-12-04' },
      }),
      201,
      'stay',
    )
  ).body.id;
  await ok(
    await t.request('POST', '/v1/boarding/check-in', { token: admin, body: { bookingId: ids.stay, vaccinationOverride: { reason: 'Certificate at home' } } }),
    200,
    'check-in',
  );
  ids.plan = (
    await ok(
      await t.request('POST', '/v1/boarding/care-plans', {
        token: admin,
        body: { bookingId: ids.stay, feeding: [], medications: [{ name: 'Apoquel', dose: '16 mg', times: ['08:00', '20:00'] }] },
      }),
      201,
      'care plan',
    )
  ).body.id;
  ids.nextStay = (
    await ok(
      await t.request('POST', '/v1/boarding/bookings', {
        token: admin,
        body: { petId: rex.id, locationId: downtown.id, roomType: 'standard', checkInOn: '2026-12-10', checkOutOn: '2026-12-12' },
      }),
      201,
      'next stay',
    )
  ).body.id;

  // A groom on Thursday.
  const stylist = await createProvider(t, { kind: 'groomer', locationIds: [downtown.id], services: ['grooming'] });
  await putSchedule(t, stylist.id, downtown.id);
  const pkg = await ok(
    await t.request('POST', '/v1/grooming/packages', {
      token: admin,
      body: {
        name: 'Full groom',
        services: ['bath'],
        durationMinutes: { small: 60, medium: 60, large: 60, xlarge: 60 },
        price: { small: 4_000, medium: 5_500, large: 7_000, xlarge: 9_000 },
        locationId: downtown.id,
      },
    }),
    201,
    'package',
  );
  ids.groom = (
    await ok(
      await t.request('POST', '/v1/grooming/appointments', {
        token: admin,
        body: { petId: rex.id, packageId: pkg.body.id, locationId: downtown.id, startsAt: '2026-12-03T10:00:00Z' },
      }),
      201,
      'groom',
    )
  ).body.id;

  // Invoices of the parent: one open and late at Downtown, one open at Uptown, a draft (not open).
  const invoice = (locationId: string, extra: Record<string, unknown>) =>
    t.request('POST', '/v1/invoices', {
      token: admin,
      body: { parentId: parent.id, locationId, lines: [{ description: 'Consultation', quantity: 1, unitAmount: 2_500 }], ...extra },
    });
  ids.invoice = (await ok(await invoice(downtown.id, { petId: rex.id, dueOn: '2026-11-25', finalize: true }), 201, 'invoice')).body.id;
  ids.uptownInvoice = (await ok(await invoice(uptown.id, { finalize: true }), 201, 'uptown invoice')).body.id;
  await ok(await invoice(downtown.id, { dueOn: '2026-11-20' }), 201, 'draft');

  // A marketplace walk next Monday, ordered (its booking reserved, its invoice open until paid).
  const walker = await approvedWalker(t, downtown.id);
  const walk = await ok(
    await t.request('POST', '/v1/orders', {
      token: admin,
      body: { parentId: parent.id, petId: rex.id, lines: [{ providerId: walker.id, listingId: walker.listingId, startsAt: '2026-12-07T10:00:00Z' }] },
    }),
    201,
    'order',
  );
  ids.walk = walk.body.lines[0].bookingId;
  ids.orderInvoice = walk.body.invoiceId;

  vet = await t.client({ name: 'vet', role: 'doctor', scopes: ['ai'] });
  downtownDesk = await t.client({ name: 'downtown desk', role: 'staff', scopes: ['ai.read'], locationIds: [downtown.id] });
  uptownDesk = await t.client({ name: 'uptown desk', role: 'staff', scopes: ['ai.read'], locationIds: [uptown.id] });
  petsOnly = await t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] });

  // A day later: tokens again (they expire on the same clock), and last night's 20:00 dose logged.
  t.clock.set(later);
  admin = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token;
  for (const c of [vet, downtownDesk, uptownDesk, petsOnly]) c.accessToken = (await t.token(c.clientId, c.clientSecret)).body.access_token;
  ids.dose = (
    await ok(
      await t.request('POST', `/v1/boarding/care-plans/${ids.plan}/doses`, {
        token: admin,
        body: { medication: 'Apoquel', scheduledFor: '2026-12-01T20:00:00Z', outcome: 'given', givenBy: 'Sam' },
      }),
      201,
      'dose',
    )
  ).body.id;
});

test.serial('every section is read from the records, and the actions follow the rules with their sources', async (a) => {
  const res = await summary(rex.id, vet.accessToken);
  a.is(res.status, 200, res.text);
  const body = res.body;
  a.deepEqual(body.pet, { id: rex.id, name: 'Rex', species: 'dog', ownerId: parent.id, locationId: downtown.id, vaccinationStatus: 'Overdue' });
  a.is(body.asOf, new Date(later).toISOString());
  a.is(body.today, '2026-12-02');

  // The latest dose per vaccine: the superseded Leptospirosis dose does not count.
  a.deepEqual(body.vaccinations, [
    { vaccinationId: vac.rabies, vaccine: 'Rabies', administeredOn: '2025-11-20', dueOn: '2026-11-20', status: 'overdue' },
    { vaccinationId: vac.dhpp, vaccine: 'DHPP', administeredOn: '2026-01-01', dueOn: '2026-12-20', status: 'due_soon' },
    { vaccinationId: vac.bordetella, vaccine: 'Bordetella', administeredOn: '2026-06-01', dueOn: '2027-06-01', status: 'up_to_date' },
    { vaccinationId: vac.lepto, vaccine: 'leptospirosis', administeredOn: '2026-11-30', dueOn: '2027-11-30', status: 'up_to_date' },
  ]);

  a.deepEqual(
    body.appointments.map((x: { id: string; status: string; startsAt: string }) => [x.id, x.status, x.startsAt]),
    [
      [ids.appointment, 'confirmed', '2026-12-02T14:00:00.000Z'],
      [ids.uptownAppointment, 'confirmed', '2026-12-03T11:00:00.000Z'],
    ],
  );
  // Every kind from the shared bookings table, soonest first: the stay in house, the groom, the next stay.
  a.deepEqual(
    body.bookings.map((x: { id: string; kind: string; status: string }) => [x.id, x.kind, x.status]),
    [
      [ids.stay, 'boarding', 'checked_in'],
      [ids.groom, 'grooming', 'confirmed'],
      [ids.walk, 'marketplace', 'reserved'],
      [ids.nextStay, 'boarding', 'reserved'],
    ],
  );
  a.like(body.bookings[1], { amount: 5_500, currency: 'USD', locationId: downtown.id });

  // The stay in house: its care plan, the dose logged, and the one missed (08:00 today, nothing logged 60 minutes on).
  a.like(body.activeStay, { bookingId: ids.stay, locationId: downtown.id, checkInOn: '2026-12-01', checkOutOn: '2026-12-04' });
  a.is(body.activeStay.carePlans.length, 1);
  const plan = body.activeStay.carePlans[0];
  a.is(plan.carePlan.id, ids.plan);
  a.deepEqual(
    plan.recentDoses.map((d: { id: string }) => d.id),
    [ids.dose],
  );
  a.deepEqual(plan.missedDoses, [{ medication: 'Apoquel', scheduledFor: '2026-12-02T08:00:00.000Z' }]);

  // Open invoices of the parent with an amount due (the order's too); the draft is not open.
  a.deepEqual(
    body.openInvoices.map((i: { id: string; amountDue: number; dueOn: string | null; locationId: string }) => [i.id, i.amountDue, i.dueOn, i.locationId]),
    [
      [ids.invoice, 2_500, '2026-11-25', downtown.id],
      [ids.uptownInvoice, 2_500, null, uptown.id],
      [ids.orderInvoice, 2_000, null, downtown.id],
    ],
  );

  a.deepEqual(
    body.actions.map((x: { kind: string; dueOn: string; sourceIds: string[] }) => [x.kind, x.dueOn, x.sourceIds]),
    [
      ['vaccinate_overdue', '2026-11-20', [vac.rabies]],
      ['pay_open_invoice', '2026-11-25', [ids.invoice]],
      ['missed_dose_follow_up', '2026-12-02', [ids.plan, ids.stay]],
      ['pay_open_invoice', '2026-12-02', [ids.uptownInvoice]],
      ['pay_open_invoice', '2026-12-02', [ids.orderInvoice]],
      ['book_vaccination_before_boarding', '2026-12-10', [ids.nextStay, vac.rabies]],
      ['vaccination_due_soon', '2026-12-20', [vac.dhpp]],
    ],
  );
  const reasons = Object.fromEntries(body.actions.map((x: { kind: string; reason: string }) => [x.kind, x.reason]));
  a.regex(reasons.vaccinate_overdue, /Rabies was due on 2026-11-20, 12 days ago/);
  a.regex(reasons.book_vaccination_before_boarding, /needs Rabies valid through check-out; Rex has Rabies \(due 2026-11-20\)/);
  a.regex(reasons.missed_dose_follow_up, /1 dose of Apoquel/);
  a.regex(reasons.vaccination_due_soon, /DHPP is due on 2026-12-20, in 18 days/);
  const late = body.actions.find((x: { sourceIds: string[] }) => x.sourceIds[0] === ids.invoice);
  a.regex(late.reason, /^Invoice DO-\d+ has 2500 USD \(minor units\) due, overdue since 2026-11-25\.$/);

  // Deterministic: the same records give the same answer.
  a.deepEqual((await summary(rex.id, vet.accessToken)).body, body);
});

test.serial('a pet without vaccination records gets one record_vaccinations action and empty sections', async (a) => {
  const res = await summary(bare.id, vet.accessToken);
  a.is(res.status, 200, res.text);
  a.like(res.body, { pet: { vaccinationStatus: 'No records' }, vaccinations: [], appointments: [], bookings: [], activeStay: null });
  // The parent's invoices still show: they are the parent's, not the pet's.
  a.deepEqual(
    res.body.actions.map((x: { kind: string; sourceIds: string[] }) => [x.kind, x.sourceIds]),
    [
      ['pay_open_invoice', [ids.invoice]],
      ['record_vaccinations', [bare.id]],
      ['pay_open_invoice', [ids.uptownInvoice]],
      ['pay_open_invoice', [ids.orderInvoice]],
    ],
  );
});

test.serial('a logged dose, a paid invoice and a new Rabies dose each remove their actions', async (a) => {
  // Log the missed 08:00 dose (refused counts as logged), then look again.
  await ok(
    await t.request('POST', `/v1/boarding/care-plans/${ids.plan}/doses`, {
      token: admin,
      body: { medication: 'Apoquel', scheduledFor: '2026-12-02T08:00:00Z', outcome: 'refused', givenBy: 'Sam' },
    }),
    201,
    'refused dose',
  );
  await ok(
    await t.request('POST', '/v1/payments', {
      token: admin,
      body: { parentId: parent.id, invoiceId: ids.uptownInvoice, amount: 2_500, currency: 'USD', method: 'cash' },
    }),
    201,
    'payment',
  );
  // A new Rabies dose valid for a year: no longer overdue, and the next stay's check-in requirement is met.
  const rabies = await vaccinate(rex.id, 'rabies', '2026-12-02', '2027-12-02');
  const res = await summary(rex.id, vet.accessToken);
  a.deepEqual(res.body.activeStay.carePlans[0].missedDoses, []);
  a.deepEqual(
    res.body.openInvoices.map((i: { id: string }) => i.id),
    [ids.invoice, ids.orderInvoice],
  );
  a.like(
    res.body.vaccinations.find((v: { vaccinationId: string }) => v.vaccinationId === rabies),
    { dueOn: '2027-12-02', status: 'up_to_date' },
  );
  a.deepEqual(
    res.body.actions.map((x: { kind: string; sourceIds: string[] }) => [x.kind, x.sourceIds]),
    [
      ['pay_open_invoice', [ids.invoice]],
      ['pay_open_invoice', [ids.orderInvoice]],
      ['vaccination_due_soon', [vac.dhpp]],
    ],
  );
});

test.serial('location scoping: a Downtown client sees Downtown rows only; an Uptown client gets 404 for a Downtown pet', async (a) => {
  const scoped = await summary(rex.id, downtownDesk.accessToken);
  a.is(scoped.status, 200, scoped.text);
  a.deepEqual(
    scoped.body.openInvoices.map((i: { id: string }) => i.id),
    [ids.invoice, ids.orderInvoice],
  );
  a.deepEqual(
    scoped.body.appointments.map((x: { id: string }) => x.id),
    [ids.appointment],
  );
  a.deepEqual(
    scoped.body.bookings.map((x: { id: string }) => x.id),
    [ids.stay, ids.groom, ids.walk, ids.nextStay],
  );
  a.false(JSON.stringify(scoped.body).includes(uptown.id), 'nothing of Uptown in the answer');

  assertProblem(a, await summary(rex.id, uptownDesk.accessToken), 404, 'not_found');
  assertProblem(a, await summary('pet_doesnotexist', vet.accessToken), 404, 'not_found');
});

test.serial('bad input is 400 with the field; no token 401; a token without ai.read 403', async (a) => {
  const missing = await t.request('GET', '/v1/agents/care-coordinator', { token: vet.accessToken });
  assertProblem(a, missing, 400, 'validation_failed');
  a.deepEqual(fieldsOf(missing), ['petId']);
  const long = await summary('x'.repeat(101), vet.accessToken);
  assertProblem(a, long, 400, 'validation_failed');
  a.deepEqual(fieldsOf(long), ['petId']);
  const extra = await t.request('GET', `/v1/agents/care-coordinator?petId=${rex.id}&limit=5`, { token: vet.accessToken });
  assertProblem(a, extra, 400, 'validation_failed');
  assertProblem(a, await t.request('GET', `/v1/agents/care-coordinator?petId=${rex.id}`), 401, 'unauthorized');
  assertProblem(a, await summary(rex.id, petsOnly.accessToken), 403, 'insufficient_scope');
});

test.serial('a long stay with nothing logged lists its latest 50 missed doses; the action counts them all', async (a) => {
  const milo = (
    await ok(
      await t.request('POST', '/v1/pets', {
        token: admin,
        body: { name: 'Milo', species: 'dog', breed: 'Beagle', ownerId: parent.id, locationId: downtown.id },
      }),
      201,
      'pet',
    )
  ).body;
  const stay = (
    await ok(
      await t.request('POST', '/v1/boarding/bookings', {
        token: admin,
        body: { petId: milo.id, locationId: downtown.id, roomType: 'standard', checkInOn: '2026-12-02', checkOutOn: '2026-12-30' },
      }),
      201,
      'long stay',
    )
  ).body.id;
  await ok(
    await t.request('POST', '/v1/boarding/check-in', { token: admin, body: { bookingId: stay, vaccinationOverride: { reason: 'Certificate at home' } } }),
    200,
    'check-in',
  );
  const plan = (
    await ok(
      await t.request('POST', '/v1/boarding/care-plans', {
        token: admin,
        body: { bookingId: stay, feeding: [], medications: [{ name: 'Gabapentin', dose: '100 mg', times: ['02:00', '08:00', '14:00', '20:00'] }] },
      }),
      201,
      'care plan',
    )
  ).body.id;
  // 20 days on, nothing logged: from 14:00 on 2 Dec (the plan was made at 12:00) to 08:00 on 22 Dec (14:00 is not an hour late yet) = 2 + 19 × 4 + 2 = 80.
  t.clock.set(Date.parse('2026-12-22T14:30:00.000Z'));
  const token = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token as string;
  const res = await summary(milo.id, token);
  a.is(res.status, 200, res.text);
  const [planView] = res.body.activeStay.carePlans;
  a.is(planView.carePlan.id, plan);
  a.is(planView.missedDoses.length, 50);
  a.is(planView.missedDoses.at(-1).scheduledFor, '2026-12-22T08:00:00.000Z');
  const follow = res.body.actions.find((x: { kind: string }) => x.kind === 'missed_dose_follow_up');
  a.regex(follow.reason, /^80 doses of Gabapentin/);
});
