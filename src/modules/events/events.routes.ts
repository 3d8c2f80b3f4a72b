import type { TSchema } from '@sinclair/typebox';
import { foundOr404 } from '../../http/errors.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { aliasesOf, canonicalEventTypes, canonicalOf, eventTypeAliases, eventTypeInfo, testEventData, testEventType } from './event-types.js';
import { eventsSpanTenant } from './events-access.js';
import { presentEvent } from './events.presenter.js';
import { findEvent, listEvents } from './events.repository.js';
import { EventEnvelopeSchema, EventParams, EventTypeListSchema, listEventsQuery } from './events.schema.js';

const tags = ['Events'];

/** TypeBox schemas carry symbols; the catalogue shows plain JSON Schema. */
const jsonSchema = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

function catalogue() {
  const canonical = canonicalEventTypes().map((type) => ({
    type,
    canonical: true,
    aliasOf: null,
    aliases: aliasesOf(type),
    description: eventTypeInfo(type).description,
    emittedBy: eventTypeInfo(type).emittedBy,
    dataSchema: jsonSchema(eventTypeInfo(type).data),
  }));
  const aliases = eventTypeAliases().map(([alias, type]) => ({
    type: alias,
    canonical: false,
    aliasOf: type,
    aliases: [],
    description: `Alias of ${type}: an endpoint subscribed by this name receives events under this name. ${eventTypeInfo(type).description}`,
    emittedBy: eventTypeInfo(type).emittedBy,
    dataSchema: jsonSchema(eventTypeInfo(type).data),
  }));
  return {
    data: [...canonical, ...aliases],
    testEvent: {
      type: testEventType,
      description: 'Sent only by POST /v1/webhook-endpoints/:id/test; outside the catalogue, not subscribable, not in GET /v1/events.',
      dataSchema: jsonSchema(testEventData),
    },
  };
}

export function eventRoutes(): AnyRoute[] {
  const types = catalogue();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'The outbox of domain events, newest first, as the webhook envelope {id, type, createdAt, data}. ' +
        'Filter by `type` (canonical or alias: asked by an alias, events are shown under that alias, as a webhook ' +
        'subscribed by it receives them) and `since` (created at or after). Events span every location, so a ' +
        'client confined to locations is refused (403 `tenant_wide_only`).',
      tags,
      access: { scope: 'webhooks.read' },
      tenantWide: eventsSpanTenant,
      query: listEventsQuery(),
      response: { status: 200, description: 'A page of events', schema: pageSchema(EventEnvelopeSchema) },
      errors: ['invalid_cursor', 'tenant_wide_only'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const canonical = query.type === undefined ? undefined : (canonicalOf(query.type) ?? undefined);
        const since = query.since === undefined ? undefined : new Date(query.since).toISOString();
        const rows = await listEvents(db, actor.tenantId, page, { type: canonical, since });
        return { body: toPage(rows, page, (row) => presentEvent(row, query.type ?? row.type)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/events/:id',
      operationId: 'getEvent',
      summary: 'Get an event',
      description: 'The envelope under its canonical type. Confined clients are refused (403 `tenant_wide_only`).',
      tags,
      access: { scope: 'webhooks.read' },
      tenantWide: eventsSpanTenant,
      params: EventParams,
      response: { status: 200, description: 'The event', schema: EventEnvelopeSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => {
        const row = foundOr404(await findEvent(db, actor.tenantId, params.id), 'event', params.id);
        return { body: presentEvent(row) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/event-types',
      operationId: 'listEventTypes',
      summary: 'List event types',
      description:
        'The catalogue: both seed lists, canonical types and their aliases (payment.succeeded ≡ payment.completed, ' +
        'vaccination.due ≡ pet.vaccination_due), what emits each, and the JSON Schema of its `data`. Data objects are ' +
        'open: fields may be added in a release, never removed or retyped.',
      tags,
      access: { scope: 'webhooks.read' },
      response: { status: 200, description: 'The catalogue', schema: EventTypeListSchema },
      handler: async () => ({ body: types }),
    }),
  ];
}
