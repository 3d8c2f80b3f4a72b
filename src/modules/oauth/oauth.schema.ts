import { Type } from '@sinclair/typebox';
import { allScopes } from '../../http/scopes.js';

const param = (description: string, maxLength = 4096) => Type.Optional(Type.String({ maxLength, description }));

// OAuth requires unknown parameters to be ignored (RFC 6749 §3.1), so these bodies allow extra members.
export const TokenRequestSchema = Type.Object(
  {
    grant_type: param('client_credentials or refresh_token', 64),
    client_id: param('Public API key (pk_live_… / pk_test_…); or use HTTP Basic.', 200),
    client_secret: param('Secret API key (sk_live_… / sk_test_…); or use HTTP Basic.', 500),
    scope: param(`Space-separated scopes, e.g. "pets bookings ai.read". Known scopes: ${allScopes.join(', ')}.`, 1000),
    refresh_token: param('For grant_type=refresh_token: the refresh token to spend (it rotates).', 500),
  },
  { additionalProperties: true },
);

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: 'RS256 JWT; verify with /.well-known/jwks.json.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
    scope: Type.String({ description: 'The granted scopes, space-separated.' }),
    refresh_token: Type.String({ description: 'Single use: each refresh returns a new one.' }),
  },
  { additionalProperties: false },
);

export const RevokeRequestSchema = Type.Object(
  {
    token: param('The access or refresh token to revoke.', 4096),
    token_type_hint: param('access_token or refresh_token (optional).', 64),
    client_id: param('Public API key; or use HTTP Basic.', 200),
    client_secret: param('Secret API key; or use HTTP Basic.', 500),
  },
  { additionalProperties: true },
);

export const EmptySchema = Type.Object({}, { additionalProperties: false });

export const AuthorizationServerMetadataSchema = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    jwks_uri: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_signing_alg_values_supported: Type.Optional(Type.Array(Type.String())),
    service_documentation: Type.String(),
  },
  { additionalProperties: false },
);

export const JwksSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.String(),
          kid: Type.String(),
          use: Type.Literal('sig'),
          alg: Type.Literal('RS256'),
          n: Type.String(),
          e: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
