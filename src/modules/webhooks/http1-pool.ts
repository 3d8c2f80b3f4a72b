import net from 'node:net';
import tls from 'node:tls';
import { ResponseReader, type ResponseHead } from './http1-response.js';

/**
 * Keep-alive HTTP/1.1 client connections for the webhook sender, on plain net/tls sockets: one
 * request at a time per connection (no pipelining: a POST is not safe to pipeline), each written
 * in one call, each answer read by a ResponseReader. node:http's client cost ~35 µs of CPU per
 * delivery (ClientRequest, IncomingMessage, streams, agent bookkeeping and their garbage); this
 * costs a few, so a busy subscriber no longer halves the API's write throughput.
 * No retry and no redirect here: the sender decides what an outcome means.
 */

export interface Origin {
  secure: boolean;
  /** A name or an IP literal (no brackets). */
  hostname: string;
  port: number;
}

export interface Answer {
  head: ResponseHead;
  /** The first body bytes (up to the pool's `keep`). */
  excerpt: Buffer;
}

export interface PoolOptions {
  /** Connections per origin at most; more requests wait for one. */
  maxSockets: number;
  /** An idle connection is closed after this long (before the usual 5 s server keep-alive). */
  idleMs: number;
  /** Body bytes kept for the excerpt, and read at most (past that the connection is dropped). */
  keep: number;
  limit: number;
  /** The name lookup every new connection to a name goes through (the outbound policy's). */
  lookup: net.LookupFunction;
  /** Milliseconds for idle ages (performance.now; a test moves its own). */
  now?: () => number;
}

const nowOf = (options: PoolOptions): number => (options.now ? options.now() : performance.now());

/** One request on its way: written once a connection is free, settled exactly once. */
export class Exchange {
  connection: Connection | null = null;
  settled = false;

  constructor(
    readonly request: string,
    private readonly done: (err: Error | null, answer: Answer | null, reusedSocket: boolean) => void,
  ) {}

  settle(err: Error | null, answer: Answer | null, reusedSocket: boolean): void {
    if (this.settled) return;
    this.settled = true;
    this.connection = null;
    this.done(err, answer, reusedSocket);
  }

  /** Cuts the exchange (deadline, shutdown): its connection is destroyed, never reused. */
  abort(err: Error): void {
    if (this.settled) return;
    if (this.connection) this.connection.fail(err);
    else this.settle(err, null, false); // still waiting for a connection: the pool skips settled ones
  }
}

class Connection {
  current: Exchange | null = null;
  private reader: ResponseReader | null = null;
  private error: Error | null = null;
  /** Requests this connection carried before the current one. */
  private served = 0;
  idleSince = 0;

  constructor(
    private readonly pool: OriginPool,
    readonly socket: net.Socket,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      this.error ??= err;
    });
    socket.on('close', () => this.onClose());
  }

  get usable(): boolean {
    return !this.socket.destroyed && this.socket.writable;
  }

  start(exchange: Exchange): void {
    this.current = exchange;
    this.reader = new ResponseReader(this.pool.options.keep, this.pool.options.limit);
    exchange.connection = this;
    this.socket.write(exchange.request, 'utf8');
  }

  private onData(chunk: Buffer): void {
    const exchange = this.current;
    // Bytes nobody asked for: the connection is out of step.
    if (exchange === null) return void this.socket.destroy();
    let state;
    try {
      state = this.reader!.feed(chunk);
    } catch (err) {
      return this.fail(err as Error);
    }
    if (state === 'more') return;
    const reader = this.reader!;
    const reusable = state === 'done' && reader.reusable && reader.leftover === 0;
    this.finish(exchange, reusable);
  }

  private finish(exchange: Exchange, reusable: boolean): void {
    const reader = this.reader!;
    const reused = this.served > 0;
    this.current = null;
    this.reader = null;
    this.served++;
    if (!reusable) this.socket.destroy();
    this.pool.release(this, reusable);
    exchange.settle(null, { head: reader.head!, excerpt: reader.excerpt() }, reused);
  }

  /** Ends the current exchange with `err` and drops the connection. */
  fail(err: Error): void {
    const exchange = this.current;
    this.current = null;
    this.reader = null;
    this.socket.destroy();
    exchange?.settle(err, null, this.served > 0);
  }

  private onClose(): void {
    this.pool.forget(this);
    const exchange = this.current;
    if (exchange === null) return;
    // A body framed by the end of the connection is complete now; anything else was cut.
    if (this.reader!.endOfInput()) return this.finish(exchange, false);
    this.fail(this.error ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
  }
}

class OriginPool {
  private readonly idle: Connection[] = [];
  private readonly waiting: Exchange[] = [];
  private waitingHead = 0;
  readonly connections = new Set<Connection>();

