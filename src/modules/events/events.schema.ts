import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { eventTypeNames } from './event-types.js';

/** The seed's webhook envelope, exactly: the same object the API lists and webhooks POST. */
export const EventEnvelopeSchema = Type.Object(
  {
    id: Type.String({ description: 'Event id (evt_…); receivers dedupe on it.' }),
    type: Type.String({ description: 'Event type (see GET /v1/event-types).' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the change happened, ISO 8601 UTC.' }),
    data: Type.Object({}, { additionalProperties: true, description: "The type's payload (schema in GET /v1/event-types)." }),
  },
  { additionalProperties: false },
);

/** A catalogue type, canonical or alias (built when the routes are: the catalogue comes from the manifests). */
export const eventTypeNameSchema = () =>
  Type.Union(
    eventTypeNames().map((name) => Type.Literal(name)),
    { description: 'A catalogue type, canonical or alias.' },
  );

export const listEventsQuery = () =>
  Type.Object(
    {
      ...pageQueryFields,
      type: Type.Optional(eventTypeNameSchema()),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created at or after this instant (ISO 8601).' })),
    },
    { additionalProperties: false },
  );

export const EventParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const EventTypeInfoSchema = Type.Object(
  {
    type: Type.String(),
    canonical: Type.Boolean({ description: 'False for an alias.' }),
    aliasOf: Type.Union([Type.String(), Type.Null()], { description: 'The canonical type an alias stands for.' }),
    aliases: Type.Array(Type.String(), { description: 'Aliases of a canonical type.' }),
    description: Type.String(),
    emittedBy: Type.String(),
    dataSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of `data`.' }),
  },
  { additionalProperties: false },
);

export const EventTypeListSchema = Type.Object(
  {
    data: Type.Array(EventTypeInfoSchema),
    testEvent: Type.Object(
      {
        type: Type.String(),
        description: Type.String(),
        dataSchema: Type.Object({}, { additionalProperties: true }),
      },
      { additionalProperties: false, description: 'The synthetic event of POST /v1/webhook-endpoints/:id/test (not subscribable).' },
    ),
  },
  { additionalProperties: false },
);

export type ListEventsFilters = Static<ReturnType<typeof listEventsQuery>>;
export type EventEnvelope = Static<typeof EventEnvelopeSchema>;
