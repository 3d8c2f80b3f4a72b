import { eventually } from '../helpers/eventually.js';
import { adminCredentials, type TestApp } from '../helpers/test-app.js';

export interface NotificationBody {
  id: string;
  parentId: string;
  petId: string | null;
  locationId: string;
  channel: string;
  kind: string;
  relatedId: string | null;
  to: string;
  subject: string;
  body: string;
  status: 'queued' | 'sent' | 'failed' | 'cancelled';
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  sentAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Polls GET /v1/notifications/:id until `done` holds (the delivery poller runs in the background). */
export async function waitForNotification(
  t: TestApp,
  token: string,
  id: string,
  done: (n: NotificationBody) => boolean,
  timeoutMs = 5000,
): Promise<NotificationBody> {
  let last = '';
  return eventually(
    async () => {
      const res = await t.request<NotificationBody>('GET', `/v1/notifications/${id}`, { token });
      if (res.status !== 200) throw new Error(`GET notification ${id}: ${res.status} ${res.text}`);
      last = res.text;
      return done(res.body) ? res.body : undefined;
    },
    { timeoutMs, what: () => `notification ${id} to reach the expected state: ${last}` },
  );
}

/** An admin token minted at the current service time (tests move the clock past an hour's expiry). */
export async function freshAdminToken(t: TestApp, env: 'live' | 'sandbox' = 'live'): Promise<string> {
  const res = await t.token(adminCredentials[env].clientId, adminCredentials[env].clientSecret);
  if (res.status !== 200) throw new Error(`admin token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

/** POST /v1/jobs/:name/run {wait: true} as the environment's admin: the finished run. */
export async function runJob(t: TestApp, name: string, env: 'live' | 'sandbox' = 'live') {
  const res = await t.request('POST', `/v1/jobs/${name}/run`, { token: await freshAdminToken(t, env), body: { wait: true } });
  if (res.status !== 200) throw new Error(`run ${name}: ${res.status} ${res.text}`);
  if (res.body.status !== 'succeeded') throw new Error(`run ${name} ${res.body.status}: ${res.body.error}`);
  return res.body as { id: string; status: string; result: Record<string, unknown> };
}

/**
 * One outbox pass, run now and awaited: every message due has been sent, retried or failed when it
 * returns (sending happens inside the run), so what the SMTP sink holds afterwards is final. This,
 * not a pause, is how a test shows that nothing (more) is sent.
 */
export const deliverOutbox = (t: TestApp) => runJob(t, 'notification-delivery');
