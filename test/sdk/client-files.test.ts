import test from 'ava';
import { PetCare, PetCareInvalidRequestError, PetCareNotFoundError } from '../../sdk/src/index.js';
import { exe, makePdf } from '../documents/document-helpers.js';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { recordingFetch } from './sdk-support.js';

/**
 * Files through the SDK against the real server: a pet document uploaded as multipart
 * (`pets.documents.upload`) and read back byte for byte (`documents.download`), and an
 * appointment's `.ics` (`appointments.calendar`), fetched with the link's own secret.
 */

const t = useTestApp(test, { jobs: false });

const sdkFor = (fetchImpl?: typeof fetch) =>
  new PetCare({ baseUrl: t.url, ...adminCredentials.live, retryBaseDelayMs: 5, ...(fetchImpl ? { fetch: fetchImpl } : {}) });

async function newPet(sdk: PetCare) {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const pet = await sdk.pets.create({ name: 'Filer', breed: 'Lab', species: 'dog', ownerId: parent.id, locationId: location.id });
  return { pet, locationId: location.id };
}

test('pets.documents.upload sends a file as multipart; documents.download gives back the same bytes, type and name', async (a) => {
  const sdk = sdkFor();
  const { pet } = await newPet(sdk);
  const pdf = await makePdf(['Blood panel', 'All values normal']);

  const uploaded = await sdk.pets.documents.upload(pet.id, { file: pdf, filename: 'blood panel.pdf', title: 'Blood panel', kind: 'lab_result' }).withResponse();
  a.is(uploaded.response.status, 201);
  const document = uploaded.data;
  a.regex(document.id, /^doc_/);
  a.is(document.petId, pet.id);
  a.is(document.title, 'Blood panel');
  a.is(document.kind, 'lab_result');
  a.is(document.contentType, 'application/pdf');
  a.deepEqual(
    (await sdk.pets.documents.list(pet.id).toArray()).map((d) => d.id),
    [document.id],
  );

  const content = await sdk.documents.download(document.id);
  a.deepEqual(Buffer.from(content.bytes), pdf, 'byte-identical');
  a.is(content.contentType, 'application/pdf');
  a.is(content.filename, 'blood panel.pdf');
  a.regex(content.etag ?? '', /^"[0-9a-f]{64}"$/);

  // A Blob and a declared text type work too (Markdown by name).
  const notes = await sdk.pets.documents.upload(pet.id, { file: new Blob(['# Notes\n\nEats well.\n'], { type: 'text/markdown' }), filename: 'notes.md' });
  a.is(notes.contentType, 'text/markdown');
  a.is(new TextDecoder().decode((await sdk.documents.download(notes.id)).bytes), '# Notes\n\nEats well.\n');
});

test('upload and download refusals are typed errors: an unknown pet, a type the API refuses, a missing document', async (a) => {
  const sdk = sdkFor();
  const { pet } = await newPet(sdk);
  const noPet = await a.throwsAsync(sdk.pets.documents.upload('pet_doesnotexist0000', { file: Buffer.from('hello'), filename: 'a.txt' }), {
    instanceOf: PetCareNotFoundError,
  });
  a.is(noPet?.code, 'not_found');
  const program = await a.throwsAsync(sdk.pets.documents.upload(pet.id, { file: exe, filename: 'setup.exe' }), { instanceOf: PetCareInvalidRequestError });
  a.is(program?.status, 415);
  a.is(program?.code, 'unsupported_media_type');
  await a.throwsAsync(sdk.documents.download('doc_doesnotexist0000'), { instanceOf: PetCareNotFoundError });
});

test('appointments.calendar gives the .ics of an appointment, by id or from the appointment, without the bearer token', async (a) => {
  const rec = recordingFetch();
  const sdk = sdkFor(rec.fetch);
  const { pet, locationId } = await newPet(sdk);
  const provider = await sdk.providers.create({ name: 'Dr. Ics', kind: 'vet', locationIds: [locationId], services: ['vaccination'] });
  const weekly = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '09:00', end: '17:00' }));
  await sdk.appointments.schedules.put(provider.id, { locationId, weekly, timeOff: [] });
  const day = (offset: number) => new Date(t.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const {
    data: [slot],
  } = await sdk.appointments.availability({ locationId, type: 'vaccination', from: day(2), to: day(3) });
  const appointment = await sdk.appointments.create({ petId: pet.id, providerId: slot!.providerId, type: 'vaccination', startsAt: slot!.startsAt });

  const byId = await sdk.appointments.calendar(appointment.id).withResponse();
  a.is(byId.response.status, 200);
  a.regex(byId.response.headers.get('content-type') ?? '', /^text\/calendar/);
  const ics = byId.data;
  a.regex(ics, /^BEGIN:VCALENDAR\r?\n/);
  a.regex(ics, /BEGIN:VEVENT/);
  a.true(ics.includes(appointment.id), 'the event names the appointment');
  a.is(await sdk.appointments.calendar(appointment), ics, 'the same from the appointment already fetched');

  const calendarCalls = rec.exchanges.filter((e) => e.url.pathname.startsWith('/v1/calendar/'));
  a.is(calendarCalls.length, 2);
  a.true(
    calendarCalls.every((e) => e.headers.get('authorization') === null && e.url.searchParams.get('token') !== null),
    'the link carries its own secret',
  );

  const forged = new URL(appointment.calendarUrl);
  forged.searchParams.set('token', 'ct_live_wrong');
  await a.throwsAsync(sdk.appointments.calendar({ calendarUrl: forged.href }), { instanceOf: PetCareNotFoundError });
  await a.throwsAsync(sdk.appointments.calendar('apt_doesnotexist0000'), { instanceOf: PetCareNotFoundError });
});
