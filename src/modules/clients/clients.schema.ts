import { Type, type Static } from '@sinclair/typebox';
import { apiVersions, currentApiVersion } from '../../http/api-versions.js';
import { pageQueryFields } from '../../http/paging.js';
import { allScopes, roles } from '../../http/scopes.js';
import { LocationId } from '../locations/index.js';

const Role = Type.Union(
  roles.map((r) => Type.Literal(r)),
  { description: 'admin, doctor or staff; caps the scopes the client may hold.' },
);
const ScopeName = Type.Union(allScopes.map((s) => Type.Literal(s)));
const Scopes = Type.Array(ScopeName, {
  minItems: 1,
  maxItems: allScopes.length,
  uniqueItems: true,
  description: 'The client ceiling: tokens get at most these.',
});
const LocationIds = Type.Union([Type.Array(LocationId, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], {
  description: 'Locations the client may see; null or absent = the whole tenant.',
});
const IpAllowlist = Type.Union([Type.Array(Type.String({ minLength: 2, maxLength: 64 }), { minItems: 1, maxItems: 50 }), Type.Null()], {
  description: 'CIDRs or addresses (IPv4 and IPv6) calls may come from; null = anywhere.',
});
const RateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()], {
  description: 'Requests per rolling minute; null = the appliance default (600).',
});
const Environment = Type.Union([Type.Literal('live'), Type.Literal('sandbox')]);
const ApiVersionField = Type.Union(
  apiVersions.map((v) => Type.Literal(v)),
  {
    description: `Pinned Petcare-Version: the dated API version answered when a request sends no Petcare-Version header. Default on create: the current one (${currentApiVersion}).`,
  },
);

export const ClientSchema = Type.Object(
  {
    id: Type.String({ description: 'Client resource id (cli_…).' }),
    clientId: Type.String({ description: 'Public API key used as OAuth client_id (pk_live_… / pk_test_…).' }),
    name: Type.String(),
    role: Role,
    scopes: Type.Array(ScopeName),
    environment: Environment,
    locationIds: Type.Union([Type.Array(Type.String()), Type.Null()]),
    ipAllowlist: Type.Union([Type.Array(Type.String()), Type.Null()]),
    rateLimitPerMinute: Type.Union([Type.Integer(), Type.Null()]),
    disabled: Type.Boolean(),
    apiVersion: ApiVersionField,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ClientWithSecretSchema = Type.Object(
  {
    ...ClientSchema.properties,
    clientSecret: Type.String({ description: 'Secret API key (sk_live_… / sk_test_…). Shown only in this response.' }),
  },
  { additionalProperties: false },
);

export const CreateClientSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: Role,
    scopes: Scopes,
    environment: Type.Optional(Type.Union([Environment], { description: "Defaults to the caller's environment. Live admins may create sandbox clients." })),
    locationIds: Type.Optional(LocationIds),
    ipAllowlist: Type.Optional(IpAllowlist),
    rateLimitPerMinute: Type.Optional(RateLimit),
    apiVersion: Type.Optional(ApiVersionField),
  },
  { additionalProperties: false },
);

export const UpdateClientSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(Role),
    scopes: Type.Optional(Scopes),
    locationIds: Type.Optional(LocationIds),
    ipAllowlist: Type.Optional(IpAllowlist),
    rateLimitPerMinute: Type.Optional(RateLimit),
    apiVersion: Type.Optional(ApiVersionField),
    disabled: Type.Optional(Type.Boolean({ description: 'true stops the client and every token it holds at once.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ClientParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const ListClientsQuery = Type.Object(
  {
    ...pageQueryFields,
    role: Type.Optional(Role),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type CreateClientInput = Static<typeof CreateClientSchema>;
export type UpdateClientInput = Static<typeof UpdateClientSchema>;
