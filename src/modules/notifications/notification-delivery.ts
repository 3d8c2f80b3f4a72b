import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { classifySendError, smtpSender, type MailSender } from './mail-sender.js';
import {
  claimNotification,
  hasQueued,
  findDueNotifications,
  markCancelled,
  markFailed,
  markRetry,
  markSent,
  staleReminderReason,
} from './notifications.repository.js';

/** Attempts per message before it is `failed` (a 5xx rejection fails it at once). */
export const notificationMaxAttempts = 5;
/** Seconds to wait after the 1st, 2nd, 3rd and 4th failed attempt: 1 min, 5 min, 30 min, 2 h. */
export const notificationRetryDelays = [60, 300, 1800, 7200] as const;
/**
 * How long an attempt holds its row. Longer than the SMTP timeouts, so a live attempt never
 * loses it; a process that dies mid-send frees the row when it lapses (the message may then
 * go out twice: delivery is at-least-once, with a stable Message-ID for receivers to dedupe).
 */
export const deliveryLeaseMs = 5 * 60_000;
const batchSize = 50;
/** Per run, so one backlog cannot hold the runner's loop for long. */
const maxPerRun = 500;

export interface DeliveryDeps {
  config: Config;
}

/**
 * The outbox poller: sends queued notifications whose time has come, one attempt each, outside
 * any transaction. Without PETCARE_SMTP_URL it sends nothing and the messages wait, queued;
 * an appliance started with SMTP configured sends them on its first poll.
 */
export function notificationDeliveryJob(deps: DeliveryDeps): JobDefinition {
  let sender: MailSender | undefined;
  const senderFor = (url: string, from: string): MailSender => (sender ??= smtpSender(url, from));

  return {
    name: 'notification-delivery',
    description:
      'Sends queued notifications by email (SMTP). Polls the outbox; without PETCARE_SMTP_URL messages stay queued until a start with SMTP configured. ' +
      `Up to ${notificationMaxAttempts} attempts, backing off ${notificationRetryDelays.join(', ')} s; a 5xx rejection fails at once.`,
    schedule: { everyMs: deps.config.jobPollMs },
    async run(ctx): Promise<JobResult> {
      const { db } = ctx.store;
      const smtpUrl = ctx.config.smtpUrl;
      // Counts stay 0: the runner records every poll that reports a count above 0, which a waiting outbox would do every few hundred ms.
      if (!smtpUrl) return { smtp: false, sent: 0, retrying: 0, failed: 0, cancelled: 0, outboxWaiting: await hasQueued(db) };
      const mailer = senderFor(smtpUrl, ctx.config.mailFrom);
      let sent = 0;
      let retrying = 0;
      let failed = 0;
      let cancelled = 0;
      let seen = 0;
      while (seen < maxPerRun && !ctx.signal.aborted) {
        const due = await findDueNotifications(db, ctx.clock.now(), batchSize);
        if (due.length === 0) break;
        for (const candidate of due) {
          if (ctx.signal.aborted) break;
          seen++;
          const token = randomUUID();
          const row = await claimNotification(db, candidate, token, ctx.clock.now(), deliveryLeaseMs);
          if (!row) continue; // another deliverer took it
          const stale = await staleReminderReason(db, row, ctx.clock.now());
          if (stale) {
            if (await markCancelled(db, row, token, stale, ctx.clock.now())) cancelled++;
            continue;
          }
          try {
            const info = await mailer.send({ id: row.id, to: row.to_address, subject: row.subject, text: row.body });
            if (await markSent(db, row, token, info.messageId, ctx.clock.now())) sent++;
          } catch (err) {
            const failure = classifySendError(err);
            const now = ctx.clock.now();
            if (failure.permanent || row.attempts >= notificationMaxAttempts) {
              if (await markFailed(db, row, token, failure.message, now)) failed++;
            } else {
              const delay = notificationRetryDelays[Math.min(row.attempts, notificationRetryDelays.length) - 1] ?? 60;
              if (await markRetry(db, row, token, failure.message, now + delay * 1000, now)) retrying++;
            }
            ctx.logger.warn(
              { notificationId: row.id, attempt: row.attempts, permanent: failure.permanent, error: failure.message },
              'notification delivery failed',
            );
          }
        }
        if (due.length < batchSize) break;
      }
      return { smtp: true, sent, retrying, failed, cancelled };
    },
  };
}
