/** The API's RFC 9457 problem (or a network failure), shown as it came: status, title, detail. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly code: string | undefined,
    readonly requestId: string | undefined,
    readonly retryAfter: string | undefined,
    readonly fieldErrors: readonly { field: string; message: string }[] = [],
  ) {
    super(`${status} ${title}: ${detail}`);
  }
}

interface TokenAnswer {
  access_token: string;
  scope: string;
}

/** Who is signed in. Lives in this module's memory only: never in storage, the URL or a log. */
export interface Session {
  clientId: string;
  role: string;
  /** live or sandbox: the secret's prefix chose it. */
  env: string;
  /** Granted scopes as the token says, with the read scope each write scope implies. */
  scopes: Set<string>;
  /** null: the whole tenant. */
  locations: string[] | null;
}

let accessToken: string | undefined;
let session: Session | undefined;

async function readProblem(res: Response): Promise<ApiProblem> {
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's page): fall back to the status line
  }
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
  const errors = Array.isArray(body.errors) ? (body.errors as { field: string; message: string }[]) : [];
  return new ApiProblem(
    res.status,
    text('title') ?? (res.statusText || 'Request failed'),
    text('detail') ?? text('error_description') ?? '',
    text('code') ?? text('error'),
    text('requestId') ?? res.headers.get('x-request-id') ?? undefined,
    res.headers.get('retry-after') ?? undefined,
    errors,
  );
}

async function send(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiProblem(0, 'Network error', 'The appliance did not answer. Check the connection and try again.', undefined, undefined, undefined);
  }
}

/** Reads the claims of our own access token (role, locations); the server checks its signature, the page only shows what it says. */
function claimsOf(token: string): Record<string, unknown> {
  const part = token.split('.')[1] ?? '';
  try {
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function expand(scope: string): Set<string> {
  const out = new Set<string>();
  for (const s of scope.split(/\s+/).filter(Boolean)) {
    out.add(s);
    if (!s.endsWith('.read')) out.add(`${s}.read`);
  }
  return out;
}

async function tokenRequest(body: Record<string, string>): Promise<TokenAnswer> {
  const res = await send('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await readProblem(res);
  return (await res.json()) as TokenAnswer;
}

function keep(answer: TokenAnswer, clientId: string): Session {
  accessToken = answer.access_token;
  const claims = claimsOf(answer.access_token);
  session = {
    clientId,
    role: typeof claims.role === 'string' ? claims.role : 'unknown',
    env: typeof claims.env === 'string' ? claims.env : 'live',
    scopes: expand(answer.scope),
    locations: Array.isArray(claims.locations) ? (claims.locations as string[]) : null,
  };
  return session;
}

/** POST /oauth/token with client credentials, as any client would. The secret is not kept. */
export async function signIn(clientId: string, clientSecret: string): Promise<Session> {
  return keep(await tokenRequest({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }), clientId);
}

export function signOut(): void {
  accessToken = undefined;
  session = undefined;
}

export const currentSession = (): Session | undefined => session;

/**
 * The access token, while it lasts (an hour). It is not refreshed: a refresh needs the client
 * secret again, which the page does not keep; after expiry the API's own 401 sends the user back to sign in.
 */
function bearer(): string {
  if (!accessToken || !session) throw new ApiProblem(401, 'Not signed in', 'Sign in with a client ID and secret.', 'unauthorized', undefined, undefined);
  return accessToken;
}

/** A call with the bearer token; any answer but 2xx throws the API's own problem. */
export async function api<T>(method: 'GET' | 'POST', path: string, options: { query?: Record<string, string | undefined>; body?: unknown } = {}): Promise<T> {
  const token = bearer();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  let body: string | undefined;
  if (method === 'POST') {
    headers['Content-Type'] = 'application/json';
    headers['Idempotency-Key'] = crypto.randomUUID();
    body = JSON.stringify(options.body ?? {});
  }
  const res = await send(qs ? `${path}?${qs}` : path, { method, headers, body });
  if (!res.ok) throw await readProblem(res);
  return (await res.json()) as T;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/**
 * Opens `GET /v1/events/stream` (Server-Sent Events) with the bearer token, which an EventSource
 * cannot send: a streamed fetch instead, read by live.ts. `lastEventId` resumes after that event.
 * Any answer but 2xx throws the API's own problem.
 */
export async function openEventStream(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${bearer()}`, Accept: 'text/event-stream' };
  if (lastEventId) headers['Last-Event-ID'] = lastEventId;
  const res = await send('/v1/events/stream', { method: 'GET', headers, signal });
  if (!res.ok) throw await readProblem(res);
  if (!res.body) throw new ApiProblem(0, 'No stream', 'The browser gave no readable body for the event stream.', undefined, undefined, undefined);
  return res.body;
}
