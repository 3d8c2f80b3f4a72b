import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { SecretBox } from './db/secret-box.js';
import type { Stores } from './db/stores.js';
import { apiVersionMiddleware } from './http/api-versions.js';
import { AuditLog, auditMiddleware } from './http/audit.js';
import { CallerCache } from './http/authenticate.js';
import { errorHandler } from './http/error-handler.js';
import { IdempotencyStore } from './http/idempotency.js';
import { lingeringClose } from './http/lingering-close.js';
import { Metrics } from './http/metrics.js';
import { SlidingWindowLimiter } from './http/rate-limit.js';
import { requestContext, type RequestState } from './http/request-context.js';
import type { AnyRoute } from './http/route.js';
import { buildRouter } from './http/router.js';
import type { HousekeepingTask } from './jobs/housekeeping.js';
import { JobRunner } from './jobs/runner.js';
import { jobRoutes } from './modules/jobs/index.js';
import { backupJob } from './modules/backups/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { ClientDirectory, clientRoutes } from './modules/clients/index.js';
import { docsRoutes } from './modules/docs/docs.routes.js';
import { consoleRoutes } from './modules/console/index.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { locationRoutes } from './modules/locations/index.js';
import { AccessTokens, oauthHousekeeping, oauthRoutes, type SigningKeys } from './modules/oauth/index.js';
import { petParentRoutes } from './modules/pet-parents/index.js';
import { petRoutes } from './modules/pets/index.js';
import { sandboxRoutes } from './modules/sandbox/index.js';
import { providerRoutes } from './modules/providers/index.js';
import { appointmentHousekeeping, appointmentRoutes } from './modules/appointments/index.js';
import { vaccinationRoutes } from './modules/vaccinations/index.js';
import { medicalRecordRoutes } from './modules/medical-records/index.js';
import { documentHousekeeping, documentRoutes } from './modules/documents/index.js';
import { notificationJobs, notificationRoutes } from './modules/notifications/index.js';
import { reminderJobs } from './modules/reminders/index.js';
import { eventRoutes } from './modules/events/index.js';
import { paymentJobs, paymentRoutes } from './modules/payments/index.js';
import { boardingJobs, boardingRoutes } from './modules/boarding/index.js';
import { groomingJobs, groomingRoutes } from './modules/grooming/index.js';
import { marketplaceRoutes } from './modules/marketplace/index.js';
import { aiJobs, aiRoutes } from './modules/ai/index.js';
import { aiAgentRoutes } from './modules/ai/index.js';
import { analyticsRoutes } from './modules/analytics/index.js';
import { WebhookDispatcher, webhookHousekeeping, webhookJobs, webhookRoutes } from './modules/webhooks/index.js';

export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  stores: Stores;
  keys: SigningKeys;
  /** Seals the secrets read back in clear (webhook secrets, calendar tokens) under the data dir's key. */
  secretBox: SecretBox;
  /** Validate every response against its schema (on in tests). */
  validateResponses?: boolean;
}

export interface PetCareApp {
  koa: Koa;
  routes: readonly AnyRoute[];
  audit: AuditLog;
  idempotency: IdempotencyStore;
  directory: ClientDirectory;
  /** Background jobs; main and the test harness start and stop it. */
  runner: JobRunner;
  /** Webhook delivery (run by the runner's `webhook-delivery` job); tests read its attempts in flight. */
  webhooks: WebhookDispatcher;
}

/** Builds the Koa application and its services from explicit dependencies; no globals. */
export function createApp(deps: AppDeps): PetCareApp {
  const { config, clock, logger, stores, keys, secretBox } = deps;
  const metrics = new Metrics();
  const audit = new AuditLog(stores, config.auditFlushMs, logger);
  const idempotency = new IdempotencyStore(config.idempotencyTtlSeconds);
  const directory = new ClientDirectory(stores);
  const limiter = new SlidingWindowLimiter(clock);
  const tokens = new AccessTokens(keys, config, clock);
  const runner = new JobRunner({ stores, config, clock, logger });
  const shared = { config, clock, stores, directory, tokens, limiter, keys, secretBox, logger, runner };
  runner.register([backupJob()]);
  runner.register([...notificationJobs(shared), ...reminderJobs(shared)]);
  runner.register(paymentJobs());
  runner.register([...boardingJobs(shared), ...groomingJobs(shared)]);
  runner.register(aiJobs(shared));
  const webhooks = new WebhookDispatcher({ config, clock, secretBox });
  runner.register(webhookJobs({ config, webhooks }));
  // The idempotency store belongs to the gateway, which has no module to register its clean-up from.
  const idempotencySweep: HousekeepingTask = {
    name: 'http.idempotency',
    drops: 'expired idempotency records',
    run: async (ctx) => ({ expiredIdempotencyRecords: await idempotency.sweep(ctx.store.db, ctx.clock.now()) }),
  };
  runner.addHousekeeping([idempotencySweep, ...oauthHousekeeping(), ...documentHousekeeping(shared), ...webhookHousekeeping({ webhooks }), ...appointmentHousekeeping(shared)]);

  const routes: AnyRoute[] = [
    ...oauthRoutes(shared),
    ...clientRoutes(shared),
    ...locationRoutes(shared),
    ...petParentRoutes(shared),
    ...petRoutes(shared),
    ...providerRoutes(shared),
    ...appointmentRoutes(shared),
    ...vaccinationRoutes(shared),
    ...medicalRecordRoutes(shared),
    ...documentRoutes(shared),
    ...notificationRoutes(shared),
    ...paymentRoutes(shared),
    ...boardingRoutes(shared),
    ...groomingRoutes(shared),
    ...marketplaceRoutes(shared),
    ...aiRoutes(shared),
    ...aiAgentRoutes(shared),
    ...analyticsRoutes(shared),
    ...eventRoutes(),
    ...webhookRoutes({ ...shared, webhooks }),
    ...auditRoutes({ audit }),
    ...jobRoutes(shared),
    ...sandboxRoutes(shared),
    ...healthRoutes({ stores, metrics, platformVersion: config.platformVersion, auditBacklog: () => audit.backlog() }),
  ];
  routes.push(...docsRoutes({ routes: () => routes, platformVersion: config.platformVersion }));
  routes.push(...consoleRoutes());

  const bodyParser = koaBody({
    json: true,
    jsonStrict: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: config.jsonBodyLimitBytes,
    formLimit: config.jsonBodyLimitBytes,
    onError: (err) => {
      throw err;
    },
  });
  const router = buildRouter(routes, {
    parseBody: (ctx) => bodyParser(ctx, async () => undefined),
    config,
    clock,
    stores,
    tokens,
    clients: directory,
    callers: new CallerCache(),
    limiter,
    audit,
    idempotency,
    validateResponses: deps.validateResponses ?? false,
  });

  const koa = new Koa<RequestState>({ proxy: config.trustProxy });
  koa.silent = true; // errors are rendered and logged by errorHandler
  koa.use(requestContext({ logger, clock, platformVersion: config.platformVersion, metrics }));
  koa.use(lingeringClose({ maxBytes: config.refusedBodyDrainBytes }));
  koa.use(auditMiddleware({ audit, stores, clock }));
  koa.use(errorHandler(logger));
  koa.use(apiVersionMiddleware());
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return { koa, routes, audit, idempotency, directory, runner, webhooks };
}
