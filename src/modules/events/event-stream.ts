import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import { databaseIdentity, type Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import type { Scope } from '../../http/scopes.js';
import { canonicalEventTypes, canonicalOf, type EventType } from './event-types.js';
import { envelopeJson } from './events.presenter.js';

/**
 * The live event stream (DESIGN §18): `GET /v1/events/stream` as Server-Sent Events.
 *
 * One feed per environment database reads what is new in the event log, in commit order, and
 * hands each event to the open streams that may see it. Commit order is the log's rowid: one
 * writer appends with max(rowid)+1, so a later commit always has a larger rowid (an event id's
 * time part can tie within a millisecond). The feed asks `max(rowid)` each tick (one B-tree
 * step) and reads rows only when it moved, so an idle appliance with 200 open streams runs one
 * tiny query per tick, not 200.
 *
 * A stream resuming from an event (`Last-Event-ID` or `?since=`) first catches up from the log in
 * pages, up to the feed's position, then joins the feed: no event is lost or sent twice across a
 * reconnect. A reader that stops reading is dropped once `bufferBytes` wait for it, so memory never
 * grows without bound; it reconnects with its last id and misses nothing.
 */
export interface EventStreamLimits {
  /** How often the feed looks for new events. */
  pollMs: number;
  /** A comment line this often keeps proxies and the idle timer from closing a quiet stream. */
  heartbeatMs: number;
  /** Open streams per API client (429 beyond). */
  perClient: number;
  /** Bytes waiting for a slow reader before its stream is dropped. */
  bufferBytes: number;
}

export const defaultEventStreamLimits: EventStreamLimits = { pollMs: 250, heartbeatMs: 15_000, perClient: 5, bufferBytes: 1024 * 1024 };

/**
 * The read scope that shows an event type on the stream, by the type's resource. `webhooks.read`
 * (the event log's own scope) shows every type. Tested: every catalogue type has one.
 */
const scopeByResource: Readonly<Record<string, Scope>> = {
  pet: 'pets.read',
  appointment: 'bookings.read',
  booking: 'bookings.read',
  boarding: 'bookings.read',
  provider: 'bookings.read',
  payment: 'payments.read',
  invoice: 'payments.read',
  refund: 'payments.read',
  subscription: 'payments.read',
  order: 'marketplace.read',
  marketplace: 'marketplace.read',
  ai: 'ai.read',
};

/** The scope that shows an event type on the stream (null: only `webhooks.read`). */
export const streamScopeOf = (type: EventType): Scope | null => scopeByResource[type.slice(0, type.indexOf('.'))] ?? null;

/** The event types an actor's scopes show. */
export function visibleEventTypes(actor: Pick<Actor, 'scopes'>): Set<EventType> {
  const all = actor.scopes.has('webhooks.read');
  return new Set(
    canonicalEventTypes().filter((type) => {
      const scope = streamScopeOf(type);
      return all || (scope !== null && actor.scopes.has(scope));
    }),
  );
}

/** The locations an event names: `data.locationId` and `data.locationIds` (none: a tenant-wide event). */
export function locationsNamedBy(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as { locationId?: unknown; locationIds?: unknown };
  const named: string[] = [];
  if (typeof record.locationId === 'string') named.push(record.locationId);
  if (Array.isArray(record.locationIds)) for (const id of record.locationIds) if (typeof id === 'string') named.push(id);
  return named;
}

interface LogRow {
  seq: number;
  id: string;
  tenant_id: string;
  type: string;
  data: string;
  created_at: string;
}

/** One event as the feed hands it out: parsed once, and its SSE frame built once per name it is sent under, for all streams. */
interface FeedEvent {
  row: LogRow;
  locations: string[];
  frames: Map<string, string>;
}

interface Stream {
  readonly clientId: string;
  readonly tenantId: string;
  readonly locationIds: readonly string[] | null;
  /** Canonical type → the name it is sent under (an alias when the caller asked by one). */
  readonly names: ReadonlyMap<string, string>;
  readonly out: PassThrough;
  /** Bytes it may hold for its reader before it is dropped. */
  readonly limitBytes: number;
  /** The rowid of the last event this stream has been handed (sent or filtered out). */
  lastSeq: number;
  catchingUp: boolean;
}

/** A log row as the feed reads it: its commit position (rowid) and the envelope's parts. */
const logColumns = [sql<number>`events.rowid`.as('seq'), 'id', 'tenant_id', 'type', 'data', 'created_at'] as const;

const feedEvent = (row: LogRow): FeedEvent => ({ row, locations: locationsNamedBy(JSON.parse(row.data)), frames: new Map() });

const catchUpPage = 500;
const feedPage = 1000;
/**
 * Streams written to before the feed gives the event loop a turn: each stream's write becomes a
 * socket write (a syscall) as the turn ends, and 200 of them in one turn are a burst an ordinary
 * request would wait behind.
 */
const streamsPerTurn = 25;
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

class Feed {
  readonly streams = new Set<Stream>();
  /** The rowid up to which every live stream has been handed the log. */
  cursor = 0;
  /** Ticking (it has streams, or had them at its last tick). */
  active = false;
  private running = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Executor,
    private readonly pollMs: number,
    private readonly onIdle: () => void,
  ) {}

  /** The log's newest rowid (0 when empty). */
  private async head(): Promise<number> {
    const row = await acrossTenants(this.db, 'the stream feed reads the log once for every tenant and hands each event to its own tenant’s streams')
      .selectFrom('events')
      .select(sql<number | null>`max(rowid)`.as('head'))
      .executeTakeFirst();
    return row?.head ?? 0;
  }

  /** Wakes a sleeping feed at the log's current end. */
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    this.cursor = await this.head();
  }

  /** Makes sure a tick is coming (after a stream was added). */
  wake(): void {
    this.active = true;
    if (!this.running && this.timer === null) this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Runs a tick now (tests and a write that wants its event out at once need not wait for the timer). */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      for (const stream of [...this.streams]) if (stream.catchingUp) await this.catchUp(stream);
      let head = await this.head();
      if (head < this.cursor) {
        // The log was emptied (a sandbox reset): start again from its new end.
        this.cursor = head;
        for (const stream of this.streams) stream.lastSeq = Math.min(stream.lastSeq, head);
      }
      while (head > this.cursor) {
        const rows = await acrossTenants(this.db, 'the stream feed reads the log once for every tenant and hands each event to its own tenant’s streams')
          .selectFrom('events')
          .select(logColumns)
          .where(sql<boolean>`rowid > ${this.cursor}`)
          .orderBy(sql`rowid`)
          .limit(feedPage)
          .execute();
        if (rows.length === 0) break;
        const events = rows.map(feedEvent);
        // The cursor moves first: a stream that opens while the delivery below gives the loop a turn
        // starts after these rows, and one resuming from an id among them catches up to the cursor.
        this.cursor = rows.at(-1)!.seq;
        let written = 0;
        for (const stream of [...this.streams]) {
          if (stream.catchingUp || !this.streams.has(stream)) continue;
          deliver(stream, events);
          if (++written % streamsPerTurn === 0) await loopTurn();
        }
        if (rows.length < feedPage) head = Math.max(head, this.cursor);
      }
    } finally {
      this.running = false;
      if (this.streams.size > 0) this.schedule();
      else {
        // Nobody listens: the feed sleeps (and leaves the registry) until a stream opens again.
        this.active = false;
        this.onIdle();
      }
    }
  }

  /** Sends a resuming stream what it missed, a page at a time, up to the feed's position; then it is live. */
  private async catchUp(stream: Stream): Promise<void> {
    const rows = await scoped(this.db, { tenantId: stream.tenantId, locationIds: null })
      .selectFrom('events')
      .select(logColumns)
      .where(sql<boolean>`events.rowid > ${stream.lastSeq} and events.rowid <= ${this.cursor}`)
      .orderBy(sql`events.rowid`)
      .limit(catchUpPage)
      .execute();
    deliver(stream, rows.map(feedEvent));
    if (rows.length < catchUpPage) {
      stream.lastSeq = Math.max(stream.lastSeq, this.cursor);
      stream.catchingUp = false;
    }
  }
}

