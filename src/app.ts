import { registerAccessPolicies } from './db/access-policy.js';
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
import { registerErrorCodes } from './http/errors.js';
import { IdempotencyStore } from './http/idempotency.js';
import { lingeringClose } from './http/lingering-close.js';
import { Metrics } from './http/metrics.js';
import { SlidingWindowLimiter } from './http/rate-limit.js';
import { requestContext, type RequestState } from './http/request-context.js';
import type { AnyRoute } from './http/route.js';
import { buildRouter } from './http/router.js';
import type { HousekeepingTask } from './jobs/housekeeping.js';
import { JobRunner } from './jobs/runner.js';
import { tagDescriptionsOf, type ModuleManifest } from './module-manifest.js';
import { aiModule } from './modules/ai/index.js';
import { analyticsModule } from './modules/analytics/index.js';
import { appointmentsModule } from './modules/appointments/index.js';
import { auditModule } from './modules/audit/index.js';
import { backupsModule } from './modules/backups/index.js';
import { boardingModule } from './modules/boarding/index.js';
import { bookingsModule } from './modules/bookings/index.js';
import { businessClockModule } from './modules/business-clock/index.js';
import { ClientDirectory, clientsModule } from './modules/clients/index.js';
import { consoleModule } from './modules/console/index.js';
import { docsModule } from './modules/docs/index.js';
import { documentsModule } from './modules/documents/index.js';
import { EventStreams, eventsModule, registerEventTypes } from './modules/events/index.js';
import { groomingModule } from './modules/grooming/index.js';
import { healthModule } from './modules/health/index.js';
import { jobsModule } from './modules/jobs/index.js';
import { locationsModule } from './modules/locations/index.js';
import { marketplaceModule } from './modules/marketplace/index.js';
import { medicalRecordsModule } from './modules/medical-records/index.js';
import { importsModule } from './modules/imports/index.js';
import { notificationsModule } from './modules/notifications/index.js';
import { AccessTokens, oauthModule, type SigningKeys } from './modules/oauth/index.js';
import { paymentsModule } from './modules/payments/index.js';
import { petParentsModule } from './modules/pet-parents/index.js';
import { petsModule } from './modules/pets/index.js';
import { providersModule } from './modules/providers/index.js';
import { remindersModule } from './modules/reminders/index.js';
import { sandboxModule } from './modules/sandbox/index.js';
import { vaccinationsModule } from './modules/vaccinations/index.js';
import { WebhookDispatcher, webhooksModule } from './modules/webhooks/index.js';

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
  /** Each OpenAPI tag's description (from the modules' manifests), for `buildOpenApi`. */
  tags: Readonly<Record<string, string>>;
  /** The modules, in order. */
  modules: readonly ModuleManifest<ModuleDeps>[];
  audit: AuditLog;
  idempotency: IdempotencyStore;
  directory: ClientDirectory;
  /** Background jobs; main and the test harness start and stop it. */
  runner: JobRunner;
  /** Webhook delivery (run by the runner's `webhook-delivery` job); tests read its attempts in flight. */
  webhooks: WebhookDispatcher;
  /** Open GET /v1/events/stream responses; the shutdown ends them before the drain. */
  eventStreams: EventStreams;
}

/** The app's shared services: what a module's factories may take (each manifest names the part it needs). */
export interface ModuleDeps extends Omit<AppDeps, 'validateResponses'> {
  directory: ClientDirectory;
  tokens: AccessTokens;
  limiter: SlidingWindowLimiter;
  runner: JobRunner;
  webhooks: WebhookDispatcher;
  eventStreams: EventStreams;
  audit: AuditLog;
  metrics: Metrics;
  /** Every route of the app, once built (the docs read it). */
  routes: () => readonly AnyRoute[];
  /** Every module of the app, in order (OpenAPI tags and the sandbox reset read it). */
  modules: () => readonly ModuleManifest[];
}

/**
 * The modules, in the order their routes match and appear in /openapi.json. A module's rows may
 * point only at modules listed before it: the sandbox reset erases latest first (see `ModuleReset`).
 * The docs come last: they describe every route.
 */