  constructor(
    private readonly origin: Origin,
    readonly options: PoolOptions,
  ) {}

  get idleCount(): number {
    return this.idle.length;
  }

  send(exchange: Exchange): void {
    // The most recently used connection first: busy receivers keep a few hot connections, and the rest go idle and are closed.
    while (this.idle.length > 0) {
      const connection = this.idle.pop()!;
      // The sweeper runs only every second or so: a connection idle past idleMs (up to idleMs + 1 s,
      // right at the usual 5 s server keep-alive) would race the server's close. It is closed instead.
      if (connection.usable && nowOf(this.options) - connection.idleSince < this.options.idleMs) return connection.start(exchange);
      connection.socket.destroy();
    }
    if (this.connections.size < this.options.maxSockets) return this.connect().start(exchange);
    this.waiting.push(exchange);
  }

  private connect(): Connection {
    const { secure, hostname, port } = this.origin;
    const literal = net.isIP(hostname) !== 0;
    // An IP literal is connected as it is (the sender checked it against the policy); a name goes through the policy's lookup.
    const socket = secure
      ? tls.connect({ host: hostname, port, ...(literal ? {} : { servername: hostname, lookup: this.options.lookup }), ALPNProtocols: ['http/1.1'] })
      : net.connect({ host: hostname, port, ...(literal ? {} : { lookup: this.options.lookup }) });
    const connection = new Connection(this, socket);
    this.connections.add(connection);
    return connection;
  }

  /** A connection finished its exchange: it serves the next waiting one, or waits idle. */
  release(connection: Connection, reusable: boolean): void {
    if (reusable && connection.usable) {
      const next = this.nextWaiting();
      if (next) return connection.start(next);
      connection.idleSince = nowOf(this.options);
      this.idle.push(connection);
      return;
    }
    // A body delimited by the close finishes after forget(), which already handed the freed slot to
    // the next waiting exchange: taking another one here would find no slot and queue it again at
    // the back (out of order; one could starve).
    if (!this.connections.delete(connection)) return;
    const next = this.nextWaiting();
    if (next) this.send(next);
  }

  /** The connection closed (by either side). */
  forget(connection: Connection): void {
    if (!this.connections.delete(connection)) return;
    const i = this.idle.indexOf(connection);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.nextWaiting();
    if (next) this.send(next);
  }

  private nextWaiting(): Exchange | undefined {
    while (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as Exchange;
      if (this.waitingHead === this.waiting.length) {
        this.waiting.length = 0;
        this.waitingHead = 0;
      }
      if (!next.settled) return next;
    }
    return undefined;
  }

  /** Closes connections idle since before `cutoff`. */
  sweep(cutoff: number): void {
    while (this.idle.length > 0 && this.idle[0]!.idleSince < cutoff) this.idle.shift()!.socket.destroy();
  }

  destroy(err: Error): void {
    for (const exchange of this.waiting.splice(0)) exchange?.abort(err);
    this.waitingHead = 0;
    for (const connection of [...this.connections]) {
      if (connection.current) connection.fail(err);
      else connection.socket.destroy();
    }
    this.idle.length = 0;
  }

  get empty(): boolean {
    return this.connections.size === 0 && this.waitingHead >= this.waiting.length;
  }
}

export class Http1Pool {
  private readonly origins = new Map<string, OriginPool>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: PoolOptions) {}

  send(origin: Origin, exchange: Exchange): void {
    const key = `${origin.secure ? 's' : 'p'}|${origin.hostname}|${origin.port}`;
    let pool = this.origins.get(key);
    if (!pool) {
      pool = new OriginPool(origin, this.options);
      this.origins.set(key, pool);
    }
    pool.send(exchange);
    if (this.sweeper === null) {
      // Idle connections are closed a second or so after idleMs; unref'd, so it never holds the process.
      this.sweeper = setInterval(() => this.sweep(), Math.max(250, Math.min(1000, this.options.idleMs / 4)));
      this.sweeper.unref();
    }
  }

  private sweep(): void {
    const cutoff = nowOf(this.options) - this.options.idleMs;
    for (const [key, pool] of this.origins) {
      pool.sweep(cutoff);
      if (pool.empty) this.origins.delete(key);
    }
    if (this.origins.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** Cuts every exchange with `err` and closes every connection. */
  destroy(err: Error): void {
    for (const pool of this.origins.values()) pool.destroy(err);
    this.origins.clear();
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** Open connections per origin key, idle ones among them (tests). */
  stats(): Array<{ origin: string; open: number; idle: number }> {
    return [...this.origins].map(([origin, pool]) => ({ origin, open: pool.connections.size, idle: pool.idleCount }));
  }
}
