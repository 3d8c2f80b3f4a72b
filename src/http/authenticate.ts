import type { Clock } from '../clock.js';
import type { Config, Environment } from '../config.js';
import type { Stores } from '../db/stores.js';
import type { Actor } from './actor.js';
import type { ApiVersion } from './api-versions.js';
import { AppError } from './errors.js';
import { normalizeIp, type IpMatcher } from './ip-allowlist.js';
import { enforceRateLimit, type SlidingWindowLimiter } from './rate-limit.js';
import type { AppContext } from './request-context.js';
import { expandScopes, scopesOf, type Role, type Scope } from './scopes.js';

/** The claims of a verified access token that the gateway acts on. */
export interface VerifiedToken {
  /** The client's resource id (cli_…). */
  readonly sub: string;
  readonly tenant: string;
  readonly env: Environment;
  /** Granted scopes, space-separated. */
  readonly scope: string;
  /** The token id and its session (refresh-token family): revoking either stops the token. */
  readonly jti: string;
  readonly sid: string;
  /** Expiry, in seconds since the epoch. */
  readonly exp: number;
  /** The client's token generation when the token was issued (absent in tokens older than the claim: 0). */
  readonly gen?: number | undefined;
}

/** A token the verifier refused; the message is safe to show the caller. */
export class TokenRejected extends Error {}

/** Checks an access token's signature and claims (implemented by the oauth module). */
export interface TokenVerifier {
  /** Throws TokenRejected when the token is not ours, not valid, or expired. */
  verify(token: string): VerifiedToken;
}

/** An API client's current record, as far as the gateway needs it. */
export interface CallerRecord {
  readonly id: string;
  readonly clientId: string;
  readonly tenantId: string;
  readonly role: Role;
  readonly disabled: boolean;
  readonly locationIds: readonly string[] | null;
  readonly rateLimitPerMinute: number | null;
  readonly apiVersion: ApiVersion;
  /** Access tokens issued under an older generation were cut by a secret rotation or a disable. */
  readonly tokenGeneration: number;
}

export interface KnownCaller {
  readonly client: CallerRecord;
  /** What the client may use now: its ceiling ∩ its role, with implied read scopes. */
  readonly allowedScopes: ReadonlySet<Scope>;
  readonly ipAllowed: IpMatcher | null;
}

/** Current client records and revoked token ids (implemented by the clients module). */
export interface ClientLookup {
  /**
   * A number that changes whenever a client or a revocation may have changed, in this process or
   * in another one (the CLI); what `client` and `isRevoked` answered holds while it is unchanged.
   */
  version(env: Environment): number;
  client(env: Environment, clientId: string): Promise<KnownCaller | null>;
  isRevoked(env: Environment, tokenId: string): Promise<boolean>;
}

interface CallerEntry {
  readonly env: Environment;
  /** The ClientLookup version the entry was resolved under. */
  readonly version: number;
  readonly exp: number;
  readonly actor: Actor;
  readonly known: KnownCaller;
}

/**
 * Resolved callers by token string, so the signature check, the client record, the revocation
 * lists and the scope arithmetic run once per token, not once per request. An entry is used only
 * while its token has not expired and the client lookup's version is unchanged: a revocation, a
 * disabled, narrowed or moved client, or a change made by the CLI takes effect on the next request.
 */
export class CallerCache {
  /** Keyed by the token's last characters (its signature), each entry holding the whole token. */
  private readonly entries = new Map<string, { token: string; entry: CallerEntry }>();

  constructor(private readonly limit = 10_000) {}

  /**
   * A Map lookup hashes its key: the whole ~700-character token cost ~1.5 µs a request on the bench
   * machine (each request's header is a new string). The last 48 characters (a signature's, for a
   * JWT) find the entry; the whole token must then equal the one stored, so a collision is a miss.
   */
  private static keyOf(token: string): string {
    return token.length > 48 ? token.slice(-48) : token;
  }

  get(token: string): CallerEntry | undefined {
    const found = this.entries.get(CallerCache.keyOf(token));
    return found !== undefined && found.token === token ? found.entry : undefined;
  }

  set(token: string, entry: CallerEntry): void {
    const key = CallerCache.keyOf(token);
    if (!this.entries.has(key) && this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { token, entry });
  }

