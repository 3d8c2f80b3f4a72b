import type { Environment } from '../config.js';
import type { Role, Scope } from './scopes.js';

/** Who is calling: built from a verified access token and the client's current record. */
export interface Actor {
  /** The API client's resource id (cli_…). */
  readonly clientId: string;
  /** The client's public OAuth id (pk_live_… / pk_test_…). */
  readonly publicClientId: string;
  readonly tenantId: string;
  readonly env: Environment;
  readonly role: Role;
  /** Granted scopes, with the read scope of every write scope added. */
  readonly scopes: ReadonlySet<Scope>;
  /** Locations the caller may see; null means the whole tenant. */
  readonly locationIds: readonly string[] | null;
  /** The token id, for revocation. */
  readonly tokenId: string;
}

/** True when the actor may see rows of this location. */
export const canSeeLocation = (actor: Actor, locationId: string): boolean => actor.locationIds === null || actor.locationIds.includes(locationId);

/**
 * The access filter every repository applies: the tenant, and the locations the caller covers
 * (null = the whole tenant). Repositories take this, not a whole Actor, so jobs can pass one too.
 */
export type AccessFilter = Pick<Actor, 'tenantId' | 'locationIds'>;

/**
 * The whole tenant of a caller: for a lookup that follows a record the caller already proved it can
 * see (a stay's location, a groom's package), where the related row may sit at another location.
 */
export const wholeTenant = (actor: AccessFilter): AccessFilter => ({ tenantId: actor.tenantId, locationIds: null });
