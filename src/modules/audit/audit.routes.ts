import { Type } from '@sinclair/typebox';
import { acrossTenants } from '../../db/access-policy.js';
import type { AuditEventsTable, Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import type { AuditLog } from '../../http/audit.js';
import { pageQuery, pageQueryFields, pageRequest, pageSchema, toPage, type PageRequest } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';

const DateTime = Type.String({ format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T', maxLength: 40 });

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    occurredAt: Type.String({ format: 'date-time' }),
    requestId: Type.String(),
    clientId: Type.Union([Type.String(), Type.Null()], { description: 'cli_… of the caller; null when it could not be identified.' }),
    role: Type.Union([Type.String(), Type.Null()]),
    ip: Type.String(),
    method: Type.String(),
    route: Type.String({ description: 'The route template, e.g. GET /v1/pets/:id.' }),
    path: Type.String(),
    resourceId: Type.Union([Type.String(), Type.Null()]),
    status: Type.Integer(),
    latencyMs: Type.Number(),
  },
  { additionalProperties: false },
);

const ListAuditQuery = Type.Object(
  {
    ...pageQueryFields,
    clientId: Type.Optional(Type.String({ maxLength: 100 })),
    resourceId: Type.Optional(Type.String({ maxLength: 100 })),
    method: Type.Optional(Type.String({ maxLength: 10 })),
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

interface AuditFilters {
  clientId?: string | undefined;
  resourceId?: string | undefined;
  method?: string | undefined;
  status?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * Unscoped admins see the tenant's trail and unidentified calls; a location-scoped admin sees its own calls.
 * Not a rule the table policy can say (calls without a tenant, the caller's own client): the
 * conditions are written here, on the database reached through `acrossTenants`.
 */
async function listAuditEvents(db: Executor, actor: Actor, page: PageRequest, f: AuditFilters): Promise<AuditEventsTable[]> {
  let query = acrossTenants(db, "audit trail: the tenant's calls and unidentified ones, or the caller's own; conditions below")
    .selectFrom('audit_events')
    .selectAll();
  query =
    actor.locationIds === null
      ? query.where((eb) => eb.or([eb('tenant_id', '=', actor.tenantId), eb('tenant_id', 'is', null)]))
      : query.where('client_id', '=', actor.clientId);
  if (f.clientId !== undefined) query = query.where('client_id', '=', f.clientId);
  if (f.resourceId !== undefined) query = query.where('resource_id', '=', f.resourceId);
  if (f.method !== undefined) query = query.where('method', '=', f.method.toUpperCase());
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.from !== undefined) query = query.where('occurred_at', '>=', new Date(f.from).toISOString());
  if (f.to !== undefined) query = query.where('occurred_at', '<', new Date(f.to).toISOString());
  return pageQuery(query, page).execute();
}

const present = (row: AuditEventsTable) => ({
  id: row.id,
  occurredAt: row.occurred_at,
  requestId: row.request_id,
  clientId: row.client_id,
  role: row.role,
  ip: row.ip,
  method: row.method,
  route: row.route,
  path: row.path,
  resourceId: row.resource_id,
  status: row.status,
  latencyMs: row.latency_ms,
});

export function auditRoutes(deps: { audit: AuditLog }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/audit-events',
      operationId: 'listAuditEvents',
      summary: 'Query the audit trail',
      description:
        'Every call, refused ones included (401, 403, 429…), newest first: time, request id, client, role, IP, method, route, resource id, status, latency. ' +
        'Reads are recorded in batches within about 100 ms; writes with the write itself. No bodies or secrets are kept. Health probes are not audited.',
      tags: ['Audit'],
      access: { scope: 'admin.read', roles: ['admin'] },
      query: ListAuditQuery,
      response: { status: 200, description: 'A page of audit events', schema: pageSchema(AuditEventSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        await deps.audit.flush(); // read-your-writes: calls made a moment ago are listed too
        const page = pageRequest(query);
        return { body: toPage(await listAuditEvents(db, actor, page, query), page, present) };
      },
    }),
  ];
}