const appModules = (gateway: ModuleManifest<ModuleDeps>): ModuleManifest<ModuleDeps>[] => [gateway, ...featureModules];
const featureModules: ModuleManifest<ModuleDeps>[] = [
  businessClockModule,
  oauthModule,
  clientsModule,
  locationsModule,
  petParentsModule,
  petsModule,
  providersModule,
  bookingsModule,
  appointmentsModule,
  vaccinationsModule,
  medicalRecordsModule,
  documentsModule,
  notificationsModule,
  remindersModule,
  paymentsModule,
  boardingModule,
  groomingModule,
  marketplaceModule,
  aiModule,
  analyticsModule,
  importsModule,
  eventsModule,
  webhooksModule,
  auditModule,
  jobsModule,
  backupsModule,
  sandboxModule,
  healthModule,
  docsModule,
  consoleModule,
];

/**
 * What the modules declare for everyone — table policies, event types, error codes — registered
 * without building the app: the CLI runs the same services, whose scoped() queries, emits and
 * AppErrors need them. createApp registers them too (with the gateway's), before any route is built:
 * the routes' schemas list the event types, OpenAPI the error codes.
 */
export function registerModuleDeclarations(modules: readonly ModuleManifest<ModuleDeps>[] = featureModules): void {
  for (const module of modules) {
    registerAccessPolicies(module.name, module.access ?? {});
    registerEventTypes(module.name, module.events ?? {});
    registerErrorCodes(module.name, module.errors ?? {});
  }
}

/**
 * The housekeeping job runs its tasks, and GET /v1/jobs words its description, in this order, which
 * predates the module list; tasks not named here follow in the modules' order.
 */
const housekeepingOrder = ['http.idempotency', 'oauth.expired-tokens', 'documents.stale-uploads', 'webhooks.seal-secrets', 'appointments.seal-calendar-tokens'];
const housekeepingRank = (task: HousekeepingTask): number => {
  const rank = housekeepingOrder.indexOf(task.name);
  return rank === -1 ? housekeepingOrder.length : rank;
};

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
  const webhooks = new WebhookDispatcher({ config, clock, secretBox });
  const eventStreams = new EventStreams({
    perClient: config.eventStreamsPerClient,
    pollMs: config.eventStreamPollMs,
    heartbeatMs: config.eventStreamHeartbeatMs,
    bufferBytes: config.eventStreamBufferBytes,
  });
  // The gateway's own part: the idempotency records (no module owns them; src/http imports no module).
  const gateway: ModuleManifest<ModuleDeps> = {
    name: 'gateway',
    housekeeping: () => [
      {
        name: 'http.idempotency',
        drops: 'expired idempotency records',
        run: async (ctx) => ({ expiredIdempotencyRecords: await idempotency.sweep(ctx.store.db, ctx.clock.now()) }),
      },
    ],
    tables: ['idempotency_keys'],
    access: { idempotency_keys: { system: 'records are per API client, found by client id and key' } },
    // Records are per client, not per tenant: a reset drops every one of the sandbox's.
    reset: { erase: { tables: ['idempotency_keys'], run: async (db) => void (await db.deleteFrom('idempotency_keys').execute()) } },
  };
  const modules = appModules(gateway);
  registerModuleDeclarations(modules);
  const routes: AnyRoute[] = [];
  const shared: ModuleDeps = {
    config,
    clock,
    logger,
    stores,
    keys,
    secretBox,
    directory,
    tokens,
    limiter,
    runner,
    webhooks,
    eventStreams,
    audit,
    metrics,
    routes: () => routes,
    modules: () => modules,
  };
  for (const module of modules) runner.register(module.jobs?.(shared) ?? []);
  // A stable sort: tasks of equal rank keep the modules' order.
  runner.addHousekeeping(modules.flatMap((module) => module.housekeeping?.(shared) ?? []).sort((a, b) => housekeepingRank(a) - housekeepingRank(b)));
  for (const module of modules) routes.push(...(module.routes?.(shared) ?? []));

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
  return { koa, routes, tags: tagDescriptionsOf(modules), modules, audit, idempotency, directory, runner, webhooks, eventStreams };
}
