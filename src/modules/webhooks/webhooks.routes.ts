import type { TSchema } from '@sinclair/typebox';
import { koaBody } from 'koa-body';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { validationFailed } from '../../http/errors.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute, type StageInput, type Staged } from '../../http/route.js';
import { validateBody } from '../../http/validation.js';
import { eventsSpanTenant } from '../events/index.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { presentAttempt, presentEndpoint, presentEndpointWithSecret } from './webhooks.presenter.js';
import { listAttempts, listEndpoints } from './webhooks.repository.js';
import {
  AttemptSchema,
  createEndpointSchema,
  DeletedEndpointSchema,
  EndpointParams,
  EndpointSchema,
  EndpointWithSecretSchema,
  ListAttemptsQuery,
  ListEndpointsQuery,
  ReplayEventResultSchema,
  ReplayEventSchema,
  ReplayRangeResultSchema,
  ReplayRangeSchema,
  RotateSecretSchema,
  TestEventResultSchema,
  updateEndpointSchema,
  maxReplayEvents,
  type CreateEndpointInput,
  type UpdateEndpointInput,
} from './webhooks.schema.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  patchEndpoint,
  queueTestEvent,
  replayEvent,
  replayRange,
  rotateEndpointSecret,
} from './webhooks.service.js';

const tags = ['Webhooks'];
const noStore = { 'Cache-Control': 'no-store' };

export interface WebhookRouteDeps {
  config: Pick<Config, 'jsonBodyLimitBytes' | 'webhookSecretOverlapHours'>;
  clock: Clock;
  webhooks: WebhookDispatcher;
}

/**
 * Reads and validates a JSON body, then checks its `url` against the outbound policy (a DNS
 * lookup) BEFORE the transaction, so no write lock is held during network I/O.
 */
function jsonBodyWithUrlCheck<T extends { url?: string | undefined }>(schema: TSchema, deps: WebhookRouteDeps) {
  const parse = koaBody({
    json: true,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: deps.config.jsonBodyLimitBytes,
    onError: (err) => {
      throw err;
    },
  });
  return async ({ ctx, actor }: StageInput<unknown, unknown>): Promise<Staged<T>> => {
    await parse(ctx, async () => undefined);
    const body = validateBody<T>(schema, ctx.request.body ?? {});
    if (body.url !== undefined) {
      const problem = await deps.webhooks.policy.checkUrl(body.url);
      if (problem) throw validationFailed([{ field: 'url', message: problem }]);
    }
    return { value: body, fingerprint: body, discard: async () => undefined };
  };
}

const urlRules =
  'The URL must be http(s) without credentials; loopback (127.0.0.0/8, ::1), unspecified (0.0.0.0, ::), link-local (169.254.0.0/16, fe80::/10), ' +
  'cloud-metadata (169.254.169.254, fd00:ec2::254, metadata.google.internal) and multicast addresses, in any form (IPv4-mapped IPv6 included), are refused ' +
  'unless PETCARE_WEBHOOK_ALLOW_HOSTS opens them; the host name is resolved and every address checked (400 `validation_failed`, field url), and again at ' +
  'every connection. Private LAN ranges are allowed.';

