import type { Environment } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { newId, randomSecret } from '../../db/ids.js';
import type { Stores } from '../../db/stores.js';
import type { Actor } from '../../http/actor.js';
import { currentApiVersion } from '../../http/api-versions.js';
import { AppError, notFound, validationFailed, type FieldError } from '../../http/errors.js';
import { parseCidr } from '../../http/ip-allowlist.js';
import { expandScopes, roleCeiling, type Role, type Scope } from '../../http/scopes.js';
import { missingLocations } from '../locations/index.js';
import { revokeClientRefreshTokens } from './client-sessions.repository.js';
import { hashSecret } from './client-secrets.js';
import { countEnabledAdmins, findClientById, insertClient, isFullAdmin, updateClient, type ApiClient, type ApiClientPatch } from './clients.repository.js';
import type { CreateClientInput, UpdateClientInput } from './clients.schema.js';

export const envTag = (env: Environment): string => (env === 'sandbox' ? 'test' : 'live');

/** A fresh key pair: public `pk_<env>_…` id and secret `sk_<env>_…`. */
export function newCredentials(env: Environment): { clientId: string; secret: string } {
  return { clientId: `pk_${envTag(env)}_${randomSecret(18)}`, secret: `sk_${envTag(env)}_${randomSecret(32)}` };
}

function checkScopesForRole(role: Role, scopes: readonly Scope[], errors: FieldError[]): void {
  const allowed = expandScopes(roleCeiling(role));
  scopes.forEach((scope, i) => {
    if (!allowed.has(scope)) errors.push({ field: `scopes[${i}]`, message: `'${scope}' is beyond what the ${role} role may hold` });
  });
}

function checkAllowlist(list: readonly string[] | null | undefined, errors: FieldError[]): void {
  list?.forEach((entry, i) => {
    if (!parseCidr(entry)) errors.push({ field: `ipAllowlist[${i}]`, message: `'${entry}' is not an IPv4/IPv6 address or CIDR` });
  });
}

/**
 * A location-scoped admin can only hand out access to its own locations. On create an absent
 * locationIds would mean "the whole tenant", so it must be named (`required`); on update absent means unchanged.
 */
function checkLocationGrant(actor: Actor, locationIds: readonly string[] | null | undefined, errors: FieldError[], required = false): void {
  if (actor.locationIds === null) return;
  if (locationIds === undefined) {
    if (required) errors.push({ field: 'locationIds', message: 'is required for a location-scoped admin: name locations within its own' });
    return;
  }
  if (locationIds === null) {
    errors.push({ field: 'locationIds', message: 'a location-scoped admin must name locations within its own' });
    return;
  }
  locationIds.forEach((id, i) => {
    if (!actor.locationIds?.includes(id)) errors.push({ field: `locationIds[${i}]`, message: `no location with id '${id}'` });
  });
}

async function checkLocationsExist(db: Executor, actor: Actor, locationIds: readonly string[] | null | undefined): Promise<void> {
  if (!locationIds) return;
  const missing = await missingLocations(db, actor, locationIds);
  if (missing.length > 0) {
    throw new AppError('resource_missing', `No location with id '${missing[0]}' exists.`, {
      errors: missing.map((id) => ({ field: 'locationIds', message: `no location with id '${id}'` })),
    });
  }
}

export interface ClientsDeps {
  stores: Stores;
}

/**
 * Creates a client in the caller's environment, or in the sandbox when a live admin asks for it.
 * The secret is returned once and kept only as a scrypt hash.
 */
