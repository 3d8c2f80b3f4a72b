import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Stores } from '../../db/stores.js';
import { migrationsAreCurrent } from '../../db/migrator.js';
import { AppError } from '../../http/errors.js';
import type { Metrics } from '../../http/metrics.js';
import { definePublicRoute, type AnyRoute } from '../../http/route.js';

const tags = ['Operations'];

export function healthRoutes(deps: { stores: Stores; metrics: Metrics; platformVersion: string; auditBacklog: () => number }): AnyRoute[] {
  return [
    definePublicRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Liveness: the process is up',
      tags,
      response: { status: 200, description: 'Up', schema: Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false }) },
      handler: async () => ({ body: { status: 'ok' as const } }),
    }),
    definePublicRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      summary: 'Readiness: every database is writable and migrated',
      tags,
      response: {
        status: 200,
        description: 'Ready',
        schema: Type.Object({ status: Type.Literal('ready'), environments: Type.Array(Type.String()) }, { additionalProperties: false }),
      },
      errors: ['service_unavailable'],
      handler: async () => {
        for (const store of deps.stores.all()) {
          try {
            // BEGIN IMMEDIATE takes the write lock: proves the file is writable without changing it.
            await store.db.connection().execute(async (conn) => {
              await sql`BEGIN IMMEDIATE`.execute(conn);
              await sql`ROLLBACK`.execute(conn);
            });
          } catch {
            throw new AppError('service_unavailable', `The ${store.env} database is not writable.`);
          }
          if (!(await migrationsAreCurrent(store.db))) throw new AppError('service_unavailable', `The ${store.env} database has pending migrations.`);
        }
        return { body: { status: 'ready' as const, environments: deps.stores.all().map((s) => s.env) } };
      },
    }),
    definePublicRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      tags,
      response: { status: 200, description: 'Prometheus text exposition', schema: Type.String(), contentType: 'text/plain; version=0.0.4' },
      handler: async () => ({ body: deps.metrics.render({ petcare_audit_buffered_rows: deps.auditBacklog() }) }),
    }),
    definePublicRoute({
      method: 'get',
      path: '/version',
      operationId: 'getVersion',
      summary: 'Platform release and API versions',
      tags,
      response: {
        status: 200,
        description: 'Versions',
        schema: Type.Object({ platformVersion: Type.String(), apiVersions: Type.Array(Type.String()), node: Type.String() }, { additionalProperties: false }),
      },
      handler: async () => ({
        body: { platformVersion: deps.platformVersion, apiVersions: ['v1', 'v0 (deprecated, sunset 2026-12-01)'], node: process.version },
      }),
    }),
  ];
}