/**
 * Writes the events a stream's caller may see to it, in one write (one trip through the stream and
 * the socket per stream and tick, not one per event: with 200 streams a tick's burst of socket
 * writes is what an ordinary request would wait behind); every event moves the stream's position.
 */
function deliver(stream: Stream, events: readonly FeedEvent[]): void {
  let text = '';
  for (const event of events) text += frameFor(stream, event);
  if (text) write(stream, text);
}

/** The SSE frame of one event for a stream ('' when its caller may not see it). */
function frameFor(stream: Stream, { row, locations, frames }: FeedEvent): string {
  if (row.seq <= stream.lastSeq) return '';
  stream.lastSeq = row.seq;
  if (row.tenant_id !== stream.tenantId || stream.out.destroyed) return '';
  const name = stream.names.get(row.type);
  if (name === undefined) return '';
  if (stream.locationIds !== null && !locations.some((id) => stream.locationIds!.includes(id))) return '';
  let frame = frames.get(name);
  if (frame === undefined) {
    frame = `id: ${row.id}\nevent: ${name}\ndata: ${envelopeJson(row, name)}\n\n`;
    frames.set(name, frame);
  }
  return frame;
}

function write(stream: Stream, text: string): void {
  // Ended: the appliance is stopping (closeAll) while a tick gives the loop a turn.
  if (stream.out.destroyed || stream.out.writableEnded) return;
  stream.out.write(text);
  if (stream.out.writableLength + stream.out.readableLength > stream.limitBytes) stream.out.destroy();
}

