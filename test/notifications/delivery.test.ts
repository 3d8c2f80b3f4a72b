import test from 'ava';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { startTestApp, TestClock, type TestApp } from '../helpers/test-app.js';
import { deliverOutbox, freshAdminToken, runJob, waitForNotification } from './notification-kit.js';
import { closedPort, startSmtpSink } from './smtp-sink.js';

/**
 * Delivery semantics of the outbox (real SMTP on loopback, the service clock moved by hand):
 * no SMTP → messages wait queued and go out when an appliance with SMTP starts on the same data;
 * transient failures retry with backoff (1 min, 5 min, 30 min, 2 h) then fail; 5xx fails at once;
 * an attempt's lease keeps a second deliverer off the row until it lapses.
 */
const minute = 60_000;

async function household(t: TestApp, email: string) {
  const location = await createLocation(t);
  return createPetParent(t, location.id, { email });
}

async function send(t: TestApp, parentId: string, subject = 'Hello from the clinic') {
  const res = await t.request('POST', '/v1/notifications', {
    token: await t.adminToken(),
    body: { parentId, channel: 'email', subject, body: 'A message body.' },
  });
  if (res.status !== 202) throw new Error(`${res.status} ${res.text}`);
  return res.body as { id: string };
}

test.serial('outbox: without SMTP a message stays queued; an appliance started with SMTP on the same data sends it', async (a) => {
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00Z'));
  const first = await startTestApp({ clock, config: { jobPollMs: 20 } });
  const parent = await household(first, 'outbox@example.com');
  const queued = await send(first, parent.id, 'Waiting in the outbox');

  const run = await runJob(first, 'notification-delivery');
  a.like(run.result, { smtp: false, sent: 0, outboxWaiting: true });
  const still = await waitForNotification(first, await first.adminToken(), queued.id, () => true);
  a.like(still, { status: 'queued', attempts: 0, lastError: null, sentAt: null });
  await first.close({ keepData: true });

  const smtp = await startSmtpSink();
  const second = await startTestApp({ clock, dataDir: first.dataDir, config: { smtpUrl: smtp.url, jobPollMs: 20 } });
  try {
    // No request needed: the delivery poller picks the outbox up when the service starts.
    const [mail] = await smtp.waitForMessages(1);
    a.is(mail!.subject, 'Waiting in the outbox');
    a.deepEqual(mail!.to, ['outbox@example.com']);
    const sent = await waitForNotification(second, await second.adminToken(), queued.id, (n) => n.status === 'sent');
    a.is(sent.attempts, 1);
  } finally {
    await second.close();
    await smtp.close();
  }
});

test.serial('a transient rejection (450) retries with backoff, then fails with lastError after 5 attempts', async (a) => {
  const smtp = await startSmtpSink();
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00Z'));
  const t = await startTestApp({ clock, config: { smtpUrl: smtp.url, jobPollMs: 20 } });
  try {
    const admin = await t.adminToken();
    smtp.rejectRecipients(450);
    const parent = await household(t, 'busy@example.com');
    const { id } = await send(t, parent.id);

    let n = await waitForNotification(t, admin, id, (x) => x.attempts === 1 && x.lastError !== null);
    a.is(smtp.messages.length, 0);
    a.is(n.status, 'queued');
    a.regex(n.lastError!, /450/);
    a.regex(n.lastError!, /Mailbox busy/);
    a.is(n.nextAttemptAt, new Date(clock.now() + minute).toISOString());

    // Not retried before its time.
    a.like((await deliverOutbox(t)).result, { sent: 0, retrying: 0, failed: 0 });
    a.is((await waitForNotification(t, admin, id, () => true)).attempts, 1);

    const delays = [1, 5, 30, 120]; // minutes after the 1st..4th failure
    for (const [i, delay] of delays.entries()) {
      clock.advance(delay * minute);
      // Settled, not merely claimed: failed, or its next attempt scheduled in the future.
      n = await waitForNotification(
        t,
        await freshAdminToken(t),
        id,
        (x) => x.attempts === i + 2 && (x.status === 'failed' || Date.parse(x.nextAttemptAt!) > clock.now()),
      );
      if (i < delays.length - 1) {
        a.is(n.status, 'queued');
        a.is(n.nextAttemptAt, new Date(clock.now() + delays[i + 1]! * minute).toISOString());
      }
    }
    a.is(n.status, 'failed');
    a.is(n.attempts, 5);
    a.regex(n.lastError!, /450/);
    a.is(n.nextAttemptAt, null);
    a.is(n.sentAt, null);

    // Failed is final: more time and more polls send nothing.
    smtp.rejectRecipients(null);
    clock.advance(24 * 60 * minute);
    a.like((await deliverOutbox(t)).result, { sent: 0, retrying: 0, failed: 0 });
    const token = await freshAdminToken(t);
    a.is((await waitForNotification(t, token, id, () => true)).status, 'failed');
    a.is(smtp.messages.length, 0);

    const failed = await t.request('GET', '/v1/notifications?status=failed', { token });
    a.deepEqual(
      failed.body.data.map((x: { id: string }) => x.id),
      [id],
    );
  } finally {
    await t.close();
    await smtp.close();
  }
});

