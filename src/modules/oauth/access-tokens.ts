import jwt from 'jsonwebtoken';
import type { Clock } from '../../clock.js';
import type { Config, Environment } from '../../config.js';
import { newId } from '../../db/ids.js';
import { TokenRejected, type TokenVerifier } from '../../http/authenticate.js';
import type { Role, Scope } from '../../http/scopes.js';
import type { SigningKeys } from './signing-keys.js';

/** Claims of our RS256 access tokens (RFC 9068 profile plus tenant, env, role, locations). */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  tenant: string;
  env: Environment;
  role: Role;
  scope: string;
  locations: string[] | null;
  iat: number;
  exp: number;
  jti: string;
  /** Session id: the refresh-token family this token came from, so revoking the family stops it too. */
  sid: string;
  /** The client's token generation at issue: a secret rotation or a disable moves the client past it. */
  gen: number;
}

export interface TokenSubject {
  id: string;
  clientId: string;
  tenantId: string;
  environment: Environment;
  role: Role;
  locationIds: string[] | null;
  tokenGeneration: number;
}

/** The gateway's refusal type, so it needs no import from this module. */
export class TokenError extends TokenRejected {}

const cacheLimit = 20_000;
/** How far a token's `iat` may run ahead of this server's clock (another replica's drift). */
const iatLeewaySeconds = 60;

/**
 * Signs and verifies access tokens. A verified token is remembered by its exact string so the
 * RSA check runs once per token, not once per request; expiry is still checked every time.
 */
export class AccessTokens implements TokenVerifier {
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: Pick<Config, 'issuer' | 'audience' | 'accessTokenTtlSeconds'>,
    private readonly clock: Clock,
  ) {}

  issue(subject: TokenSubject, scopes: readonly Scope[], familyId: string): { token: string; claims: AccessTokenClaims } {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: AccessTokenClaims = {
      iss: this.config.issuer,
      aud: this.config.audience,
      sub: subject.id,
      client_id: subject.clientId,
      tenant: subject.tenantId,
      env: subject.environment,
      role: subject.role,
      scope: scopes.join(' '),
      locations: subject.locationIds,
      iat,
      exp: iat + this.config.accessTokenTtlSeconds,
      jti: newId('tok'),
      sid: familyId,
      gen: subject.tokenGeneration,
    };
    const key = this.keys.current();
    const token = jwt.sign(claims, key.privateKey, { algorithm: 'RS256', keyid: key.kid, header: { alg: 'RS256', typ: 'at+jwt', kid: key.kid } });
    return { token, claims };
  }

  /** Throws TokenError with a client-safe reason when the token is not ours, not valid, or expired. */
  verify(token: string): AccessTokenClaims {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp <= nowSeconds) {
        this.verified.delete(token);
        throw new TokenError('the access token has expired');
      }
      return cached;
    }
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') throw new TokenError('the access token is malformed');
    // RFC 9068 §4: only JWTs typed as access tokens are access tokens (no other JWT of ours can stand in).
    const typ = String(decoded.header.typ ?? '').toLowerCase();
    if (typ !== 'at+jwt' && typ !== 'application/at+jwt') throw new TokenError('the token is not an access token (typ)');
    // RFC 7515 §4.1.11: we understand no critical extensions, so a token demanding one is refused.
    if ((decoded.header as { crit?: unknown }).crit !== undefined) throw new TokenError('the access token is invalid');
    const kid = decoded.header.kid;
    const publicKey = kid ? this.keys.publicKey(kid) : undefined;
    if (!publicKey) throw new TokenError('the access token was not signed by a known key');
    let claims: AccessTokenClaims;
    try {
      claims = jwt.verify(token, publicKey, {
        algorithms: ['RS256'],
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTimestamp: nowSeconds,
      }) as AccessTokenClaims;
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) throw new TokenError('the access token has expired');
      throw new TokenError('the access token is invalid');
    }
    if (
      typeof claims.sub !== 'string' ||
      typeof claims.tenant !== 'string' ||
      typeof claims.jti !== 'string' ||
      typeof claims.sid !== 'string' ||
      typeof claims.scope !== 'string' ||
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number' ||
      (claims.gen !== undefined && !(Number.isSafeInteger(claims.gen) && claims.gen >= 0)) ||
      (claims.env !== 'live' && claims.env !== 'sandbox')
    ) {
      throw new TokenError('the access token is missing required claims');
    }
    // Never valid longer than the configured lifetime after its iat, whatever its exp says: a correctly
    // signed token with a one-year exp (minted with a leaked or restored key) still dies on time.
    if (claims.iat > nowSeconds + iatLeewaySeconds) throw new TokenError('the access token is not valid yet (iat)');
    const expiresAt = Math.min(claims.exp, claims.iat + this.config.accessTokenTtlSeconds);
    if (expiresAt <= nowSeconds) throw new TokenError('the access token has expired');
    if (expiresAt !== claims.exp) claims = { ...claims, exp: expiresAt };
    if (this.verified.size >= cacheLimit) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, claims);
    return claims;
  }
}