/** A request for a stream, already authorized and validated. */
export interface OpenStream {
  db: Executor;
  actor: Actor;
  /** Canonical type → name to send it under; null: every type the actor's scopes show. */
  types: ReadonlyMap<EventType, string> | null;
  /** Resume after this event's log position (null: from now). */
  afterSeq: number | null;
}

export class EventStreams {
  private readonly feeds = new Map<object, Feed>();
  private readonly perClient = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | null = null;
  /** Set by closeAll: the appliance is stopping. */
  closed = false;

  constructor(readonly limits: EventStreamLimits = defaultEventStreamLimits) {}

  /** True when the client may open one more stream. */
  hasRoomFor(clientId: string): boolean {
    return (this.perClient.get(clientId) ?? 0) < this.limits.perClient;
  }

  /** The log position of an event of the caller's tenant, or null when the log has no such event. */
  async positionOf(db: Executor, tenantId: string, eventId: string): Promise<number | null> {
    const row = await scoped(db, { tenantId, locationIds: null })
      .selectFrom('events')
      .select(sql<number>`events.rowid`.as('seq'))
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row?.seq ?? null;
  }

  /** Opens a stream: the body to answer with. It ends when the client goes, is too slow, or the appliance stops. */
  async open(request: OpenStream): Promise<PassThrough> {
    const { actor } = request;
    const visible = visibleEventTypes(actor);
    const names = new Map<string, string>();
    for (const type of visible) {
      const asked = request.types?.get(type);
      if (request.types === null) names.set(type, type);
      else if (asked !== undefined) names.set(type, asked);
    }
    const out = new PassThrough();
    const key = databaseIdentity(request.db);
    const feed = this.feeds.get(key) ?? new Feed(request.db, this.limits.pollMs, () => this.feeds.delete(key));
    this.feeds.set(key, feed);
    await feed.start();
    this.feeds.set(key, feed);
    const stream: Stream = {
      clientId: actor.clientId,
      tenantId: actor.tenantId,
      locationIds: actor.locationIds,
      names,
      out,
      limitBytes: this.limits.bufferBytes,
      lastSeq: request.afterSeq ?? feed.cursor,
      catchingUp: request.afterSeq !== null && request.afterSeq < feed.cursor,
    };
    feed.streams.add(stream);
    feed.wake();
    this.perClient.set(actor.clientId, (this.perClient.get(actor.clientId) ?? 0) + 1);
    const release = () => {
      if (!feed.streams.delete(stream)) return;
      const left = (this.perClient.get(actor.clientId) ?? 1) - 1;
      if (left > 0) this.perClient.set(actor.clientId, left);
      else this.perClient.delete(actor.clientId);
      if (this.feeds.size === 0 || [...this.feeds.values()].every((f) => f.streams.size === 0)) this.stopHeartbeat();
    };
    out.once('close', release);
    // The reconnection delay an EventSource uses, and a first line so the client knows it is connected.
    write(stream, 'retry: 2000\n: connected\n\n');
    this.startHeartbeat();
    return out;
  }

  /** Ends every stream (SIGTERM: the drain does not wait for them; clients reconnect with their last id). */
  closeAll(): void {
    this.closed = true;
    for (const feed of this.feeds.values()) {
      feed.stop();
      for (const stream of [...feed.streams]) stream.out.end();
    }
    this.stopHeartbeat();
  }

  /** Open streams (for metrics and tests). */
  get size(): number {
    let n = 0;
    for (const feed of this.feeds.values()) n += feed.streams.size;
    return n;
  }

  /** Runs every feed's tick now. */
  async flush(): Promise<void> {
    for (const feed of this.feeds.values()) if (feed.streams.size > 0) await feed.tick();
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const feed of this.feeds.values()) for (const stream of feed.streams) write(stream, ': heartbeat\n\n');
    }, this.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}

/** Types asked by name (canonical or alias) → canonical type → the name to send it under; unknown names are returned apart. */
export function typesAsked(names: readonly string[]): { types: Map<EventType, string>; unknown: string[] } {
  const types = new Map<EventType, string>();
  const unknown: string[] = [];
  for (const name of names) {
    const canonical = canonicalOf(name);
    if (canonical === null) unknown.push(name);
    else types.set(canonical, name);
  }
  return { types, unknown };
}
