import test from 'ava';
import { PetCare, PetCareError, type StreamedEvent } from '../../sdk/src/index.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';

/** The SDK's `events.stream()` (DESIGN §18) against the real server: live events, a cut connection resumed without loss or repeats. */
const t = useTestApp(test, { config: { eventStreamPollMs: 20 } });

const sdk = () => new PetCare({ baseUrl: t.url, ...adminCredentials.live, retryBaseDelayMs: 5, maxRetryDelayMs: 50 });

test('events.stream yields live events, reconnects after a cut connection and resumes with Last-Event-ID', async (a) => {
  const client = sdk();
  const location = await client.locations.create({ name: 'Stream clinic', timezone: 'UTC' });
  const parent = await client.petParents.create({ name: 'Ana', email: 'ana@example.com', locationId: location.id });
  const newPet = async (name: string) => (await client.pets.create({ name, species: 'dog', breed: 'Beagle', ownerId: parent.id, locationId: location.id })).id;

  const abort = new AbortController();
  const seen: StreamedEvent[] = [];
  const iterator = client.events.stream({ types: ['pet.registered'], signal: abort.signal })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await iterator.next();
    if (done) throw new Error('the stream ended');
    seen.push(value);
    return value;
  };
  // The stream opens with the first next(): create the first pet once it is connected.
  const first = next();
  while (t.app.eventStreams.size === 0) await new Promise((resolve) => setImmediate(resolve));
  const p1 = await newPet('One');
  a.is((await first).data.petId, p1);

  // Cut every connection: the SDK reconnects with the last id it yielded and gets what it missed.
  t.server.closeAllConnections();
  const missed = [await newPet('Two'), await newPet('Three')];
  a.is((await next()).data.petId, missed[0]);
  a.is((await next()).data.petId, missed[1]);
  const live = await newPet('Four');
  a.is((await next()).data.petId, live);
  a.deepEqual(
    seen.map((e) => e.type),
    ['pet.registered', 'pet.registered', 'pet.registered', 'pet.registered'],
  );
  a.is(new Set(seen.map((e) => e.id)).size, 4, 'no event twice');
  abort.abort();
  a.true((await iterator.next()).done);
});

test('events.stream surfaces a refusal reconnecting cannot fix (an id the log does not hold) as a PetCareError', async (a) => {
  const iterator = sdk().events.stream({ since: 'evt_00000000000000000000000000' })[Symbol.asyncIterator]();
  const error = await a.throwsAsync(iterator.next(), { instanceOf: PetCareError });
  a.is(error?.status, 400);
});
