import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { eventTypeNames } from '../events/index.js';
import { wildcard } from './subscriptions.js';

export const maxEndpointsPerEnvironment = 50;
/** At most this many events are queued by one range replay. */
export const maxReplayEvents = 1000;
export const maxOverlapHours = 24 * 30;

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'http(s) URL without credentials. Loopback, link-local and cloud-metadata addresses are refused unless allowed by PETCARE_WEBHOOK_ALLOW_HOSTS; private LAN addresses are allowed. ' +
    'Stored and answered in its WHATWG-normalised form (`new URL(url).href`): `<`, `>`, `"` and spaces percent-encoded, the scheme and host lower-case, an empty path `/`; at most 2048 characters in that form.',
  examples: ['https://hooks.example.com/petcare'],
});

/** The types an endpoint receives (built with the routes: the catalogue comes from the manifests). */
function events() {
  const names = eventTypeNames();
  const subscription = Type.Union([...names.map((name) => Type.Literal(name)), Type.Literal(wildcard)], {
    description: 'A catalogue type (canonical or alias) or "*" for every type.',
  });
  return Type.Array(subscription, {
    minItems: 1,
    maxItems: names.length + 1,
    uniqueItems: true,
    description:
      'Types to receive. An alias subscription receives events under the alias; "*" and canonical names receive the canonical name; subscribed by both an alias and its canonical name (or "*"), an event is sent once, under the canonical name.',
  });
}

const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

export const createEndpointSchema = () =>
  Type.Object(
    {
      url: Url,
      events: events(),
      description: Type.Optional(Description),
    },
    { additionalProperties: false },
  );

export const updateEndpointSchema = () =>
  Type.Object(
    {
      url: Type.Optional(Url),
      events: Type.Optional(events()),
      enabled: Type.Optional(
        Type.Boolean({ description: 'false stops deliveries (pending ones are cancelled); true resumes with events created from then on.' }),
      ),
      description: Type.Optional(Description),
    },
    { additionalProperties: false, minProperties: 1 },
  );

export const RotateSecretSchema = Type.Object(
  {
    expiresInHours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: maxOverlapHours,
        description: 'How long the old secret keeps signing (default PETCARE_WEBHOOK_SECRET_OVERLAP_HOURS, 24); 0 retires it at once.',
      }),
    ),
  },
  { additionalProperties: false },
);

const endpointFields = {
  id: Type.String({ description: 'Endpoint id (whe_…).' }),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'While set, the previous secret also signs (a second v1 in the signature header) until this instant.',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

export const EndpointSchema = Type.Object(endpointFields, { additionalProperties: false });

export const EndpointWithSecretSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'whsec_…: shown only here and on rotation. The HMAC key is this whole string.' }),
  },
  { additionalProperties: false },
);

export const DeletedEndpointSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false });

export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ListEndpointsQuery = Type.Object({ ...pageQueryFields, enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const attemptStatuses = ['in_flight', 'succeeded', 'failed', 'interrupted'] as const;
export const deliveryStatuses = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;
const literals = (values: readonly string[]) => values.map((v) => Type.Literal(v));

export const AttemptSchema = Type.Object(
  {
    id: Type.String({ description: 'Attempt id (wha_…).' }),
    deliveryId: Type.String({ description: 'The delivery (whd_…) this attempt belongs to: one event (or replay, or test) to this endpoint.' }),
    endpointId: Type.String(),
    eventId: Type.String(),
    type: Type.String({ description: 'The type as delivered (an alias when subscribed by it).' }),
    kind: Type.Union(literals(['event', 'replay', 'test']), { description: 'event: first delivery; replay: re-sent on request; test: webhook.test.' }),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of the delivery.' }),
    status: Type.Union(literals(attemptStatuses), {
      description:
        'in_flight, succeeded (2xx within the timeout), failed, or interrupted (the service stopped during the attempt; the next attempt follows at once).',
    }),
    deliveryStatus: Type.Union(literals(deliveryStatuses), {
      description: 'The delivery now: pending (a retry is due), sending, succeeded, failed (retries exhausted) or cancelled.',
    }),
    url: Type.String({ description: 'Where this attempt went.' }),
    startedAt: Type.String({ format: 'date-time' }),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    latencyMs: Type.Union([Type.Number(), Type.Null()]),
    responseStatus: Type.Union([Type.Integer(), Type.Null()]),
    responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the answer (at most 64 KiB are read).' }),
    error: Type.Union([Type.String(), Type.Null()]),
    nextRetryAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the next attempt is due after this failed one; null if none follows.',
    }),
  },
  { additionalProperties: false },
);

export const ListAttemptsQuery = Type.Object(
  {
    ...pageQueryFields,
    eventId: Type.Optional(Type.String({ maxLength: 100 })),
    deliveryId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.Union(literals(attemptStatuses))),
  },
  { additionalProperties: false },
);

const QueuedDelivery = Type.Object({ deliveryId: Type.String(), endpointId: Type.String(), type: Type.String() }, { additionalProperties: false });

export const ReplayEventSchema = Type.Object(
  { endpointId: Type.Optional(Type.String({ maxLength: 100, description: 'Only this endpoint; default every enabled endpoint subscribed to the type.' })) },
  { additionalProperties: false },
);

export const ReplayEventResultSchema = Type.Object({ eventId: Type.String(), queued: Type.Array(QueuedDelivery) }, { additionalProperties: false });

export const ReplayRangeSchema = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Events created at or after this instant.' }),
    to: Type.String({ format: 'date-time', description: 'Events created before this instant.' }),
  },
  { additionalProperties: false },
);

export const ReplayRangeResultSchema = Type.Object(
  {
    endpointId: Type.String(),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    queued: Type.Integer({ description: `New replay deliveries queued (at most ${maxReplayEvents}).` }),
    firstEventId: Type.Union([Type.String(), Type.Null()]),
    lastEventId: Type.Union([Type.String(), Type.Null()]),
    hasMore: Type.Boolean({ description: 'More events match: call again with from = nextFrom.' }),
    nextFrom: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const TestEventResultSchema = Type.Object(
  { deliveryId: Type.String(), endpointId: Type.String(), eventId: Type.String(), type: Type.String() },
  { additionalProperties: false },
);

export type CreateEndpointInput = Static<ReturnType<typeof createEndpointSchema>>;
export type UpdateEndpointInput = Static<ReturnType<typeof updateEndpointSchema>>;
export type ListAttemptsFilters = Static<typeof ListAttemptsQuery>;
