import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the SDK made, and what came back (status 0: the fetch threw). */
export interface Exchange {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
  status: number;
  responseHeaders: Headers | undefined;
}

/**
 * A fetch for the SDK that forwards to the real one and records every exchange. `intercept` may
 * replace the answer: return a Response, throw (a network error), or return undefined to pass it on.
 */
export function recordingFetch(intercept?: (exchange: Exchange, real: () => Promise<Response>) => Promise<Response | undefined>) {
  const exchanges: Exchange[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const exchange: Exchange = {
      method: init?.method ?? 'GET',
      url,
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : undefined,
      status: 0,
      responseHeaders: undefined,
    };
    exchanges.push(exchange);
    const real = () => fetch(input, init);
    const res = (intercept ? await intercept(exchange, real) : undefined) ?? (await real());
    exchange.status = res.status;
    exchange.responseHeaders = res.headers;
    return res;
  };
  return { fetch: fetchImpl, exchanges };
}

/** The token grants the SDK asked for, in order. */
export const grantsOf = (exchanges: Exchange[]): string[] =>
  exchanges.filter((e) => e.url.pathname === '/oauth/token').map((e) => (JSON.parse(e.body ?? '{}') as { grant_type: string }).grant_type);

export interface ScriptedServer {
  url: string;
  /** Requests to paths other than /oauth/token, in order, with the time each arrived. */
  calls: { method: string; path: string; headers: http.IncomingHttpHeaders; at: number }[];
  close(): Promise<void>;
}

/**
 * A tiny API stand-in on 127.0.0.1: /oauth/token always grants a token; every other request gets
 * `answer(n)` (n counts from 0), as status, headers and a JSON body.
 */
export async function startScriptedServer(
  answer: (n: number) => { status: number; headers?: Record<string, string>; body?: unknown },
): Promise<ScriptedServer> {
  const calls: ScriptedServer['calls'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/oauth/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'token-1', token_type: 'Bearer', expires_in: 3600, scope: 'pets', refresh_token: 'rt-1' }));
        return;
      }
      const n = calls.length;
      calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, at: Date.now() });
      const { status, headers = {}, body } = answer(n);
      const problem = status >= 400;
      res.writeHead(status, { 'content-type': problem ? 'application/problem+json' : 'application/json', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const problem = (status: number, code: string, detail: string, errors?: { field: string; message: string }[]) => ({
  type: `urn:petcare:error:${code}`,
  title: code,
  status,
  detail,
  code,
  requestId: 'req_test',
  ...(errors ? { errors } : {}),
});

export interface HeldServer {
  url: string;
  /** Requests to paths other than /oauth/token, in order. */
  calls: { method: string; path: string; headers: http.IncomingHttpHeaders }[];
  /** Answers every request held so far with 200 and this JSON body. */
  release(body: unknown): void;
  close(): Promise<void>;
}

/**
 * A server on 127.0.0.1 that grants tokens at once and holds every other request unanswered until
 * `release` (with `headersFirst`, it sends the status and headers at once and holds the body): a
 * deterministic way to make a call outlast its timeout.
 */
export async function startHeldServer(options: { headersFirst?: boolean } = {}): Promise<HeldServer> {
  const calls: HeldServer['calls'] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/oauth/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'token-1', token_type: 'Bearer', expires_in: 3600, scope: 'pets' }));
        return;
      }
      calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      if (options.headersFirst) res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
      held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    release(body) {
      for (const res of held.splice(0)) {
        if (res.destroyed) continue;
        if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
