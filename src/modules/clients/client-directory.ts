import type SQLite from 'better-sqlite3';
import type { Environment } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import { compileAllowlist, type IpMatcher } from '../../http/ip-allowlist.js';
import { heldScopes, type Scope } from '../../http/scopes.js';
import { findClientForToken, type ApiClient } from './clients.repository.js';

export interface KnownClient {
  readonly client: ApiClient;
  /** What the client may use now: its ceiling ∩ its role, with implied read scopes. */
  readonly allowedScopes: ReadonlySet<Scope>;
  readonly ipAllowed: IpMatcher | null;
}

interface EnvCache {
  dataVersion: number;
  clients: Map<string, KnownClient | null>;
  revokedJtis: Set<string> | null;
}

/**
 * Hot-path view of API clients and revoked token ids, so verifying a token costs no query.
 * Writes in this process call `invalidate`; writes by another process (the CLI) are noticed
 * through SQLite's `data_version`, which changes when another connection commits.
 */
export class ClientDirectory {
  private readonly caches = new Map<Environment, EnvCache>();
  /** `sqlite.pragma()` prepares its statement on every call; this one is prepared once. */
  private readonly dataVersionStatements = new Map<Environment, SQLite.Statement>();

  constructor(private readonly stores: Stores) {}

  private dataVersion(env: Environment): number {
    let statement = this.dataVersionStatements.get(env);
    if (!statement) {
      statement = this.stores.get(env).sqlite.prepare('PRAGMA data_version').pluck();
      this.dataVersionStatements.set(env, statement);
    }
    return statement.get() as number;
  }

  private cache(env: Environment): EnvCache {
    const version = this.dataVersion(env);
    let cache = this.caches.get(env);
    if (!cache || cache.dataVersion !== version) {
      cache = { dataVersion: version, clients: new Map(), revokedJtis: null };
      this.caches.set(env, cache);
    }
    return cache;
  }

  async get(env: Environment, clientId: string): Promise<KnownClient | null> {
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
      const rows = await this.stores.get(env).db.selectFrom('revoked_access_tokens').select('jti').execute();
      cache.revokedJtis = new Set(rows.map((r) => r.jti));
    }
    return cache.revokedJtis.has(jti);
  }

  invalidate(env: Environment): void {
    this.caches.delete(env);
  }
}
