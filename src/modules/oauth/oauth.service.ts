import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config, Environment } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { newId, randomSecret } from '../../db/ids.js';
import type { EnvironmentStore, Stores } from '../../db/stores.js';
import type { AccessFilter } from '../../http/actor.js';
import { AppError } from '../../http/errors.js';
import { compileAllowlist, normalizeIp } from '../../http/ip-allowlist.js';
import { expandScopes, grantScopes, heldScopes, isScope, parseScopeString, type Scope } from '../../http/scopes.js';
import { findClientByPublicId, hashSecret, verifySecret, type ApiClient, type ClientDirectory } from '../clients/index.js';
import { TokenError, type AccessTokens } from './access-tokens.js';
import { findRefreshTokenByHash, insertRefreshToken, revokeAccessToken, revokeFamily, spendRefreshToken } from './refresh-tokens.repository.js';

export interface OAuthDeps {
  config: Pick<Config, 'refreshTokenTtlSeconds' | 'accessTokenTtlSeconds'>;
  clock: Clock;
  stores: Stores;
  tokens: AccessTokens;
  directory: ClientDirectory;
}

export interface TokenRequest {
  grant_type?: string | undefined;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  scope?: string | undefined;
  refresh_token?: string | undefined;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token: string;
}

/** When every access token issued until now has expired: how long a family revocation must be remembered. */
const accessTokensExpireBy = (deps: OAuthDeps): string => new Date(deps.clock.now() + deps.config.accessTokenTtlSeconds * 1000).toISOString();

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

// A hash of a throwaway secret: unknown client ids cost the same scrypt time as known ones.
const decoyHash = hashSecret(randomSecret());

function invalidClient(basic: boolean): AppError {
  return new AppError('invalid_client', 'Unknown client or wrong client secret.', {
    headers: basic ? { 'WWW-Authenticate': 'Basic realm="petcare"' } : {},
  });
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1, form-encoded parts) or the body. */
function readCredentials(authorization: string, body: TokenRequest): { id: string; secret: string; basic: boolean } {
  const basic = /^Basic\s+(.+)$/i.exec(authorization);
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new AppError('invalid_request', 'The Basic credentials must be client_id:client_secret.');
    let id: string;
    let secret: string;
    try {
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      throw new AppError('invalid_request', 'The Basic credentials are not correctly encoded.');
    }
    // RFC 6749 §2.3: one authentication method per request; a body naming other credentials is ambiguous.
    if (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== id)) {
      throw new AppError('invalid_request', 'Send client credentials either with HTTP Basic or in the body, not both.');
    }
    return { id, secret, basic: true };
  }
  if (!body.client_id || !body.client_secret) {
    throw new AppError('invalid_client', 'Authenticate with client_id and client_secret, in the body or with HTTP Basic.');
  }
  return { id: body.client_id, secret: body.client_secret, basic: false };
}

/** Where a public client id lives: its prefix says, and a bootstrap id without one is looked up everywhere. */
function candidateStores(stores: Stores, clientId: string): EnvironmentStore[] {
  if (clientId.startsWith('pk_test_')) return stores.has('sandbox') ? [stores.get('sandbox')] : [];
  if (clientId.startsWith('pk_live_')) return stores.has('live') ? [stores.get('live')] : [];
  return stores.all();
}

async function authenticateClient(
  deps: OAuthDeps,
  authorization: string,
  ip: string,
  body: TokenRequest,
): Promise<{ client: ApiClient; store: EnvironmentStore }> {
  const credentials = readCredentials(authorization, body);
  if (credentials.id.length > 200 || credentials.secret.length > 500) throw invalidClient(credentials.basic);
  let found: { client: ApiClient; store: EnvironmentStore } | null = null;
  for (const store of candidateStores(deps.stores, credentials.id)) {
    const client = await findClientByPublicId(store.db, credentials.id);
    if (client) {
      found = { client, store };
      break;
    }
  }
  const ok = await verifySecret(credentials.secret, found?.client.secretHash ?? (await decoyHash));
  if (!found || !ok || found.client.disabled) throw invalidClient(credentials.basic);
  if (found.client.ipAllowlist && !compileAllowlist(found.client.ipAllowlist)(ip)) {
    throw new AppError('ip_not_allowed', `Requests from ${normalizeIp(ip)} are not in this client's IP allowlist.`);
  }
  return found;
}

function requestedScopes(scope: string | undefined, fallback: readonly Scope[]): Scope[] {
  if (scope === undefined || scope.trim() === '') return [...fallback];
  const names = parseScopeString(scope);
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length > 0) throw new AppError('invalid_scope', `Unknown scope: ${unknown.join(', ')}.`);
  return names as Scope[];
}

/** The tenant of the client the token endpoint has authenticated: its refresh tokens are found and written there. */
const tenantOf = (client: ApiClient): AccessFilter => ({ tenantId: client.tenantId, locationIds: null });

