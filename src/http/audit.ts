import type { Next } from 'koa';
import type { Logger } from 'pino';
import { isoAt } from '../clock.js';
import type { Actor } from './actor.js';
import type { Environment } from '../config.js';
import { runStatement, withConnection, type Executor } from '../db/database.js';
import { newId } from '../db/ids.js';
import type { Stores } from '../db/stores.js';
import { probePaths, type AppContext } from './request-context.js';

export interface AuditEntry {
  tenantId: string | null;
  requestId: string;
  occurredAt: number;
  clientId: string | null;
  role: string | null;
  ip: string;
  method: string;
  route: string;
  path: string;
  resourceId: string | null;
  status: number;
  latencyMs: number;
}

const maxBatch = 500;
/** Rows per flush transaction: a whole batch in one go held the event loop for milliseconds. */
const flushChunk = 100;

/** One prepared statement for every audit row; rows are bound in this column order. */
const insertSql =
  'insert into audit_events (id, tenant_id, request_id, occurred_at, client_id, role, ip, method, route, path, resource_id, status, latency_ms) ' +
  'values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

type AuditRow = [string, string | null, string, string, string | null, string | null, string, string, string, string, string | null, number, number];

function toRow(entry: AuditEntry): AuditRow {
  return [
    newId('aud'),
    entry.tenantId,
    entry.requestId,
    isoAt(entry.occurredAt),
    entry.clientId,
    entry.role,
    entry.ip,
    entry.method,
    entry.route,
    entry.path.slice(0, 500),
    entry.resourceId,
    entry.status,
    Math.round(entry.latencyMs * 1000) / 1000,
  ];
}

/**
 * The audit trail of every call. Writes put their row in their own transaction (`writeWith`);
 * everything else is buffered and flushed in batches, so a read never pays for a transaction.
 */
export class AuditLog {
  private readonly buffers = new Map<Environment, AuditRow[]>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stores: Stores,
    private readonly flushMs: number,
    private readonly logger: Logger,
  ) {}

  record(env: Environment, entry: AuditEntry): void {
    let buffer = this.buffers.get(env);
    if (!buffer) {
      buffer = [];
      this.buffers.set(env, buffer);
    }
    buffer.push(toRow(entry));
    if (buffer.length >= maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Rows waiting for the next flush (exported as a metric). */
  backlog(): number {
    let n = 0;
    for (const rows of this.buffers.values()) n += rows.length;
    return n;
  }

  async writeWith(trx: Executor, entry: AuditEntry): Promise<void> {
    await runStatement(trx, insertSql, toRow(entry));
  }

  /** Writes everything buffered so far; resolves when it is on disk. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batches = [...this.buffers.entries()].filter(([, rows]) => rows.length > 0);
    this.buffers.clear();
    this.flushing = this.flushing.then(async () => {
      for (const [env, rows] of batches) {
        for (let start = 0; start < rows.length; start += flushChunk) {
          const chunk = rows.slice(start, start + flushChunk);
          try {
            // One transaction of one prepared statement per chunk, run while holding the connection.
            await withConnection(this.stores.get(env).db, (sqlite, prepare) => {
              const insert = prepare(insertSql);
              sqlite
                .transaction(() => {
                  for (const row of chunk) insert.run(row);
                })
                .immediate();
            });
          } catch (err) {
            this.logger.error({ err, env, rows: chunk.length }, 'audit flush failed');
          }
          // Requests waiting meanwhile run between chunks: a flush never holds the loop for long.
          if (start + flushChunk < rows.length) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    });
    return this.flushing;
  }
}

export function auditEntry(ctx: AppContext, actor: Actor | undefined, status: number, resourceId: string | null, now: number): AuditEntry {
  return {
    tenantId: actor?.tenantId ?? null,
    requestId: ctx.state.requestId,
    occurredAt: now,
    clientId: actor?.clientId ?? null,
    role: actor?.role ?? null,
    ip: ctx.ip,
    method: ctx.method,
    route: ctx.state.route ?? '-',
    path: ctx.path,
    resourceId,
    status,
    latencyMs: now - ctx.state.startedAt,
  };
}

/**
 * The resource a call acted on: the one the handler named, else the `:id` in the path, else the id
 * of the single resource a success answered with (a create, or the idempotent replay of one).
 */
export function resourceIdOf(ctx: AppContext, status: number, body: unknown, named?: string): string | null {
  if (named) return named;
  if (typeof ctx.params?.id === 'string') return ctx.params.id;
  if (status >= 200 && status < 300 && body && typeof body === 'object' && !Buffer.isBuffer(body)) {
    const id = (body as { id?: unknown }).id;
    if (typeof id === 'string') return id;
  }
  return null;
}

/**
 * Records every call after its status is final, refused ones included. Writes that committed
 * already put their row in their transaction (ctx.state.auditWritten).
 */
export function auditMiddleware(deps: { audit: AuditLog; stores: Stores; clock: { now(): number } }) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    try {
      await next();
    } finally {
      if (!ctx.state.auditWritten && !probePaths.has(ctx.path)) {
        const { actor } = ctx.state;
        const env = actor?.env ?? deps.stores.primary().env;
        const resourceId = ctx.state.resourceId !== undefined && ctx.status < 400 ? ctx.state.resourceId : resourceIdOf(ctx, ctx.status, ctx.body);
        deps.audit.record(env, auditEntry(ctx, actor, ctx.status, resourceId, deps.clock.now()));
      }
    }
  };
}
