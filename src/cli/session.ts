import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Config, Environment } from '../config.js';
import { registerModuleDeclarations } from '../app.js';
import { openStores } from '../data-dir.js';
import type { Executor } from '../db/database.js';
import type { Stores } from '../db/stores.js';
import type { Actor } from '../http/actor.js';
import { AuditLog } from '../http/audit.js';
import { AppError } from '../http/errors.js';
import { defaultPageSize, type PageRequest } from '../http/paging.js';
import { allScopes } from '../http/scopes.js';
import { UsageError } from './usage-error.js';

/** The opened data dir a command works on, as the tenant's operator. */
export interface Session {
  config: Config;
  stores: Stores;
  tenantId: string;
  audit: AuditLog;
  json: boolean;
  out: (text: string) => void;
}

/** The operator acts as an unscoped admin of the tenant in the chosen environment. */
export function operator(session: Session, env: Environment): Actor {
  return {
    clientId: 'operator-cli',
    publicClientId: 'operator-cli',
    tenantId: session.tenantId,
    env,
    role: 'admin',
    scopes: new Set(allScopes),
    locationIds: null,
    tokenId: 'operator-cli',
  };
}

/** The environment --env names (default: live, or sandbox on a sandbox-only appliance). */
export function environmentOf(session: Session, raw: string | undefined): Environment {
  if (raw === undefined) return session.stores.has('live') ? 'live' : 'sandbox';
  if (raw !== 'live' && raw !== 'sandbox') throw new UsageError(`--env must be live or sandbox (got "${raw}")`);
  if (!session.stores.has(raw)) throw new AppError('environment_not_allowed', `The ${raw} environment is not enabled in ${session.config.dataDir}.`);
  return raw;
}

/**
 * Runs a change in one transaction with its audit row, so operator changes show in GET /v1/audit-events
 * next to API calls (method CLI, no client, ip "local").
 *
 * BEGIN IMMEDIATE takes the write lock up front (waiting up to busy_timeout for the running appliance):
 * with a deferred BEGIN, a commit by the appliance between this transaction's first read and its first
 * write would fail it with SQLITE_BUSY, which the busy timeout does not retry. The lock is held for the
 * few milliseconds of the change (plus the secret hash on create and rotate).
 */
export async function audited<T>(
  session: Session,
  env: Environment,
  route: string,
  work: (db: Executor) => Promise<T>,
  resourceId: (result: T) => string | null,
  status = 200,
): Promise<T> {
  const started = Date.now();
  const store = session.stores.get(env);
  store.sqlite.exec('BEGIN IMMEDIATE');
  try {
    // One process, one connection, nothing else running: every query of `work` is inside this transaction.
    const result = await work(store.db);
    const now = Date.now();
    await session.audit.writeWith(store.db, {
      tenantId: session.tenantId,
      requestId: `cli-${randomUUID()}`,
      occurredAt: now,
      clientId: null,
      role: 'admin',
      ip: 'local',
      method: 'CLI',
      route: `CLI ${route}`,
      path: `petcare-cli ${route}`,
      resourceId: resourceId(result),
      status,
      latencyMs: now - started,
    });
    store.sqlite.exec('COMMIT');
    return result;
  } catch (error) {
    if (store.sqlite.inTransaction) store.sqlite.exec('ROLLBACK');
    throw error;
  }
}

/** Every page of a keyset-paged list. */
export async function allPages<T extends { id: string }>(fetch: (page: PageRequest) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await fetch({ limit: defaultPageSize * 4, afterId });
    const more = page.length > defaultPageSize * 4;
    const visible = more ? page.slice(0, defaultPageSize * 4) : page;
    rows.push(...visible);
    if (!more) return rows;
    afterId = visible[visible.length - 1]?.id;
  }
}

/** Opens the environments whose database already exists: the CLI never creates a data dir by mistake. */
export async function openSession(config: Config, json: boolean, out: (text: string) => void): Promise<Session> {
  // The commands run the modules' services: their access policies, event types and error codes.
  registerModuleDeclarations();
  const stores = await openStores(config, { existingOnly: true });
  const tenant = await stores.all()[0]?.db.selectFrom('tenants').select('id').orderBy('created_at').executeTakeFirst();
  if (!tenant) {
    await stores.close();
    throw new AppError('service_unavailable', `The database in ${config.dataDir} has no tenant yet; start the appliance once to bootstrap it.`);
  }
  const audit = new AuditLog(stores, 60_000, pino({ level: 'silent' }));
  return { config, stores, tenantId: tenant.id, audit, json, out };
}
