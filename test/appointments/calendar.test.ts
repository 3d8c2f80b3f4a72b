import test from 'ava';
import ICAL from 'ical.js';
import { foldLine } from '../../src/modules/appointments/calendar-ics.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { startTestApp, TestClock, useTestApp } from '../helpers/test-app.js';
import { book, createProvider, putSchedule } from './scheduling-support.js';

/** calendarUrl: an RFC 5545 entry fetched without a bearer token through an unguessable link. */
const now = Date.parse('2026-11-23T08:00:00.000Z');

const t = useTestApp(test, { clock: new TestClock(now) });

async function appointment(notes?: string) {
  const location = await createLocation(t, { name: 'Downtown, Clinic; "North"', timezone: 'Europe/London' });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id, { name: 'Bella' });
  const provider = await createProvider(t, { name: 'Dr. Chen', locationIds: [location.id] });
  await putSchedule(t, provider.id, location.id);
  const res = await book(t, {
    petId: pet.id,
    providerId: provider.id,
    type: 'VET_CONSULTATION',
    startsAt: '2026-11-24T09:30:00Z',
    ...(notes ? { notes } : {}),
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body as { id: string; calendarUrl: string };
}

/** Unfolds content lines (RFC 5545 §3.1) into a name → value map. */
function parse(ics: string): Map<string, string> {
  const unfolded = ics.replace(/\r\n[ \t]/g, '');
  return new Map(
    unfolded
      .split('\r\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)] as [string, string]),
  );
}

test('the calendarUrl answers text/calendar without a token: a VCALENDAR with one VEVENT', async (a) => {
  const apt = await appointment();
  const res = await fetch(apt.calendarUrl);
  a.is(res.status, 200);
  a.regex(res.headers.get('content-type') ?? '', /^text\/calendar; charset=utf-8$/);
  a.regex(res.headers.get('content-disposition') ?? '', new RegExp(`${apt.id}\\.ics`));
  const ics = await res.text();
  a.true(ics.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:'));
  a.true(ics.endsWith('END:VEVENT\r\nEND:VCALENDAR\r\n'));
  a.false(/[^\r]\n/.test(ics), 'every line ends with CRLF');
  const fields = parse(ics);
  a.is(fields.get('UID'), `${apt.id}@petcare`);
  a.is(fields.get('DTSTAMP'), '20261123T080000Z');
  a.is(fields.get('DTSTART'), '20261124T093000Z');
  a.is(fields.get('DTEND'), '20261124T100000Z');
  a.is(fields.get('SUMMARY'), 'Vet consultation for Bella with Dr. Chen');
  a.is(fields.get('LOCATION'), 'Downtown\\, Clinic\\; "North"');
  a.is(fields.get('STATUS'), 'CONFIRMED');
  a.is(fields.get('SEQUENCE'), '0');
  a.false(fields.has('DESCRIPTION'));
});

test('a calendar library (ical.js, as used by Thunderbird-style clients) reads the entry back exactly', async (a) => {
  const apt = await appointment('Bring the vaccination card; fasting since 8:00, please');
  const ics = await (await fetch(apt.calendarUrl)).text();
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = calendar.getAllSubcomponents('vevent');
  a.is(events.length, 1);
  const event = new ICAL.Event(events[0]!);
  a.is(event.uid, `${apt.id}@petcare`);
  a.is(event.startDate.toJSDate().toISOString(), '2026-11-24T09:30:00.000Z');
  a.is(event.endDate.toJSDate().toISOString(), '2026-11-24T10:00:00.000Z');
  a.is(event.summary, 'Vet consultation for Bella with Dr. Chen');
  a.is(event.location, 'Downtown, Clinic; "North"');
  a.is(event.description, 'Bring the vaccination card; fasting since 8:00, please');
  a.is(events[0]!.getFirstPropertyValue('status'), 'CONFIRMED');
});

test('long and non-ASCII text is escaped and folded at 75 octets', async (a) => {
  const notes = `Première visite 🐶; allergic, to: penicillin\nOwner says ${'very '.repeat(30)}nervous`;
  const apt = await appointment(notes);
  const ics = await (await fetch(apt.calendarUrl)).text();
  for (const line of ics.split('\r\n')) a.true(Buffer.byteLength(line, 'utf8') <= 75, line);
  a.is(parse(ics).get('DESCRIPTION'), notes.replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\n/g, '\\n'));
});

test('foldLine never splits a UTF-8 character and continuation lines start with a space', (a) => {
  const line = `DESCRIPTION:${'é'.repeat(100)}`;
  const folded = foldLine(line);
  const parts = folded.split('\r\n');
  a.true(parts.length > 1);
  for (const [i, part] of parts.entries()) {
    a.true(Buffer.byteLength(part, 'utf8') <= 75);
    if (i > 0) a.true(part.startsWith(' '));
  }
  a.is(parts.map((p, i) => (i === 0 ? p : p.slice(1))).join(''), line);
  a.is(foldLine('SHORT:x'), 'SHORT:x');
});

test('a wrong, missing or other-environment token answers 404, as does an unknown id', async (a) => {
  const apt = await appointment();
  const url = new URL(apt.calendarUrl);
  const token = url.searchParams.get('token') ?? '';
  a.regex(token, /^ct_live_/);
  const variants = [
    `${url.origin}${url.pathname}`,
    // The last character changed to another one (a fixed 'x' was the token itself when it ended in x).
    `${url.origin}${url.pathname}?token=${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`,
    `${url.origin}${url.pathname}?token=${token.replace('ct_live_', 'ct_test_')}`,
    `${url.origin}${url.pathname}?token=garbage`,
    `${url.origin}/v1/calendar/apt_00000000000000000000000000.ics?token=${token}`,
  ];
  for (const variant of variants) {
    const res = await fetch(variant);
    a.is(res.status, 404, variant);
    a.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  }
  // The bearer-protected resource is not reachable through the token.
  a.is((await fetch(`${url.origin}/v1/appointments/${apt.id}?token=${token}`)).status, 401);
});

test('changes show in the calendar: a reschedule bumps SEQUENCE, a cancellation says STATUS:CANCELLED', async (a) => {
  const apt = await appointment();
  const admin = await t.adminToken();
  await t.request('PATCH', `/v1/appointments/${apt.id}`, { token: admin, body: { startsAt: '2026-11-24T11:00:00Z' } });
  let fields = parse(await (await fetch(apt.calendarUrl)).text());
  a.is(fields.get('DTSTART'), '20261124T110000Z');
  a.is(fields.get('SEQUENCE'), '1');
  await t.request('PATCH', `/v1/appointments/${apt.id}`, { token: admin, body: { status: 'CANCELLED' } });
  fields = parse(await (await fetch(apt.calendarUrl)).text());
  a.is(fields.get('STATUS'), 'CANCELLED');
  a.is(fields.get('SEQUENCE'), '2');
});

test('sandbox appointments get a ct_test_ link that opens the sandbox database', async (a) => {
  const sandbox = await t.adminToken('sandbox');
  const res = await t.request('POST', '/v1/appointments', {
    token: sandbox,
    body: { petId: 'pet_demo_bella', providerId: 'prv_demo_chen', type: 'vaccination', startsAt: '2026-11-24T15:00:00Z' },
  });
  a.is(res.status, 201, res.text);
  a.is(res.body.locationId, 'loc_demo_downtown');
  a.regex(res.body.calendarUrl, /\?token=ct_test_/);
  const ics = await (await fetch(res.body.calendarUrl)).text();
  a.is(parse(ics).get('SUMMARY'), 'Vaccination for Bella with Dr. Maya Chen');
  a.is(parse(ics).get('LOCATION'), 'Downtown Veterinary Clinic');
});

test('PETCARE_PUBLIC_URL is the base of calendar links when set', async (a) => {
  const other = await startTestApp({ clock: new TestClock(now), config: { publicUrl: 'https://pets.example.com' } });
  try {
    const sandbox = await other.adminToken('sandbox');
    const res = await other.request('POST', '/v1/appointments', {
      token: sandbox,
      body: { petId: 'pet_demo_daisy', providerId: 'prv_demo_rosa', type: 'grooming', startsAt: '2026-11-24T10:30:00Z' },
    });
    a.is(res.status, 201, res.text);
    a.regex(res.body.calendarUrl, new RegExp(`^https://pets\\.example\\.com/v1/calendar/${res.body.id}\\.ics\\?token=ct_test_`));
    const path = res.body.calendarUrl.replace('https://pets.example.com', other.url);
    a.is((await fetch(path)).status, 200);
  } finally {
    await other.close();
  }
});
