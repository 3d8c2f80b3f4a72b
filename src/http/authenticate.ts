import type { Context } from 'koa';
import type { Config } from '../config.js';
import type { Stores } from '../db/stores.js';
import type { ClientDirectory } from '../modules/clients/client-directory.js';
import { TokenError, type AccessTokens } from '../modules/oauth/access-tokens.js';
import type { Actor } from './actor.js';
import { AppError } from './errors.js';
import { normalizeIp } from './ip-allowlist.js';
import { enforceRateLimit, type SlidingWindowLimiter } from './rate-limit.js';
import { expandScopes, type Role, type Scope } from './scopes.js';

const realm = 'petcare';

function unauthorized(detail: string, error?: 'invalid_token' | 'invalid_request'): AppError {
  const challenge = error
    ? `Bearer realm="${realm}", error="${error}", error_description="${detail.replace(/"/g, "'")}"`
    : `Bearer realm="${realm}"`;
  return new AppError(error ? 'invalid_token' : 'unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } });
}

export interface AuthenticateDeps {
  config: Pick<Config, 'rateLimitPerMinute'>;
  stores: Stores;
  tokens: AccessTokens;
  directory: ClientDirectory;
  limiter: SlidingWindowLimiter;
}

/**
 * Bearer authentication for every protected route: verifies the token, then applies the client's
 * current record (disabled, allowlist, scope ceiling, locations), then its rate limit.
 * Sets ctx.state.actor as soon as the caller is known so refusals are audited against it.
 */
export async function authenticate(ctx: Context, deps: AuthenticateDeps): Promise<Actor> {
  const header = ctx.get('Authorization');
  // RFC 6750 §3.1: no credentials, or another scheme (Basic…), gets the bare challenge without an error code.
  if (!header || !/^bearer(\s|$)/i.test(header)) throw unauthorized('Send an access token in the Authorization header: Bearer <token>.');
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!match?.[1]) throw unauthorized('The Authorization header must be "Bearer <token>".', 'invalid_request');
  const token = match[1];

  let claims;
  try {
    claims = deps.tokens.verify(token);
  } catch (err) {
    if (err instanceof TokenError) throw unauthorized(`${err.message}; request a new one from /oauth/token.`, 'invalid_token');
    throw err;
  }
  if (!deps.stores.has(claims.env)) throw unauthorized('the access token is for a disabled environment', 'invalid_token');

  const known = await deps.directory.get(claims.env, claims.sub);
  if (!known || known.client.disabled || known.client.tenantId !== claims.tenant) {
    throw unauthorized('the client of this access token is disabled or gone', 'invalid_token');
  }
  if ((await deps.directory.isRevoked(claims.env, claims.jti)) || (await deps.directory.isRevoked(claims.env, claims.sid))) {
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
    env: claims.env,
    role: client.role as Role,
    scopes,
    locationIds: client.locationIds,
    tokenId: claims.jti,
  };
  ctx.state.actor = actor;
  ctx.state.pinnedApiVersion = client.apiVersion; // the answer's version when no Petcare-Version header is sent

  if (known.ipAllowed && !known.ipAllowed(ctx.ip)) {
    throw new AppError('ip_not_allowed', `Requests from ${normalizeIp(ctx.ip)} are not in this client's IP allowlist.`);
  }

  enforceRateLimit(ctx, deps.limiter, `${actor.env}:${actor.clientId}`, client.rateLimitPerMinute ?? deps.config.rateLimitPerMinute);
  return actor;
}

/** 403 unless the actor holds the scope (and, when given, one of the roles). */
export function authorize(actor: Actor, scope: Scope, roles: readonly Role[] | undefined): void {
  if (!actor.scopes.has(scope)) {
    throw new AppError('insufficient_scope', `This operation needs the '${scope}' scope.`, {
      headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"` },
      extensions: { requiredScope: scope },
    });
  }
  if (roles && !roles.includes(actor.role)) {
    throw new AppError('forbidden_role', `This operation is for the ${roles.join(' or ')} role; this client is ${actor.role}.`);
  }
}