async function issue(deps: OAuthDeps, db: Executor, env: Environment, client: ApiClient, scopes: Scope[], familyId: string): Promise<TokenResponse> {
  const now = deps.clock.now();
  const { token } = deps.tokens.issue(
    {
      id: client.id,
      clientId: client.clientId,
      tenantId: client.tenantId,
      environment: env,
      role: client.role,
      locationIds: client.locationIds,
      tokenGeneration: client.tokenGeneration,
    },
    scopes,
    familyId,
  );
  const refreshToken = `rt_${env === 'sandbox' ? 'test' : 'live'}_${randomSecret(32)}`;
  await insertRefreshToken(db, tenantOf(client), {
    id: newId('rtk'),
    tenant_id: client.tenantId,
    client_id: client.id,
    family_id: familyId,
    token_hash: hashToken(refreshToken),
    scope: scopes.join(' '),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + deps.config.refreshTokenTtlSeconds * 1000).toISOString(),
    used_at: null,
    revoked_at: null,
  });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: deps.config.accessTokenTtlSeconds,
    scope: scopes.join(' '),
    refresh_token: refreshToken,
  };
}

/**
 * Scopes are sets of rights, so the intersection narrows a write scope to its read scope when only
 * reading is allowed: a doctor asking for `analytics` gets `analytics.read` (RFC 6749 §3.3 lets the
 * server narrow; the response `scope` says what was granted).
 */
function narrowToHeld(requested: readonly Scope[], client: ApiClient): Scope[] {
  const held = heldScopes(client.scopes, client.role);
  return requested.map((s) => (!held.has(s) && !s.endsWith('.read') && held.has(`${s}.read` as Scope) ? (`${s}.read` as Scope) : s));
}

function grantOrRefuse(requested: Scope[], client: ApiClient): Scope[] {
  const granted = grantScopes(narrowToHeld(requested, client), client.scopes, client.role);
  if (granted.length === 0) {
    throw new AppError('invalid_scope', `None of the requested scopes is allowed for this client (role ${client.role}).`);
  }
  return granted;
}

/** POST /oauth/token: client_credentials and refresh_token grants. */
export async function exchangeToken(deps: OAuthDeps, authorization: string, ip: string, body: TokenRequest): Promise<TokenResponse> {
  if (!body.grant_type) throw new AppError('invalid_request', 'grant_type is required.');
  if (body.grant_type !== 'client_credentials' && body.grant_type !== 'refresh_token') {
    throw new AppError('unsupported_grant_type', 'Use grant_type client_credentials or refresh_token.');
  }
  const { client, store } = await authenticateClient(deps, authorization, ip, body);

  if (body.grant_type === 'client_credentials') {
    const granted = grantOrRefuse(requestedScopes(body.scope, client.scopes), client);
    return issue(deps, store.db, store.env, client, granted, newId('rtf'));
  }

  if (!body.refresh_token) throw new AppError('invalid_request', 'refresh_token is required for this grant.');
  const nowIso = new Date(deps.clock.now()).toISOString();
  return store.db
    .transaction()
    .execute(async (trx) => {
      const row = await findRefreshTokenByHash(trx, tenantOf(client), hashToken(body.refresh_token as string));
      if (!row || row.client_id !== client.id) throw new AppError('invalid_grant', 'The refresh token is not valid for this client.');
      if (row.revoked_at !== null) throw new AppError('invalid_grant', 'The refresh token has been revoked.');
      if (row.expires_at <= nowIso) throw new AppError('invalid_grant', 'The refresh token has expired.');
      if (row.used_at !== null || !(await spendRefreshToken(trx, tenantOf(client), row.id, nowIso))) {
        // RFC 9700 §4.14.2: a spent token presented again means it leaked; the whole family dies.
        await revokeFamily(trx, tenantOf(client), row.family_id, nowIso, accessTokensExpireBy(deps));
        return null;
      }
      const original = row.scope.split(' ').filter(isScope);
      const requested = requestedScopes(body.scope, original);
      // Narrowing is allowed (`pets` ⇒ `pets.read`); anything not originally granted is not (RFC 6749 §6).
      const originalRights = expandScopes(original);
      const beyond = requested.filter((s) => !originalRights.has(s));
      if (beyond.length > 0) throw new AppError('invalid_scope', `A refresh cannot add scopes: ${beyond.join(', ')}.`);
      return issue(deps, trx, store.env, client, grantOrRefuse(requested, client), row.family_id);
    })
    .then((response) => {
      deps.directory.invalidate(store.env);
      if (!response) throw new AppError('invalid_grant', 'The refresh token was already used; every token of its family is now revoked.');
      return response;
    });
}

/** POST /oauth/revoke (RFC 7009): refresh tokens take their family with them; access tokens stop at once. */
export async function revokeToken(deps: OAuthDeps, authorization: string, ip: string, body: TokenRequest & { token?: string | undefined }): Promise<void> {
  const { client, store } = await authenticateClient(deps, authorization, ip, body);
  const token = body.token;
  if (!token) throw new AppError('invalid_request', 'token is required.');
  const nowIso = new Date(deps.clock.now()).toISOString();
  if (token.startsWith('rt_')) {
    const row = await findRefreshTokenByHash(store.db, tenantOf(client), hashToken(token));
    if (row && row.client_id === client.id) {
      await revokeFamily(store.db, tenantOf(client), row.family_id, nowIso, accessTokensExpireBy(deps));
      deps.directory.invalidate(store.env);
    }
    return;
  }
  try {
    const claims = deps.tokens.verify(token);
    if (claims.sub === client.id && claims.env === store.env) {
      await revokeAccessToken(store.db, claims.jti, new Date(claims.exp * 1000).toISOString());
      deps.directory.invalidate(store.env);
    }
  } catch (err) {
    if (!(err instanceof TokenError)) throw err;
    // RFC 7009 §2.2: an invalid token needs no revocation; answer 200 all the same.
  }
}
