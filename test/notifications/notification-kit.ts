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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.request<NotificationBody>('GET', `/v1/notifications/${id}`, { token });
    if (res.status !== 200) throw new Error(`GET notification ${id}: ${res.status} ${res.text}`);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`notification ${id} never reached the expected state: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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

export const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms));