test.serial('a permanent rejection (550) fails at once; a transient one that clears is sent on the next attempt', async (a) => {
  const smtp = await startSmtpSink();
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00Z'));
  const t = await startTestApp({ clock, config: { smtpUrl: smtp.url, jobPollMs: 20 } });
  try {
    const admin = await t.adminToken();
    smtp.rejectRecipients(550);
    const gone = await send(t, (await household(t, 'gone@example.com')).id);
    const failed = await waitForNotification(t, admin, gone.id, (x) => x.status !== 'queued');
    a.is(failed.status, 'failed');
    a.is(failed.attempts, 1);
    a.regex(failed.lastError!, /550.*Mailbox unavailable/);

    smtp.rejectRecipients(421);
    const later = await send(t, (await household(t, 'later@example.com')).id);
    await waitForNotification(t, admin, later.id, (x) => x.attempts === 1 && x.lastError !== null);
    smtp.rejectRecipients(null);
    clock.advance(minute);
    const sent = await waitForNotification(t, admin, later.id, (x) => x.status === 'sent');
    a.is(sent.attempts, 2);
    a.is(sent.lastError, null);
    a.is(smtp.messages.length, 1);
    a.deepEqual(smtp.messages[0]!.to, ['later@example.com']);
  } finally {
    await t.close();
    await smtp.close();
  }
});

test.serial('SMTP server down: the attempt fails with a connection error and is retried later', async (a) => {
  const port = await closedPort();
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00Z'));
  const t = await startTestApp({ clock, config: { smtpUrl: `smtp://127.0.0.1:${port}`, jobPollMs: 20 } });
  try {
    const admin = await t.adminToken();
    const { id } = await send(t, (await household(t, 'down@example.com')).id);
    const n = await waitForNotification(t, admin, id, (x) => x.attempts === 1 && x.lastError !== null);
    a.is(n.status, 'queued');
    a.regex(n.lastError!, /ECONNREFUSED|ECONNECTION|ESOCKET/);
    a.is(n.nextAttemptAt, new Date(clock.now() + minute).toISOString());
    clock.advance(minute);
    const second = await waitForNotification(t, admin, id, (x) => x.attempts === 2);
    a.is(second.status, 'queued');
  } finally {
    await t.close();
  }
});

test.serial('lease: a row held by an attempt in flight (or by a process that died mid-send) is not sent again until the lease lapses', async (a) => {
  const smtp = await startSmtpSink();
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00Z'));
  // Jobs off while the row is planted, so the poller cannot send it first.
  const t = await startTestApp({ clock, jobs: false, config: { smtpUrl: smtp.url, jobPollMs: 20 } });
  try {
    const admin = await t.adminToken();
    const { id } = await send(t, (await household(t, 'lease@example.com')).id);
    // As if another deliverer claimed it a moment ago and then crashed before marking it sent.
    await t.stores
      .get('live')
      .db.updateTable('notifications')
      .set({ attempts: 1, lease_token: 'dead-process', lease_until: new Date(clock.now() + 5 * minute).toISOString() })
      .where('id', '=', id)
      .execute();
    await t.app.runner.start();
    const held = await runJob(t, 'notification-delivery');
    a.like(held.result, { smtp: true, sent: 0 });
    a.is(smtp.messages.length, 0);

    clock.advance(5 * minute);
    const sent = await waitForNotification(t, admin, id, (x) => x.status === 'sent');
    a.is(sent.attempts, 2); // the crashed attempt counted
    a.is(smtp.messages.length, 1);
  } finally {
    await t.close();
    await smtp.close();
  }
});
