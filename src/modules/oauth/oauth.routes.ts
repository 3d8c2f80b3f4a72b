import { publicBaseUrl } from '../../http/public-url.js';
import type { Config } from '../../config.js';
import { enforceRateLimit, type SlidingWindowLimiter } from '../../http/rate-limit.js';
import { definePublicRoute, type AnyRoute } from '../../http/route.js';
import { allScopes } from '../../http/scopes.js';
import { AuthorizationServerMetadataSchema, EmptySchema, JwksSchema, RevokeRequestSchema, TokenRequestSchema, TokenResponseSchema } from './oauth.schema.js';
import { exchangeToken, revokeToken, type OAuthDeps } from './oauth.service.js';
import type { SigningKeys } from './signing-keys.js';

export interface OAuthRouteDeps extends OAuthDeps {
  config: OAuthDeps['config'] & Pick<Config, 'tokenRateLimitPerMinute' | 'issuer' | 'publicUrl' | 'allowedHosts'>;
  keys: SigningKeys;
  limiter: SlidingWindowLimiter;
}

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const oauthBodyTypes: ('application/json' | 'application/x-www-form-urlencoded')[] = ['application/x-www-form-urlencoded', 'application/json'];

export function oauthRoutes(deps: OAuthRouteDeps): AnyRoute[] {
  return [
    definePublicRoute({
      method: 'post',
      path: '/oauth/token',
      operationId: 'createToken',
      summary: 'Get an access token',
      description:
        'OAuth 2.0 token endpoint. `client_credentials` with client_id/client_secret (JSON body as in the seed, form-encoded, or HTTP Basic) ' +
        'returns a one-hour RS256 JWT and a refresh token. `refresh_token` rotates: each use returns a new refresh token, and presenting a spent ' +
        'one revokes its whole family. Errors carry the OAuth `error` member besides the RFC 9457 fields. Limited per IP address.',
      tags: ['OAuth'],
      body: TokenRequestSchema,
      bodyTypes: oauthBodyTypes,
      response: { status: 200, description: 'Access token', schema: TokenResponseSchema },
      errors: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type', 'ip_not_allowed', 'rate_limited'],
      handler: async ({ ctx, body }) => {
        enforceRateLimit(ctx, deps.limiter, `token-ip:${ctx.ip}`, deps.config.tokenRateLimitPerMinute);
        const token = await exchangeToken(deps, ctx.get('Authorization'), ctx.ip, body);
        return { body: token, headers: noStore };
      },
    }),
    definePublicRoute({
      method: 'post',
      path: '/oauth/revoke',
      operationId: 'revokeToken',
      summary: 'Revoke a token',
      description:
        'RFC 7009. Revoking a refresh token revokes every token of its rotation family; revoking an access token stops it at once. ' +
        'Answers 200 whether or not the token was valid.',
      tags: ['OAuth'],
      body: RevokeRequestSchema,
      bodyTypes: oauthBodyTypes,
      response: { status: 200, description: 'Revoked (or nothing to revoke)', schema: EmptySchema },
      errors: ['invalid_request', 'invalid_client', 'rate_limited'],
      handler: async ({ ctx, body }) => {
        enforceRateLimit(ctx, deps.limiter, `token-ip:${ctx.ip}`, deps.config.tokenRateLimitPerMinute);
        await revokeToken(deps, ctx.get('Authorization'), ctx.ip, body);
        return { body: {}, headers: noStore };
      },
    }),
    definePublicRoute({
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'getAuthorizationServerMetadata',
      summary: 'OAuth 2.0 authorization server metadata',
      description: 'RFC 8414 metadata. Endpoint URLs are built from the address the request came to.',
      tags: ['OAuth'],
      response: { status: 200, description: 'Metadata', schema: AuthorizationServerMetadataSchema },
      handler: async ({ ctx }) => {
        const base = publicBaseUrl(deps.config, ctx);
        return {
          body: {
            issuer: deps.config.issuer,
            token_endpoint: `${base}/oauth/token`,
            revocation_endpoint: `${base}/oauth/revoke`,
            jwks_uri: `${base}/.well-known/jwks.json`,
            grant_types_supported: ['client_credentials', 'refresh_token'],
            token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
            revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
            scopes_supported: [...allScopes],
            response_types_supported: [],
            service_documentation: `${base}/docs`,
          },
        };
      },
    }),
    definePublicRoute({
      method: 'get',
      path: '/.well-known/jwks.json',
      operationId: 'getJwks',
      summary: 'Public keys that verify access tokens',
      tags: ['OAuth'],
      response: { status: 200, description: 'JSON Web Key Set', schema: JwksSchema },
      handler: async () => ({ body: deps.keys.jwks(), headers: { 'Cache-Control': 'public, max-age=300' } }),
    }),
  ];
}
