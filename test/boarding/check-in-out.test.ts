import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import { anotherPet, boardingApp, booked, checkedIn, day, dayAfter, eventsOf, expectStatus, room, site, start, today } from './boarding-support.js';

/** Check-in (room pick or check, required vaccinations and the override, walk-ins) and check-out (the finalized invoice). */

const vaccinate = async (t: Awaited<ReturnType<typeof boardingApp>>['t'], admin: string, petId: string, vaccine: string, dueOn: string) =>
  expectStatus(
    await t.request('POST', `/v1/pets/${petId}/vaccinations`, { token: admin, body: { vaccine, administeredOn: '2026-06-01', dueOn } }),
    201,
    'vaccination',
  );

test('check-in picks the cheapest room with space, emits boarding.checked_in; check-out bills the nights stayed at that room’s rate with tax, finalized', async (a) => {
  const { t, tokens, move } = await boardingApp();
  try {
    const s = await site(t, { taxRateBps: 825 });
    const cheap = await room(t, tokens.staff.accessToken, s.location.id, { name: 'Kennel A', nightlyRate: 4_000, capacity: 1 });
    await room(t, tokens.staff.accessToken, s.location.id, { name: 'Kennel B', nightlyRate: 6_000, capacity: 1 });
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
    a.is(b.amount, 12_000);

    const res = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    a.is(res.status, 200, res.text);
    const at = new Date(start).toISOString();
    a.like(res.body, { id: b.id, status: 'checked_in', roomId: cheap.id, checkedInAt: at, checkedOutAt: null, vaccinationOverride: null });
    const inEvents = await eventsOf(t, 'boarding.checked_in', 'bookingId', b.id);
    a.deepEqual(
      inEvents.map((e) => e.data),
      [{ bookingId: b.id, petId: s.pet.id, roomId: cheap.id, locationId: s.location.id, checkedInAt: at }],
    );
    const occ = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${today}&to=${today}`, { token: tokens.reader.accessToken });
    a.like(occ.body.nights[0], { capacity: 2, reserved: 0, checkedIn: 1, available: 1 });

    // Out a day early: 2 nights stayed at Kennel A's rate; the third night is free again.
    await move(start + 2 * day);
    const out = await t.request('POST', '/v1/boarding/check-out', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    a.is(out.status, 200, out.text);
    a.like(out.body, { id: b.id, status: 'checked_out', checkedOutAt: new Date(start + 2 * day).toISOString() });
    a.regex(out.body.invoiceId, /^inv_/);
    const invoice = (await t.request('GET', `/v1/invoices/${out.body.invoiceId}`, { token: tokens.admin })).body;
    a.like(invoice, {
      status: 'open',
      parentId: s.parent.id,
      petId: s.pet.id,
      locationId: s.location.id,
      currency: 'USD',
      subtotal: 8_000,
      tax: 660,
      total: 8_660,
      amountDue: 8_660,
    });
    a.truthy(invoice.number);
    a.is(invoice.lines.length, 1);
    a.like(invoice.lines[0], { quantity: 2, unitAmount: 4_000, amount: 8_000, taxRateBps: 825, taxAmount: 660, sourceId: b.id });
    const facts = await t.stores.get('live').db.selectFrom('bookings').select(['status', 'invoice_id']).where('id', '=', b.id).executeTakeFirstOrThrow();
    a.deepEqual(facts, { status: 'checked_out', invoice_id: out.body.invoiceId });
    const outEvents = await eventsOf(t, 'boarding.checked_out', 'bookingId', b.id);
    a.is(outEvents.length, 1);
    a.like(outEvents[0]!.data, { bookingId: b.id, petId: s.pet.id, invoiceId: out.body.invoiceId, nights: 2, amount: 8_660, currency: 'USD' });
    a.is((await eventsOf(t, 'invoice.finalized', 'invoiceId', out.body.invoiceId)).length, 1);
    const freed = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${dayAfter(1)}&to=${dayAfter(2)}`, {
      token: tokens.reader.accessToken,
    });
    a.deepEqual(
      freed.body.nights.map((n: { checkedIn: number }) => n.checkedIn),
      [1, 0],
      'past nights stay counted in house; the unused night is free',
    );

    const twice = await t.request('POST', '/v1/boarding/check-out', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    assertProblem(a, twice, 409, 'invalid_state_transition');
    a.is(twice.body.currentStatus, 'checked_out');
  } finally {
    await t.close();
  }
});