  delete(token: string): void {
    const key = CallerCache.keyOf(token);
    if (this.entries.get(key)?.token === token) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

const realm = 'petcare';

function unauthorized(detail: string, error?: 'invalid_token' | 'invalid_request'): AppError {
  const challenge = error ? `Bearer realm="${realm}", error="${error}", error_description="${detail.replace(/"/g, "'")}"` : `Bearer realm="${realm}"`;
  return new AppError(error ? 'invalid_token' : 'unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } });
}

export interface AuthenticateDeps {
  config: Pick<Config, 'rateLimitPerMinute'>;
  clock: Clock;
  stores: Stores;
  tokens: TokenVerifier;
  clients: ClientLookup;
  callers: CallerCache;
  limiter: SlidingWindowLimiter;
}

/** The caller behind a token, from the token's claims and the client's current record; throws the 401s. */
async function resolveCaller(token: string, deps: AuthenticateDeps): Promise<CallerEntry> {
  let claims: VerifiedToken;
  try {
    claims = deps.tokens.verify(token);
  } catch (err) {
    if (err instanceof TokenRejected) throw unauthorized(`${err.message}; request a new one from /oauth/token.`, 'invalid_token');
    throw err;
  }
  const { env } = claims;
  if (!deps.stores.has(env)) throw unauthorized('the access token is for a disabled environment', 'invalid_token');

  // Read before the lookups: a change landing during them leaves the entry stale, never a stale entry current.
  const version = deps.clients.version(env);
  const known = await deps.clients.client(env, claims.sub);
  if (!known || known.client.disabled || known.client.tenantId !== claims.tenant) {
    throw unauthorized('the client of this access token is disabled or gone', 'invalid_token');
  }
  if ((claims.gen ?? 0) < known.client.tokenGeneration) {
    throw unauthorized("the access token was issued before the client's secret was rotated or the client was disabled", 'invalid_token');
  }
  if ((await deps.clients.isRevoked(env, claims.jti)) || (await deps.clients.isRevoked(env, claims.sid))) {
    throw unauthorized('the access token has been revoked', 'invalid_token');
  }

  const { client } = known;
  // Effective scope = what the token was granted ∩ what the client may hold now (a narrowed client narrows live tokens).
  // Expand first, then intersect: a `pets` token of a client narrowed to `pets.read` keeps reading.
  const scopes = new Set<Scope>();
  for (const s of expandScopes(claims.scope.split(' '))) {
    if (known.allowedScopes.has(s)) scopes.add(s);
  }
  const actor: Actor = {
    clientId: client.id,
    publicClientId: client.clientId,
    tenantId: client.tenantId,
    env,
    role: client.role,
    scopes,
    locationIds: client.locationIds,
    tokenId: claims.jti,
  };
  return { env, version, exp: claims.exp, actor, known };
}

/**
 * Bearer authentication for every protected route: verifies the token, then applies the client's
 * current record (disabled, allowlist, scope ceiling, locations), then its rate limit. The first
 * two are remembered per token (CallerCache); the allowlist and the rate limit run on every call.
 * Sets ctx.state.actor as soon as the caller is known so refusals are audited against it.
 */
export async function authenticate(ctx: AppContext, deps: AuthenticateDeps): Promise<Actor> {
  const header = ctx.get('Authorization');
  // A token the cache holds passed the checks below when it was cached ("Bearer " and the same
  // token text): the regular expressions over a ~500-character token cost ~2 µs a request.
  const cachedToken = header.length > 7 && /^bearer /i.test(header) ? header.slice(7) : '';
  let entry = cachedToken ? deps.callers.get(cachedToken) : undefined;
  let token = cachedToken;
  if (!entry) {
    // RFC 6750 §3.1: no credentials, or another scheme (Basic…), gets the bare challenge without an error code.
    if (!header || !/^bearer(\s|$)/i.test(header)) throw unauthorized('Send an access token in the Authorization header: Bearer <token>.');
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (!match?.[1]) throw unauthorized('The Authorization header must be "Bearer <token>".', 'invalid_request');
    token = match[1];
  }
  if (!entry || entry.exp <= Math.floor(deps.clock.now() / 1000) || entry.version !== deps.clients.version(entry.env)) {
    deps.callers.delete(token);
    entry = await resolveCaller(token, deps);
    deps.callers.set(token, entry);
  }
  const { actor, known } = entry;
  const { client } = known;
  ctx.state.actor = actor;
  ctx.state.pinnedApiVersion = client.apiVersion; // the answer's version when no Petcare-Version header is sent

  if (known.ipAllowed && !known.ipAllowed(ctx.ip)) {
    throw new AppError('ip_not_allowed', `Requests from ${normalizeIp(ctx.ip)} are not in this client's IP allowlist.`);
  }

  enforceRateLimit(ctx, deps.limiter, `${actor.env}:${actor.clientId}`, client.rateLimitPerMinute ?? deps.config.rateLimitPerMinute);
  return actor;
}

/** 403 unless the actor holds the scope (and, when given, one of the roles). */
export function authorize(actor: Actor, scope: Scope | readonly Scope[], roles: readonly Role[] | undefined): void {
  const scopes = scopesOf(scope);
  if (!scopes.some((s) => actor.scopes.has(s))) {
    const single = typeof scope === 'string';
    const named = single ? `the '${scope}' scope` : `one of the scopes ${scopes.map((s) => `'${s}'`).join(', ')}`;
    throw new AppError('insufficient_scope', `This operation needs ${named}.`, {
      headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${scopes.join(' ')}"` },
      extensions: { requiredScope: scopes[0], ...(single ? {} : { anyOfScopes: scope }) },
    });
  }
  if (roles && !roles.includes(actor.role)) {
    throw new AppError('forbidden_role', `This operation is for the ${roles.join(' or ')} role; this client is ${actor.role}.`);
  }
}
