import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';

export interface LingeringCloseOptions {
  /** Most bytes of an unread request body read and discarded after the answer; past it the connection is cut. */
  maxBytes: number;
  /** Longest the connection stays open after the answer, however the body trickles in. */
  maxMs?: number;
  /** Longest wait for the next chunk of the body. */
  idleMs?: number;
}

const lingered = new WeakSet<Socket>();

/**
 * Answers a request whose body is still arriving (a refused upload, a JSON body over the limit, a
 * refusal before the body was read) with `Connection: close`, then keeps reading and discarding
 * the body for a bounded time and size before closing (a lingering close, as nginx does).
 *
 * Why: Node ends a `Connection: close` answer with socket.destroySoon(), which closes the socket
 * as soon as the answer is written. With body bytes still unread, the kernel then sends a TCP
 * reset, and a client still sending (Node's fetch, undici) gets EPIPE / "socket hang up" instead
 * of the 413 it was sent. Keeping the connection open half-closed lets the client read the
 * answer; clients that read early (fetch, curl) stop sending then. Without this, a keep-alive
 * connection would read the whole body, however large. Runs after the answer is decided, outside
 * any transaction, so no database lock is held while a body drains.
 */
export function lingeringClose(options: LingeringCloseOptions) {
  const { maxBytes, maxMs = 30_000, idleMs = 5_000 } = options;
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } finally {
      // `complete` is set once the parser has the whole body: then nothing is left to drain.
      if (!ctx.req.complete) lingerAfterAnswer(ctx, maxBytes, maxMs, idleMs);
    }
  };
}

function lingerAfterAnswer(ctx: Context, maxBytes: number, maxMs: number, idleMs: number): void {
  const { req } = ctx;
  const socket = req.socket as Socket | null;
  if (!socket || socket.destroyed || lingered.has(socket)) return;
  lingered.add(socket);
  ctx.set('Connection', 'close');

  // Half-close once the answer is written (FIN), instead of destroying the socket with the body unread.
  socket.destroySoon = function destroySoon(this: Socket) {
    if (this.writable) this.end();
  };
  let drained = 0;
  const cut = () => socket.destroy();
  const total = setTimeout(cut, maxMs).unref();
  const idle = setTimeout(cut, idleMs).unref();
  socket.once('close', () => {
    clearTimeout(total);
    clearTimeout(idle);
  });
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) cut();
    else idle.refresh();
  });
  // The whole body is in: the answer may still be on its way, so close once it is written.
  req.once('end', () => {
    if (ctx.res.writableFinished) cut();
    else ctx.res.once('finish', () => setImmediate(cut));
  });
  req.on('error', () => undefined); // a client that goes away mid-drain is the expected end
  // The parser or the upload reader may have paused the body; flowing with a reader counts as
  // consuming, so Node does not switch to its own unbounded discard (req._dump) after the answer.
  req.resume();
}
