import test from 'ava';
import { newId } from '../../src/db/ids.js';
import { streamScopeOf } from '../../src/modules/events/event-stream.js';
import { canonicalEventTypes } from '../../src/modules/events/index.js';
import { useTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * GET /v1/events/stream (DESIGN §18): what a caller sees by scope and location, resuming without
 * loss or duplicates, type filters, the per-client cap, slow readers dropped, and shutdown.
 */
const t0 = useTestApp(test, { config: { eventStreamsPerClient: 3, eventStreamPollMs: 20, eventStreamBufferBytes: 16 * 1024 } });

interface Message {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A Server-Sent Events reader over fetch: frames as they arrive, and a wait for the one you need. */
class StreamReader {
  readonly messages: Message[] = [];
  ended = false;
  private waiters: Array<() => void> = [];
  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly problem: any,
    private readonly abort: AbortController,
  ) {}

  static async open(app: TestApp, token: string, path = '/v1/events/stream', headers: Record<string, string> = {}): Promise<StreamReader> {
    const abort = new AbortController();
    opened.push(abort);
    const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
    if (res.status !== 200) {
      const refused = new StreamReader(res.status, res.headers, await res.json(), abort);
      refused.ended = true;
      return refused;
    }
    const reader = new StreamReader(res.status, res.headers, null, abort);
    void reader.pump(res.body!);
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of body) {
        text += decoder.decode(chunk, { stream: true });
        let end = text.indexOf('\n\n');
        while (end !== -1) {
          this.messages.push(...parseFrame(text.slice(0, end)));
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
        }
        this.wake();
      }
    } catch {
      // aborted or cut
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Waits until `done` holds for the messages so far (or the stream ended). */
  async until(done: (messages: Message[]) => boolean): Promise<Message[]> {
    while (!done(this.messages) && !this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.messages;
  }

  events(): Message[] {
    return this.messages.filter((m) => m.event !== undefined);
  }

  close(): void {
    this.abort.abort();
  }
}

/** Every stream a test opened: closed after it, whatever it asserted. */
const opened: AbortController[] = [];
test.afterEach.always(() => {
  for (const abort of opened.splice(0)) abort.abort();
});

function parseFrame(frame: string): Message[] {
  const message: Message = {};
  const out: Message[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) out.push({ comment: line.slice(1).trim() });
    else if (line.startsWith('id: ')) message.id = line.slice(4);
    else if (line.startsWith('event: ')) message.event = line.slice(7);
    else if (line.startsWith('data: ')) message.data = line.slice(6);
  }
  if (message.event !== undefined) out.push(message);
  return out;
}

let admin: string;
let here: string;
let there: string;
let parent: string;

test.before(async () => {
  admin = await t0.adminToken();
  const loc = async (name: string) =>
    (await t0.request('POST', '/v1/locations', { token: admin, body: { name, timezone: 'America/New_York' } })).body.id as string;
  here = await loc('Here');
  there = await loc('There');
  parent = (await t0.request('POST', '/v1/pet-parents', { token: admin, body: { name: 'Alex', email: 'alex@example.com', locationId: here } })).body.id;
});

const newPet = async (name: string, locationId: string): Promise<string> => {
  const res = await t0.request('POST', '/v1/pets', { token: admin, body: { name, species: 'dog', breed: 'Beagle', ownerId: parent, locationId } });
  if (res.status !== 201) throw new Error(`pet: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
};

const petIdOf = (m: Message): string => {
  const { data } = JSON.parse(m.data!) as { data: { id?: string; petId?: string } };
  return data.petId ?? data.id ?? '';
};

test.serial('a client confined to a location sees its location’s events only; a tenant-wide client sees every one', async (t) => {
  const desk = await t0.client({ name: 'desk', role: 'staff', scopes: ['pets'], locationIds: [here] });
  const confined = await StreamReader.open(t0, desk.accessToken);
  const everything = await StreamReader.open(t0, admin);
  t.is(confined.status, 200, JSON.stringify(confined.problem));
  t.regex(confined.headers.get('content-type') ?? '', /^text\/event-stream/);
  await confined.until((m) => m.some((x) => x.comment === 'connected'));
  await everything.until((m) => m.some((x) => x.comment === 'connected'));
  const a = await newPet('A', here);
  const b = await newPet('B', there);
  const marker = await newPet('Marker', here);
  await confined.until(() => confined.events().some((m) => petIdOf(m) === marker));
  await everything.until(() => everything.events().some((m) => petIdOf(m) === marker));
  t.deepEqual(confined.events().map(petIdOf), [a, marker], 'B was committed before the marker: it would have arrived first');
  t.deepEqual(
    everything
      .events()
      .filter((m) => m.event === 'pet.registered')
      .map(petIdOf),
    [a, b, marker],
  );
  // The envelope is the webhook's: {id, type, createdAt, data}, and the SSE id is the event's.
  const first = JSON.parse(confined.events()[0]!.data!);
  t.is(first.id, confined.events()[0]!.id);
  t.is(first.type, 'pet.registered');
  confined.close();
  everything.close();
});

test.serial('a reconnect with Last-Event-ID (or ?since=) receives exactly the missed events, then live ones', async (t) => {
  const first = await StreamReader.open(t0, admin, '/v1/events/stream?types=pet.registered');
  await first.until((m) => m.some((x) => x.comment === 'connected'));
  const p1 = await newPet('One', here);
  await first.until(() => first.events().some((m) => petIdOf(m) === p1));
  const last = first.events().at(-1)!.id!;
  first.close();
  const missed = [await newPet('Two', here), await newPet('Three', there)];
  const again = await StreamReader.open(t0, admin, '/v1/events/stream?types=pet.registered', { 'Last-Event-ID': last });
  await again.until(() => again.events().length >= 2);
  const live = await newPet('Four', here);
  await again.until(() => again.events().some((m) => petIdOf(m) === live));
  t.deepEqual(again.events().map(petIdOf), [...missed, live]);
  const ids = again.events().map((m) => m.id);
  t.is(new Set(ids).size, ids.length, 'no event twice');
  again.close();

  const since = await StreamReader.open(t0, admin, `/v1/events/stream?types=pet.registered&since=${last}`);
  await since.until(() => since.events().length >= 3);
  t.deepEqual(since.events().slice(0, 3).map(petIdOf), [...missed, live]);
  since.close();
});

test.serial('types filters (unknown names are refused), and scopes decide which types a client sees', async (t) => {
  const refused = await StreamReader.open(t0, admin, '/v1/events/stream?types=pet.registered,pet.exploded');
  t.is(refused.status, 400);
  t.is(refused.problem.errors[0].field, 'types');
  const unknown = await StreamReader.open(t0, admin, '/v1/events/stream', { 'Last-Event-ID': newId('evt') });
  t.is(unknown.status, 400);
  t.is(unknown.problem.errors[0].field, 'Last-Event-ID');

  const money = await t0.client({ name: 'till', role: 'staff', scopes: ['payments'] });
  const till = await StreamReader.open(t0, money.accessToken);
  const pets = await StreamReader.open(t0, admin, '/v1/events/stream?types=pet.registered');
  await till.until((m) => m.some((x) => x.comment === 'connected'));
  await pets.until((m) => m.some((x) => x.comment === 'connected'));
  await t0.request('POST', '/v1/providers', { token: admin, body: { name: 'Dr. Who', kind: 'vet', locationIds: [here] } });
  const pet = await newPet('Scoped', here);
  const invoice = await t0.request('POST', '/v1/invoices', {
    token: admin,
    body: { parentId: parent, locationId: here, finalize: true, lines: [{ description: 'Visit', quantity: 1, unitAmount: 1000 }] },
  });
  t.is(invoice.status, 201);
  await pets.until(() => pets.events().some((m) => petIdOf(m) === pet));
  await till.until(() => till.events().some((m) => m.event === 'invoice.finalized'));
  t.deepEqual([...new Set(pets.events().map((m) => m.event))], ['pet.registered'], 'no provider.onboarded');
  t.false(
    till.events().some((m) => m.event!.startsWith('pet.')),
    'payments scope shows no pet events',
  );
  till.close();
  pets.close();
  const nothing = await t0.client({ name: 'notes', role: 'staff', scopes: ['notifications'] });
  t.is((await StreamReader.open(t0, nothing.accessToken)).status, 403);
});

test.serial('at most N streams per client (429 beyond); a closed one frees its place', async (t) => {
  const open = [await StreamReader.open(t0, admin), await StreamReader.open(t0, admin), await StreamReader.open(t0, admin)];
  t.deepEqual(
    open.map((s) => s.status),
    [200, 200, 200],
  );
  const fourth = await StreamReader.open(t0, admin);
  t.is(fourth.status, 429);
  t.is(fourth.problem.code, 'rate_limited');
  open[0]!.close();
  await open[0]!.until(() => false);
  // The server sees the close when its socket does: poll the API until the place is free.
  let again = await StreamReader.open(t0, admin);
  while (again.status === 429) {
    await new Promise((resolve) => setImmediate(resolve));
    again = await StreamReader.open(t0, admin);
  }
  t.is(again.status, 200);
  for (const s of [...open, again]) s.close();
});

test.serial('a reader that stops reading is dropped once its buffer fills; memory does not grow with the backlog', async (t) => {
  const slow = await t0.client({ name: 'slow reader', role: 'staff', scopes: ['pets'] });
  const abort = new AbortController();
  opened.push(abort);
  const res = await fetch(`${t0.url}/v1/events/stream?types=pet.registered`, {
    headers: { authorization: `Bearer ${slow.accessToken}` },
    signal: abort.signal,
  });
  t.is(res.status, 200);
  // Never read the body. Fill the log with 1 KB events faster than nobody reads them.
  const live = t0.stores.get('live');
  const insert = live.sqlite.prepare('INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
  const payload = JSON.stringify({ id: 'pet_x', locationId: here, note: 'x'.repeat(1000) });
  const streams = t0.app.eventStreams;
  const before = streams.size;
  t.true(before >= 1);
  let batches = 0;
  while (streams.size === before && batches < 400) {
    live.sqlite.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(newId('evt'), t0.tenantId, 'pet.registered', payload, new Date().toISOString());
    })();
    batches++;
    await streams.flush();
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(streams.size, before - 1, `dropped after ${batches * 500} events`);
  abort.abort();
});

test.serial('shutdown ends every stream at once', async (t) => {
  const last = await t0.client({ name: 'last', role: 'staff', scopes: ['pets'] });
  const reader = await StreamReader.open(t0, last.accessToken);
  await reader.until((m) => m.some((x) => x.comment === 'connected'));
  t0.app.eventStreams.closeAll();
  await reader.until(() => false);
  t.true(reader.ended);
  t.is((await StreamReader.open(t0, admin)).status, 503, 'no stream opens while the appliance stops');
});

test('every event type of the catalogue is shown by some read scope', (t) => {
  t.deepEqual(
    canonicalEventTypes().filter((type) => streamScopeOf(type) === null),
    [],
  );
});
