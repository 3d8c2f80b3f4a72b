export { webhookRoutes, type WebhookRouteDeps } from './webhooks.routes.js';
export { webhookHousekeeping, webhookJobs } from './webhooks.jobs.js';
export { WebhookDispatcher, type WebhookDispatcherDeps } from './webhook-dispatcher.js';
export { OutboundPolicy } from './outbound-policy.js';
export { signatureHeader } from './webhook-signature.js';
export { webhooksModule } from './webhooks.module.js';
