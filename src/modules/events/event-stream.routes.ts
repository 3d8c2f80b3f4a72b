import { Type } from '@sinclair/typebox';
import { AppError, validationFailed } from '../../http/errors.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { type EventStreams, typesAsked } from './event-stream.js';

const StreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'Comma-separated event types (canonical or alias; an alias is sent under that name). Default: every type your scopes show.',
    }),
  ),
  since: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'Resume after this event id (as `Last-Event-ID` does; the header wins when both are sent).',
    }),
  ),
});

/** `GET /v1/events/stream` (DESIGN §18). Mounted before `/v1/events/:id`. */
export function eventStreamRoutes(streams: EventStreams): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events/stream',
      operationId: 'streamEvents',
      summary: 'Stream events (Server-Sent Events)',
      description:
        'The live event log as `text/event-stream`, for software that cannot receive webhooks (a clinic PC behind NAT). ' +
        'Each event is one message: `id: <evt_…>`, `event: <type>`, `data: <envelope>` (the webhook envelope {id, type, createdAt, data}). ' +
        'What you see: the types your read scopes cover (pet.* with pets.read; appointment.*, booking.*, boarding.* and provider.* with ' +
        'bookings.read; payment.*, invoice.*, refund.* and subscription.* with payments.read; order.* and marketplace.* with marketplace.read; ' +
        'ai.* with ai.read; every type with webhooks.read), of your environment. A client confined to locations gets the events whose data ' +
        'names one of its locations (`locationId` or `locationIds`); events that name no location go to tenant-wide clients only. ' +
        'Resuming: send the last id you received as `Last-Event-ID` (an EventSource does so by itself) or `?since=`; the stream first sends ' +
        'every event after it from the log, in commit order, then live ones: none lost, none twice. An id the log does not hold (never, or ' +
        'no longer after a sandbox reset) is refused (400), so a client knows to resynchronise. A comment line (`: heartbeat`) comes every 15 s. ' +
        'At most PETCARE_EVENT_STREAMS_PER_CLIENT (default 5) open streams per client (429 `rate_limited` beyond). A reader that falls ' +
        'PETCARE_EVENT_STREAM_BUFFER_BYTES (default 1 MiB) behind is disconnected and resumes with its last id. On shutdown the appliance ' +
        'ends every stream at once (503 to new ones); reconnect after `retry` (2 s).',
      tags: ['Events'],
      access: { scope: ['webhooks.read', 'pets.read', 'bookings.read', 'payments.read', 'marketplace.read', 'ai.read'] },
      query: StreamQuery,
      response: {
        status: 200,
        description: 'The stream: messages until the client or the appliance closes it',
        schema: Type.Any({ description: 'Server-Sent Events (text/event-stream): `id`, `event` and `data` lines per event; `:` comments as heartbeats.' }),
        contentType: 'text/event-stream',
      },
      errors: ['rate_limited', 'service_unavailable'],
      handler: async ({ db, actor, query, ctx }) => {
        let types = null;
        if (query.types !== undefined) {
          const asked = typesAsked(
            query.types
              .split(',')
              .map((name) => name.trim())
              .filter((name) => name !== ''),
          );
          if (asked.unknown.length) throw validationFailed([{ field: 'types', message: `unknown event types: ${asked.unknown.join(', ')}` }]);
          types = asked.types;
        }
        const header = ctx.get('Last-Event-ID').trim();
        const resumeFrom = header !== '' ? header : (query.since ?? null);
        let afterSeq: number | null = null;
        if (resumeFrom !== null) {
          afterSeq = await streams.positionOf(db, actor.tenantId, resumeFrom);
          if (afterSeq === null) {
            const field = header !== '' ? 'Last-Event-ID' : 'since';
            throw validationFailed([{ field, message: `the event log holds no event '${resumeFrom}': resynchronise (GET /v1/events) and open a new stream` }]);
          }
        }
        if (streams.closed) throw new AppError('service_unavailable', 'The appliance is stopping; reconnect in a moment.', { headers: { 'Retry-After': '2' } });
        if (!streams.hasRoomFor(actor.clientId)) {
          throw new AppError('rate_limited', `At most ${streams.limits.perClient} event streams may be open per client; close one first.`, {
            headers: { 'Retry-After': '5' },
          });
        }
        const body = await streams.open({ db, actor, types, afterSeq });
        ctx.req.socket.setNoDelay(true);
        return { body, headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
      },
    }),
  ];
}