test('check-out of a stay not checked in, and check-in before the check-in day: 409; a named room is validated (409 room_unavailable)', async (a) => {
  const { t, tokens } = await boardingApp();
  try {
    const s = await site(t);
    const r1 = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
    const suite = await room(t, tokens.staff.accessToken, s.location.id, { roomType: 'suite', capacity: 1 });
    const cattery = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1, species: ['cat'] });
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(2) });
    const notIn = await t.request('POST', '/v1/boarding/check-out', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    assertProblem(a, notIn, 409, 'invalid_state_transition');
    a.is(notIn.body.currentStatus, 'reserved');
    const future = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: dayAfter(5), checkOutOn: dayAfter(6) });
    assertProblem(a, await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: future.id } }), 409, 'conflict');

    for (const other of [suite.id, cattery.id]) {
      assertProblem(
        a,
        await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id, roomId: other } }),
        409,
        'room_unavailable',
      );
    }
    assertProblem(
      a,
      await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id, roomId: 'room_nothere' } }),
      400,
      'resource_missing',
    );
    const inRoom = await checkedIn(t, tokens.staff.accessToken, b.id, { roomId: r1.id });
    a.is(inRoom.roomId, r1.id);

    // A second dog fits the type's capacity once a room is added, but not in the full room it names.
    const r2 = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
    const b2 = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: today, checkOutOn: dayAfter(1) });
    const full = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b2.id, roomId: r1.id } });
    assertProblem(a, full, 409, 'room_unavailable');
    a.is((await checkedIn(t, tokens.staff.accessToken, b2.id)).roomId, r2.id);
    // Rooms all taken: a third stay (booked before a room went inactive) finds no room.
    const r3 = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
    const b3 = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: today, checkOutOn: dayAfter(1) });
    await t.request('PATCH', `/v1/boarding/rooms/${r3.id}`, { token: tokens.staff.accessToken, body: { active: false } });
    assertProblem(
      a,
      await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b3.id } }),
      409,
      'room_unavailable',
    );
    const stay = await t.request('GET', `/v1/boarding/bookings/${b3.id}`, { token: tokens.reader.accessToken });
    a.is(stay.body.status, 'reserved', 'nothing changed');
  } finally {
    await t.close();
  }
});

test('vaccinations_required lists what is missing or expires before check-out; staff may not override (403); a doctor’s and an admin’s override is kept and audited', async (a) => {
  const { t, tokens } = await boardingApp();
  try {
    const s = await site(t, { boardingRequiredVaccines: { dog: ['Rabies', 'DHPP', 'Bordetella'], cat: ['FVRCP'] } });
    await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5 });
    await vaccinate(t, tokens.admin, s.pet.id, 'rabies', dayAfter(30));
    await vaccinate(t, tokens.admin, s.pet.id, 'DHPP', dayAfter(2));
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });

    const refused = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    assertProblem(a, refused, 422, 'vaccinations_required');
    a.deepEqual(refused.body.missing, ['DHPP', 'Bordetella']);
    const staffOverride = await t.request('POST', '/v1/boarding/check-in', {
      token: tokens.staff.accessToken,
      body: { bookingId: b.id, vaccinationOverride: { reason: 'Owner shows paper certificate' } },
    });
    assertProblem(a, staffOverride, 403, 'forbidden_role');
    a.is((await t.request('GET', `/v1/boarding/bookings/${b.id}`, { token: tokens.reader.accessToken })).body.status, 'reserved');
    const blank = await t.request('POST', '/v1/boarding/check-in', {
      token: tokens.doctor.accessToken,
      body: { bookingId: b.id, vaccinationOverride: { reason: ' ' } },
    });
    assertProblem(a, blank, 400, 'validation_failed');
    a.deepEqual(fieldsOf(blank), ['vaccinationOverride.reason']);

    const ok = await t.request('POST', '/v1/boarding/check-in', {
      token: tokens.doctor.accessToken,
      body: { bookingId: b.id, vaccinationOverride: { reason: 'Paper certificate seen' } },
    });
    a.is(ok.status, 200, ok.text);
    a.deepEqual(ok.body.vaccinationOverride, {
      reason: 'Paper certificate seen',
      clientId: tokens.doctor.id,
      role: 'doctor',
      missing: ['DHPP', 'Bordetella'],
      at: new Date(start).toISOString(),
    });
    await t.app.audit.flush();
    const audit = await t.request('GET', `/v1/audit-events?resourceId=${b.id}`, { token: tokens.admin });
    const calls = (audit.body.data as Array<{ route: string; status: number; clientId: string; role: string }>).filter(
      (e) => e.route === 'POST /v1/boarding/check-in',
    );
    a.true(
      calls.some((e) => e.status === 200 && e.clientId === tokens.doctor.id && e.role === 'doctor'),
      JSON.stringify(audit.body),
    );

    // Up to date: no override needed. A cat needs only FVRCP; an admin may override too.
    const dog = await anotherPet(t, s);
    for (const v of ['Rabies', 'DHPP', 'bordetella']) await vaccinate(t, tokens.admin, dog.id, v, dayAfter(3));
    const b2 = await booked(t, tokens.staff.accessToken, { ...s, pet: dog }, { checkInOn: today, checkOutOn: dayAfter(3) });
    a.is(((await checkedIn(t, tokens.staff.accessToken, b2.id)) as unknown as { vaccinationOverride: null }).vaccinationOverride, null);
    await room(t, tokens.staff.accessToken, s.location.id, { species: ['cat'] });
    const cat = await anotherPet(t, s, { species: 'cat' });
    const b3 = await booked(t, tokens.staff.accessToken, { ...s, pet: cat }, { checkInOn: today, checkOutOn: dayAfter(1) });
    const catRefused = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b3.id } });
    a.deepEqual(catRefused.body.missing, ['FVRCP']);
    const admin = await t.request('POST', '/v1/boarding/check-in', {
      token: tokens.admin,
      body: { bookingId: b3.id, vaccinationOverride: { reason: 'Vet on site checked' } },
    });
    a.is(admin.status, 200, admin.text);
    a.like(admin.body.vaccinationOverride, { role: 'admin', missing: ['FVRCP'] });
  } finally {
    await t.close();
  }
});