export function webhookRoutes(deps: WebhookRouteDeps): AnyRoute[] {
  const { clock, webhooks } = deps;
  const CreateEndpointSchema = createEndpointSchema();
  const UpdateEndpointSchema = updateEndpointSchema();
  return [
    defineRoute<undefined, undefined, typeof CreateEndpointSchema, typeof EndpointWithSecretSchema, CreateEndpointInput>({
      method: 'post',
      path: '/v1/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description:
        'Subscribes a URL to event types (canonical names, aliases or "*"). Answers with the signing `secret` (`whsec_…`), shown only here and on rotation: ' +
        'an idempotent replay omits it (`Idempotent-Replayed-Redacted: secret`). Events committed from now on are delivered; older ones can be replayed. ' +
        'Delivery is at-least-once and not ordered, also per endpoint: dedupe on the event `id`, order by `createdAt` if needed. ' +
        'Each POST carries `X-Service-Signature` and `Service-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, two v1 during a rotation), ' +
        '`X-Service-Event-Id`, `X-Service-Event-Type`, `X-Service-Delivery-Id`, `X-Service-Delivery-Attempt` and `X-Service-Delivery-Kind`. ' +
        'A 2xx within PETCARE_WEBHOOK_TIMEOUT_MS (10 s) is success; redirects are not followed; at most 64 KiB of the answer is read. ' +
        `${urlRules} At most 50 endpoints per environment. Tenant-wide clients only (403 \`tenant_wide_only\`).`,
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      body: CreateEndpointSchema,
      stage: jsonBodyWithUrlCheck<CreateEndpointInput>(CreateEndpointSchema, deps),
      response: { status: 201, description: 'The endpoint with its secret', schema: EndpointWithSecretSchema },
      errors: ['conflict', 'tenant_wide_only'],
      redactOnReplay: ['secret'],
      handler: async ({ db, actor, staged }) => ({
        body: presentEndpointWithSecret(await createEndpoint(db, actor, staged, clock.now(), deps.webhooks.secrets)),
        headers: noStore,
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      description: 'Newest first; filter by enabled. Secrets are never listed.',
      tags,
      access: { scope: 'webhooks.read' },
      tenantWide: eventsSpanTenant,
      query: ListEndpointsQuery,
      response: { status: 200, description: 'A page of endpoints', schema: pageSchema(EndpointSchema) },
      errors: ['invalid_cursor', 'tenant_wide_only'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listEndpoints(db, actor, page, query), page, presentEndpoint) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints/:id',
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      tags,
      access: { scope: 'webhooks.read' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      response: { status: 200, description: 'The endpoint', schema: EndpointSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => ({ body: presentEndpoint(await getEndpoint(db, actor, params.id)) }),
    }),
    defineRoute<typeof EndpointParams, undefined, typeof UpdateEndpointSchema, typeof EndpointSchema, UpdateEndpointInput>({
      method: 'patch',
      path: '/v1/webhook-endpoints/:id',
      operationId: 'updateWebhookEndpoint',
      summary: 'Update, disable or enable a webhook endpoint',
      description:
        'Changes url, events, description or enabled. Disabling cancels deliveries waiting for an attempt (replay them later); ' +
        `enabling again delivers events committed from then on. Pending retries go to the new URL. ${urlRules}`,
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      body: UpdateEndpointSchema,
      stage: jsonBodyWithUrlCheck<UpdateEndpointInput>(UpdateEndpointSchema, deps),
      response: { status: 200, description: 'The updated endpoint', schema: EndpointSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params, staged }) => ({ body: presentEndpoint(await patchEndpoint(db, actor, params.id, staged, clock.now())) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhook-endpoints/:id',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Stops its deliveries at once (attempts already in flight finish) and forgets its secrets. Answers `{id, deleted: true}`.',
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      response: { status: 200, description: 'The endpoint is deleted', schema: DeletedEndpointSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => {
        await deleteEndpoint(db, actor, params.id, clock.now());
        return { body: { id: params.id, deleted: true as const } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:id/rotate-secret',
      operationId: 'rotateWebhookEndpointSecret',
      summary: 'Rotate the signing secret',
      description:
        'Issues a new secret (shown only in this answer). The old one keeps signing beside it — two `v1=` values in the signature header — ' +
        'for `expiresInHours` (default PETCARE_WEBHOOK_SECRET_OVERLAP_HOURS, 24; 0 retires it at once). Rotating again during an overlap retires the oldest secret.',
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      body: RotateSecretSchema,
      response: { status: 200, description: 'The endpoint with its new secret', schema: EndpointWithSecretSchema },
      errors: ['not_found', 'tenant_wide_only'],
      redactOnReplay: ['secret'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentEndpointWithSecret(await rotateEndpointSecret(db, actor, params.id, body.expiresInHours, deps.config, clock.now(), deps.webhooks.secrets)),
        headers: noStore,
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:id/test',
      operationId: 'testWebhookEndpoint',
      summary: 'Send a signed test event',
      description:
        'Queues a synthetic `webhook.test` event ({endpointId, message}) to this endpoint, signed like any delivery, sent within a second even if the endpoint ' +
        'is disabled. It is outside the catalogue: not subscribable, not in GET /v1/events, attempted once and not retried. See the result in ' +
        'GET /v1/webhook-endpoints/:id/deliveries.',
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      response: { status: 202, description: 'The test delivery is queued', schema: TestEventResultSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params, afterCommit }) => {
        const queued = await queueTestEvent(db, actor, params.id, clock.now());
        afterCommit(() => webhooks.wake(actor.env));
        return { body: queued, resourceId: params.id };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List delivery attempts of an endpoint',
      description:
        'Every attempt, newest first: event id, type as delivered, attempt number, status, latency, response status and excerpt, error, and when the next attempt is due. ' +
        'Attempts still in flight are listed `in_flight` under the ids they keep. After a hard stop of the appliance, an event whose first attempt was cut is sent again as a new delivery ' +
        '(at-least-once: dedupe on the event id). ' +
        'Filter by eventId, deliveryId or status. Failed attempts are retried after the delays of PETCARE_WEBHOOK_RETRY_SCHEDULE (default 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, ' +
        'then a final attempt about 24 h after the first), each ±10 % jitter; then the delivery is `failed` and can be replayed.',
      tags,
      access: { scope: 'webhooks.read' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      query: ListAttemptsQuery,
      response: { status: 200, description: 'A page of attempts', schema: pageSchema(AttemptSchema) },
      errors: ['not_found', 'invalid_cursor', 'tenant_wide_only'],
      handler: async ({ db, actor, params, query }) => {
        const endpoint = await getEndpoint(db, actor, params.id);
        const page = pageRequest(query);
        const firstInFlight = webhooks.firstAttemptsInFlight(actor.env, endpoint.id);
        return { body: toPage(await listAttempts(db, actor, endpoint.id, page, query, firstInFlight), page, presentAttempt) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:id/replay',
      operationId: 'replayWebhookEndpointEvents',
      summary: 'Replay a time range of events to an endpoint',
      description:
        `Re-sends the events created in [from, to) that the endpoint subscribes to, oldest first, at most ${maxReplayEvents} per call ` +
        '(then `hasMore` and `nextFrom` say where to continue; a call never splits one millisecond, so when more events share the first instant they all come at once). Each is a NEW delivery (kind `replay`) with fresh signatures and the usual retries. ' +
        'The endpoint must be enabled (409).',
      tags,
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      body: ReplayRangeSchema,
      response: { status: 202, description: 'What was queued', schema: ReplayRangeResultSchema },
      errors: ['not_found', 'conflict', 'tenant_wide_only'],
      handler: async ({ db, actor, params, body, afterCommit }) => {
        const result = await replayRange(db, actor, params.id, body.from, body.to, clock.now());
        afterCommit(() => webhooks.wake(actor.env));
        return { body: result, resourceId: params.id };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/events/:id/replay',
      operationId: 'replayEvent',
      summary: 'Replay an event',
      description:
        'Re-sends the event as NEW deliveries (kind `replay`, fresh signatures, usual retries): to `endpointId` (which must be enabled and subscribed, else 409), ' +
        'or to every enabled endpoint subscribed to its type now, each under the name it subscribed by.',
      tags: ['Events'],
      access: { scope: 'webhooks' },
      tenantWide: eventsSpanTenant,
      params: EndpointParams,
      body: ReplayEventSchema,
      response: { status: 202, description: 'The deliveries queued', schema: ReplayEventResultSchema },
      errors: ['not_found', 'resource_missing', 'conflict', 'tenant_wide_only'],
      handler: async ({ db, actor, params, body, afterCommit }) => {
        const result = await replayEvent(db, actor, params.id, body.endpointId, clock.now());
        afterCommit(() => webhooks.wake(actor.env));
        return { body: result, resourceId: params.id };
      },
    }),
  ];
}
