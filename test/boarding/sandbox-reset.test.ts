import test from 'ava';
import { boardingApp, checkedIn, dayAfter, expectStatus, today } from './boarding-support.js';

/** Sandbox reset erases every boarding row of the tenant, the append-only dose log included, and leaves live untouched. */
test('POST /v1/sandbox/reset erases rooms, stays, night counters, care plans, the dose log and the alert ledger', async (a) => {
  const { t, tokens } = await boardingApp();
  try {
    const admin = await t.adminToken('sandbox');
    const req = (method: string, path: string, body?: unknown) => t.request(method, path, { token: admin, body });
    await expectStatus(
      await req('POST', '/v1/boarding/rooms', {
        locationId: 'loc_demo_riverside',
        name: 'K1',
        roomType: 'standard',
        capacity: 2,
        species: ['dog', 'cat'],
        nightlyRate: 4_000,
      }),
      201,
      'room',
    );
    const pets = (await req('GET', '/v1/pets?limit=100')).body.data as Array<{ id: string; locationId: string; species: string }>;
    const pet = pets.find((p) => p.species === 'dog' || p.species === 'cat')!;
    const stay = await expectStatus(
      await req('POST', '/v1/boarding/bookings', {
        petId: pet.id,
        locationId: 'loc_demo_riverside',
        roomType: 'standard',
        checkInOn: today,
        checkOutOn: dayAfter(2),
      }),
      201,
      'stay',
    );
    await checkedIn(t, admin, stay.body.id, { vaccinationOverride: { reason: 'demo' } });
    const plan = await expectStatus(
      await req('POST', '/v1/boarding/care-plans', { bookingId: stay.body.id, feeding: [], medications: [{ name: 'M', dose: '1', times: ['08:00'] }] }),
      201,
      'plan',
    );
    await expectStatus(
      await req('POST', `/v1/boarding/care-plans/${plan.body.id}/doses`, {
        medication: 'M',
        scheduledFor: `${today}T08:00:00Z`,
        outcome: 'given',
        givenBy: 'Sam',
      }),
      201,
      'dose',
    );

    // A live row of the same kind must survive the sandbox reset.
    const liveLoc = await t.request('POST', '/v1/locations', { token: tokens.admin, body: { name: 'Live', timezone: 'Europe/London' } });
    await expectStatus(
      await t.request('POST', '/v1/boarding/rooms', {
        token: tokens.admin,
        body: { locationId: liveLoc.body.id, name: 'L', roomType: 'standard', capacity: 1, species: ['dog'], nightlyRate: 1 },
      }),
      201,
      'live room',
    );

    const reset = await req('POST', '/v1/sandbox/reset');
    a.is(reset.status, 200, reset.text);
    const db = t.stores.get('sandbox').db;
    // What the test made is gone (the room type, the stay, its plan and dose log); the demo practice's boarding is seeded again.
    for (const table of ['boarding_rooms', 'boarding_stays', 'boarding_nights', 'boarding_night_totals'] as const) {
      a.is((await db.selectFrom(table).select('tenant_id').where('room_type', '=', 'standard').execute()).length, 0, table);
    }
    a.is((await db.selectFrom('boarding_stays').select('booking_id').where('booking_id', '=', stay.body.id).execute()).length, 0);
    a.is((await db.selectFrom('boarding_care_plans').select('id').where('id', '=', plan.body.id).execute()).length, 0);
    for (const table of ['boarding_doses', 'boarding_dose_alerts', 'boarding_erasures'] as const) {
      a.is((await db.selectFrom(table).select('tenant_id').execute()).length, 0, table);
    }
    a.is((await db.selectFrom('bookings').select('id').where('id', '=', stay.body.id).execute()).length, 0);
    a.true((await db.selectFrom('boarding_stays').select('booking_id').execute()).length > 0, 'the demo stays are back');
    a.is((await t.stores.get('live').db.selectFrom('boarding_rooms').select('id').execute()).length, 1);
  } finally {
    await t.close();
  }
});