test('walk-in: books from today and checks in at once (booking.created and boarding.checked_in); its refusals write nothing', async (a) => {
  const { t, tokens } = await boardingApp();
  try {
    const s = await site(t, { boardingRequiredVaccines: { dog: ['Rabies'] } });
    await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1, nightlyRate: 3_000 });
    const body = { petId: s.pet.id, locationId: s.location.id, roomType: 'standard', checkOutOn: dayAfter(2) };
    const refused = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body });
    assertProblem(a, refused, 422, 'vaccinations_required');
    a.deepEqual(refused.body.missing, ['Rabies']);
    a.is((await t.stores.get('live').db.selectFrom('bookings').select('id').where('pet_id', '=', s.pet.id).execute()).length, 0, 'the booking rolled back');
    const incomplete = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { petId: s.pet.id, roomType: 'standard' } });
    assertProblem(a, incomplete, 400, 'validation_failed');
    a.deepEqual(fieldsOf(incomplete), ['locationId', 'checkOutOn']);
    const mixed = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: 'bkg_x', petId: s.pet.id } });
    assertProblem(a, mixed, 400, 'validation_failed');
    a.deepEqual(fieldsOf(mixed), ['petId']);

    await vaccinate(t, tokens.admin, s.pet.id, 'Rabies', dayAfter(100));
    const res = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body, idempotencyKey: 'walk-in-1' });
    a.is(res.status, 200, res.text);
    a.like(res.body, { status: 'checked_in', checkInOn: today, checkOutOn: dayAfter(2), nights: 2, amount: 6_000 });
    const replay = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body, idempotencyKey: 'walk-in-1' });
    a.is(replay.headers.get('idempotent-replayed'), 'true');
    a.deepEqual(replay.body, res.body);
    a.is((await eventsOf(t, 'booking.created', 'bookingId', res.body.id)).length, 1);
    a.is((await eventsOf(t, 'boarding.checked_in', 'bookingId', res.body.id)).length, 1);
    const again = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { ...body, petId: (await anotherPet(t, s)).id } });
    assertProblem(a, again, 409, 'no_vacancy');
  } finally {
    await t.close();
  }
});

test("a vaccine's latest dose decides, as for the pet's vaccinationStatus: a later dose due before check-out makes it missing, even after an earlier dose due later", async (a) => {
  const { t, tokens } = await boardingApp();
  try {
    const s = await site(t, { boardingRequiredVaccines: { dog: ['Rabies'] } });
    await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
    const dose = (administeredOn: string, dueOn: string) =>
      t.request('POST', `/v1/pets/${s.pet.id}/vaccinations`, { token: tokens.admin, body: { vaccine: 'Rabies', administeredOn, dueOn } });
    await expectStatus(await dose('2026-01-10', dayAfter(400)), 201, 'first dose');
    await expectStatus(await dose('2026-06-01', dayAfter(1)), 201, 'latest dose');
    const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
    const refused = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
    assertProblem(a, refused, 422, 'vaccinations_required');
    a.deepEqual(refused.body.missing, ['Rabies']);
    a.is((await t.request('GET', `/v1/pets/${s.pet.id}`, { token: tokens.admin })).body.vaccinationStatus, 'Due soon');
  } finally {
    await t.close();
  }
});
