import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { ApiClientsTable, Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { ApiVersion } from '../../http/api-versions.js';
import type { Role, Scope } from '../../http/scopes.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import { inList } from '../../db/in-list.js';

/**
 * API clients are tenant-wide rows (the policy). A location-scoped admin sees only the clients
 * confined to a subset of its locations (`location_ids`, a JSON list): listClients applies that
 * rule, and the service's getClient for one client. Functions taking a bare tenant id read and
 * write within that whole tenant.
 */
const tenant = (tenantId: string): AccessFilter => ({ tenantId, locationIds: null });

export interface ApiClient {
  id: string;
  tenantId: string;
  clientId: string;
  name: string;
  role: Role;
  scopes: Scope[];
  secretHash: string;
  locationIds: string[] | null;
  ipAllowlist: string[] | null;
  rateLimitPerMinute: number | null;
  disabled: boolean;
  /** Pinned Petcare-Version: the answers it gets when a request sends no header. */
  apiVersion: ApiVersion;
  /**
   * Access tokens carry the generation they were issued under (`gen`); one older than this is refused.
   * A counter, not a time: no clock (moved, restored or a caller's) can let a cut token back in.
   */
  tokenGeneration: number;
  createdAt: string;
  updatedAt: string;
}

export function toApiClient(row: ApiClientsTable): ApiClient {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    clientId: row.client_id,
    name: row.name,
    role: row.role as Role,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    secretHash: row.secret_hash,
    locationIds: row.location_ids === null ? null : (JSON.parse(row.location_ids) as string[]),
    ipAllowlist: row.ip_allowlist === null ? null : (JSON.parse(row.ip_allowlist) as string[]),
    rateLimitPerMinute: row.rate_limit_per_minute,
    disabled: row.disabled === 1,
    apiVersion: row.api_version as ApiVersion,
    tokenGeneration: row.token_generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ApiClientPatch = Partial<
  Pick<ApiClient, 'name' | 'role' | 'scopes' | 'locationIds' | 'ipAllowlist' | 'rateLimitPerMinute' | 'disabled' | 'apiVersion' | 'secretHash'>
>;

function toRowPatch(patch: ApiClientPatch, updatedAt: string): Partial<ApiClientsTable> {
  const row: Partial<ApiClientsTable> = { updated_at: updatedAt };
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.role !== undefined) row.role = patch.role;
  if (patch.scopes !== undefined) row.scopes = patch.scopes.join(' ');
  if (patch.locationIds !== undefined) row.location_ids = patch.locationIds === null ? null : JSON.stringify(patch.locationIds);
  if (patch.ipAllowlist !== undefined) row.ip_allowlist = patch.ipAllowlist === null ? null : JSON.stringify(patch.ipAllowlist);
  if (patch.rateLimitPerMinute !== undefined) row.rate_limit_per_minute = patch.rateLimitPerMinute;
  if (patch.disabled !== undefined) row.disabled = patch.disabled ? 1 : 0;
  if (patch.apiVersion !== undefined) row.api_version = patch.apiVersion;
  if (patch.secretHash !== undefined) row.secret_hash = patch.secretHash;
  return row;
}

export async function findClientById(db: Executor, tenantId: string, id: string): Promise<ApiClient | null> {
  const row = await scoped(db, tenant(tenantId)).selectFrom('api_clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toApiClient(row) : null;
}

/** Unscoped lookup by resource id, for token verification (the token names its own client). */
export async function findClientForToken(db: Executor, id: string): Promise<ApiClient | null> {
  const row = await acrossTenants(db, 'token verification: a verified token names its client, which names its tenant')
    .selectFrom('api_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toApiClient(row) : null;
}

/** By the public OAuth id, in any tenant: how the token endpoint and the bootstrap find a client before they know its tenant. */
export async function findClientByPublicId(db: Executor, clientId: string): Promise<ApiClient | null> {
  const row = await acrossTenants(db, 'a client logging in names only its public id; its tenant follows from the row')
    .selectFrom('api_clients')
    .selectAll()
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ? toApiClient(row) : null;
}

export async function insertClient(db: Executor, access: AccessFilter, client: ApiClient): Promise<void> {
  await scoped(db, access).insert('api_clients', {
    id: client.id,
    tenant_id: client.tenantId,
    client_id: client.clientId,
    name: client.name,
    role: client.role,
    scopes: client.scopes.join(' '),
    secret_hash: client.secretHash,
    location_ids: client.locationIds === null ? null : JSON.stringify(client.locationIds),
    ip_allowlist: client.ipAllowlist === null ? null : JSON.stringify(client.ipAllowlist),
    rate_limit_per_minute: client.rateLimitPerMinute,
    disabled: client.disabled ? 1 : 0,
    api_version: client.apiVersion,
    token_generation: client.tokenGeneration,
    created_at: client.createdAt,
    updated_at: client.updatedAt,
  });
}

/**
 * Changes a client. A new secret or a disable also moves the client to its next token generation:
 * every access token issued before the change carries an older `gen` and is refused from then on
 * (also after a re-enable), while one issued after it works. The cut is exact to the token and reads
 * no clock, so neither a moved clock nor the time inside an id can undo it.
 */
export async function updateClient(db: Executor, tenantId: string, id: string, patch: ApiClientPatch, updatedAt: string): Promise<void> {
  const cut = patch.secretHash !== undefined || patch.disabled === true;
  await scoped(db, tenant(tenantId))
    .updateTable('api_clients')
    .set(toRowPatch(patch, updatedAt))
    .$if(cut, (q) => q.set({ token_generation: sql<number>`token_generation + 1` }))
    .where('id', '=', id)
    .execute();
}

export async function listClients(
  db: Executor,
  tenantId: string,
  page: PageRequest,
  filters: { role?: Role | undefined; disabled?: boolean | undefined },
  locationIds: readonly string[] | null,
): Promise<ApiClient[]> {
  let query = scoped(db, tenant(tenantId)).selectFrom('api_clients').selectAll();
  // A location-scoped admin lists only clients confined to a subset of its locations.
  if (locationIds !== null) {
    query = query
      .where('location_ids', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(sql<{ value: string }>`json_each(api_clients.location_ids)`.as('l')).select('l.value').where('l.value', 'not in', inList(locationIds)),
          ),
        ),
      );
  }
  if (filters.role !== undefined) query = query.where('role', '=', filters.role);
  if (filters.disabled !== undefined) query = query.where('disabled', '=', filters.disabled ? 1 : 0);
  const rows = await pageQuery(query, page).execute();
  return rows.map(toApiClient);
}

/**
 * Enabled clients that can manage the whole tenant: role admin, the `admin` scope, no location
 * confinement. An admin-role client without these cannot stand in for the last full admin.
 */
export async function countEnabledAdmins(db: Executor, tenantId: string): Promise<number> {
  const row = await scoped(db, tenant(tenantId))
    .selectFrom('api_clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('role', '=', 'admin')
    .where('disabled', '=', 0)
    .where('location_ids', 'is', null)
    .where(sql<string>`' ' || scopes || ' '`, 'like', '% admin %')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether a client counts toward countEnabledAdmins. */
export const isFullAdmin = (client: Pick<ApiClient, 'role' | 'disabled' | 'scopes' | 'locationIds'>): boolean =>
  client.role === 'admin' && !client.disabled && client.locationIds === null && client.scopes.includes('admin');