export async function createClient(
  deps: ClientsDeps,
  db: Executor,
  actor: Actor,
  input: CreateClientInput,
  now: number,
): Promise<{ client: ApiClient; secret: string; environment: Environment }> {
  const environment = input.environment ?? actor.env;
  if (environment !== actor.env && actor.env === 'sandbox') {
    throw new AppError('environment_not_allowed', 'A sandbox client cannot create live clients.');
  }
  if (!deps.stores.has(environment)) {
    throw validationFailed([{ field: 'environment', message: `the ${environment} environment is not enabled on this appliance` }]);
  }
  const errors: FieldError[] = [];
  checkScopesForRole(input.role, input.scopes, errors);
  checkAllowlist(input.ipAllowlist, errors);
  checkLocationGrant(actor, input.locationIds, errors, true);
  if (errors.length > 0) throw validationFailed(errors);
  const target = environment === actor.env ? db : deps.stores.get(environment).db;
  await checkLocationsExist(target, actor, input.locationIds);

  const { clientId, secret } = newCredentials(environment);
  const at = new Date(now).toISOString();
  const client: ApiClient = {
    id: newId('cli'),
    tenantId: actor.tenantId,
    clientId,
    name: input.name,
    role: input.role,
    scopes: [...input.scopes],
    secretHash: await hashSecret(secret),
    locationIds: input.locationIds ?? null,
    ipAllowlist: input.ipAllowlist ?? null,
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    disabled: false,
    tokenGeneration: 0,
    apiVersion: input.apiVersion ?? currentApiVersion,
    createdAt: at,
    updatedAt: at,
  };
  await insertClient(target, actor, client);
  return { client, secret, environment };
}

export async function getClient(db: Executor, actor: Actor, id: string): Promise<ApiClient> {
  const client = await findClientById(db, actor.tenantId, id);
  // A location-scoped admin sees only clients confined to its own locations.
  const visible =
    client &&
    (actor.locationIds === null || ((client.locationIds ?? []).length > 0 && (client.locationIds ?? []).every((l) => actor.locationIds?.includes(l))));
  if (!client || !visible) throw notFound('client', id);
  return client;
}

/** Changes role, scopes, locations, allowlist, rate limit or disabled; the last full admin cannot lose admin (disable, demote, confine). */
export async function updateClientSettings(db: Executor, actor: Actor, id: string, input: UpdateClientInput, now: number): Promise<ApiClient> {
  const existing = await getClient(db, actor, id);
  const role = input.role ?? existing.role;
  const scopes = input.scopes ?? existing.scopes;
  const errors: FieldError[] = [];
  checkScopesForRole(role, scopes, errors);
  checkAllowlist(input.ipAllowlist, errors);
  checkLocationGrant(actor, input.locationIds, errors);
  if (errors.length > 0) throw validationFailed(errors);
  await checkLocationsExist(db, actor, input.locationIds);

  const after = {
    role,
    scopes,
    disabled: input.disabled ?? existing.disabled,
    locationIds: input.locationIds === undefined ? existing.locationIds : input.locationIds,
  };
  const losesAdmin = isFullAdmin(existing) && !isFullAdmin(after);
  if (losesAdmin && (await countEnabledAdmins(db, actor.tenantId)) <= 1) {
    throw new AppError('last_admin', 'This is the last enabled admin client; create another admin before disabling or demoting it.');
  }

  const patch: ApiClientPatch = { ...input, role, scopes };
  const at = new Date(now).toISOString();
  await updateClient(db, actor.tenantId, id, patch, at);
  if (input.disabled === true) await revokeClientRefreshTokens(db, actor, id, at);
  return { ...existing, ...patch, updatedAt: at } as ApiClient;
}

/** Replaces the secret: the old one stops working at once, and so do the client's refresh tokens. */
export async function rotateClientSecret(db: Executor, actor: Actor, id: string, now: number): Promise<{ client: ApiClient; secret: string }> {
  const existing = await getClient(db, actor, id);
  const env: Environment = existing.clientId.startsWith('pk_test_') ? 'sandbox' : 'live';
  const secret = `sk_${envTag(env)}_${randomSecret(32)}`;
  const at = new Date(now).toISOString();
  await updateClient(db, actor.tenantId, id, { secretHash: await hashSecret(secret) }, at);
  await revokeClientRefreshTokens(db, actor, id, at);
  return { client: { ...existing, updatedAt: at }, secret };
}
