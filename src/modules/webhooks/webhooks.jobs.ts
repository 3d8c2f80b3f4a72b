import type { Config } from '../../config.js';
import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { sealClearSecrets } from './webhooks.service.js';

/** `webhook-delivery`: polls every jobPollMs per environment (new events, due retries, restart recovery). */
export function webhookJobs(deps: { config: Pick<Config, 'jobPollMs'>; webhooks: WebhookDispatcher }): JobDefinition[] {
  return [
    {
      name: 'webhook-delivery',
      description:
        'Fans new events out to subscribed webhook endpoints and sends due attempts (signed, retried on the configured schedule); ' +
        'attempts cut by a restart are recorded as interrupted and tried again.',
      schedule: { everyMs: deps.config.jobPollMs },
      maxAttempts: 1,
      run: (ctx) => deps.webhooks.run(ctx),
    },
  ];
}

/** The module's housekeeping: endpoint secrets an older release stored in clear get sealed (SecretBox). */
export function webhookHousekeeping(deps: { webhooks: WebhookDispatcher }): HousekeepingTask[] {
  return [
    {
      name: 'webhooks.seal-secrets',
      drops: 'webhook secrets an older release stored in clear (sealed)',
      run: async ({ store }) => ({ sealedWebhookSecrets: await sealClearSecrets(store.db, deps.webhooks.secrets) }),
    },
  ];
}
