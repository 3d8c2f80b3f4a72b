import type SQLite from 'better-sqlite3';
import type { Environment } from '../../config.js';
import { acrossTenants } from '../../db/access-policy.js';
import type { Stores } from '../../db/stores.js';
import type { ClientLookup, KnownCaller } from '../../http/authenticate.js';
import { compileAllowlist } from '../../http/ip-allowlist.js';
import { heldScopes } from '../../http/scopes.js';
import { findClientForToken, type ApiClient } from './clients.repository.js';

export interface KnownClient extends KnownCaller {
  readonly client: ApiClient;
}

interface EnvCache {
  dataVersion: number;
  /** Changes whenever this cache is replaced (the gateway's ClientLookup version). */
  generation: number;
  clients: Map<string, KnownClient | null>;
  revokedJtis: Set<string> | null;
}

/**
 * Hot-path view of API clients and revoked token ids, so verifying a token costs no query.
 * Writes in this process call `invalidate`; writes by another process (the CLI) are noticed
 * through SQLite's `data_version`, which changes when another connection commits.
 */
export class ClientDirectory implements ClientLookup {
  private readonly caches = new Map<Environment, EnvCache>();
  private generations = 0;
  /** `sqlite.pragma()` prepares its statement on every call; this one is prepared once. */
  private readonly dataVersionStatements = new Map<Environment, SQLite.Statement>();

  constructor(private readonly stores: Stores) {}

  /**
   * data_version as read in this turn of the event loop. Every request checks it (a read
   * transaction of its own, ~5 µs); requests whose bytes arrived together share one reading,
   * as if the CLI's commit had come a moment later.
   */
  private readonly versionThisTurn = new Map<Environment, number>();

  private dataVersion(env: Environment): number {
    const seen = this.versionThisTurn.get(env);
    if (seen !== undefined) return seen;
    let statement = this.dataVersionStatements.get(env);
    if (!statement) {
      statement = this.stores.get(env).sqlite.prepare('PRAGMA data_version').pluck();
      this.dataVersionStatements.set(env, statement);
    }
    const version = statement.get() as number;
    if (this.versionThisTurn.size === 0) setImmediate(() => this.versionThisTurn.clear());
    this.versionThisTurn.set(env, version);
    return version;
  }

  private cache(env: Environment): EnvCache {
    const version = this.dataVersion(env);
    let cache = this.caches.get(env);
    if (!cache || cache.dataVersion !== version) {
      cache = { dataVersion: version, generation: ++this.generations, clients: new Map(), revokedJtis: null };
      this.caches.set(env, cache);
    }
    return cache;
  }

  version(env: Environment): number {
    return this.cache(env).generation;
  }

  async client(env: Environment, clientId: string): Promise<KnownClient | null> {
    const cache = this.cache(env);
    const hit = cache.clients.get(clientId);
    if (hit !== undefined) return hit;
    const client = await findClientForToken(this.stores.get(env).db, clientId);
    const known: KnownClient | null = client
      ? {
          client,
          allowedScopes: heldScopes(client.scopes, client.role),
          ipAllowed: client.ipAllowlist ? compileAllowlist(client.ipAllowlist) : null,
        }
      : null;
    if (cache.clients.size > 10_000) cache.clients.clear();
    cache.clients.set(clientId, known);
    return known;
  }

  async isRevoked(env: Environment, jti: string): Promise<boolean> {
    const cache = this.cache(env);
    if (!cache.revokedJtis) {
      const rows = await acrossTenants(this.stores.get(env).db, 'the revocation list is one for the whole environment')
        .selectFrom('revoked_access_tokens')
        .select('jti')
        .execute();
      cache.revokedJtis = new Set(rows.map((r) => r.jti));
    }
    return cache.revokedJtis.has(jti);
  }

  invalidate(env: Environment): void {
    this.caches.delete(env);
  }
}
