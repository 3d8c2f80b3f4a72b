import type { ModuleManifest } from '../../module-manifest.js';
import type { WebhooksTables } from './webhooks.table.js';
import { webhookHousekeeping, webhookJobs } from './webhooks.jobs.js';
import { webhookRoutes, type WebhookRouteDeps } from './webhooks.routes.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends WebhooksTables {}
}

export const webhooksModule: ModuleManifest<WebhookRouteDeps & Parameters<typeof webhookJobs>[0]> = {
  name: 'webhooks',
  sdk: {
    webhookEndpoints: {
      create: 'createWebhookEndpoint',
      list: 'listWebhookEndpoints',
      get: 'getWebhookEndpoint',
      update: 'updateWebhookEndpoint',
      delete: 'deleteWebhookEndpoint',
      rotateSecret: 'rotateWebhookEndpointSecret',
      test: 'testWebhookEndpoint',
      deliveries: 'listWebhookDeliveries',
      replay: 'replayWebhookEndpointEvents',
    },
  },
  routes: (deps) => webhookRoutes(deps),
  jobs: (deps) => webhookJobs(deps),
  housekeeping: (deps) => webhookHousekeeping(deps),
  tags: { Webhooks: 'Signed webhook endpoints (whe_ ids), their deliveries and replay.' },
  tables: ['webhook_endpoints', 'webhook_fanout', 'webhook_deliveries', 'webhook_attempts'],
  access: {
    webhook_endpoints: { location: null, why: "webhook endpoints receive the whole tenant's events" },
    webhook_fanout: { system: 'the delivery queue of the whole appliance' },
    webhook_deliveries: { location: null, why: 'deliveries of tenant-wide events' },
    webhook_attempts: { location: null, why: 'attempts of tenant-wide deliveries' },
  },
  reset: {
    keeps: {
      webhook_endpoints: 'an endpoint is configuration, like an API client: the sandbox reset has never removed it',
      webhook_deliveries: 'kept with their endpoint (the reset has never removed them)',
      webhook_attempts: 'kept with their endpoint (the reset has never removed them)',
    },
  },
};
