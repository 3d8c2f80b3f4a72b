import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Webhook endpoint URLs are stored and answered in their WHATWG-normalised form (`new URL(x).href`),
 * never as typed: raw `<`, `"`, `>` and spaces went into the row and every answer (issue 24 item 2).
 */
let admin: string;

const t = useTestApp(test, { config: { webhookAllowHosts: ['127.0.0.1'] }, jobs: false });
test.before(async () => {
  admin = await t.adminToken();
});

const storedUrl = async (id: string) =>
  (await t.stores.get('live').db.selectFrom('webhook_endpoints').select('url').where('id', '=', id).executeTakeFirstOrThrow()).url;

test('POST /v1/webhook-endpoints stores and answers the normalised URL', async (a) => {
  for (const [sent, normalised] of [
    ['http://127.0.0.1:9/hooks/<script>"x"', 'http://127.0.0.1:9/hooks/%3Cscript%3E%22x%22'],
    ['http://127.0.0.1:9/a b?q=<1> "2"', 'http://127.0.0.1:9/a%20b?q=%3C1%3E%20%222%22'],
    ['HTTP://127.0.0.1:9', 'http://127.0.0.1:9/'],
    ['http://127.0.0.1:80/x/../y', 'http://127.0.0.1/y'],
  ] as const) {
    const res = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body: { url: sent, events: ['*'] } });
    a.is(res.status, 201, res.text);
    a.is(res.body.url, normalised, sent);
    a.is(await storedUrl(res.body.id), normalised);
    a.is((await t.request('GET', `/v1/webhook-endpoints/${res.body.id}`, { token: admin })).body.url, normalised);
    await t.request('DELETE', `/v1/webhook-endpoints/${res.body.id}`, { token: admin });
  }
});

test('PATCH /v1/webhook-endpoints/:id normalises a new URL the same way', async (a) => {
  const created = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } });
  a.is(created.status, 201, created.text);
  const patched = await t.request('PATCH', `/v1/webhook-endpoints/${created.body.id}`, { token: admin, body: { url: 'http://127.0.0.1:9/new>"path"' } });
  a.is(patched.status, 200, patched.text);
  a.is(patched.body.url, 'http://127.0.0.1:9/new%3E%22path%22');
  a.is(await storedUrl(created.body.id), 'http://127.0.0.1:9/new%3E%22path%22');
  await t.request('DELETE', `/v1/webhook-endpoints/${created.body.id}`, { token: admin });
});

test('a URL longer than 2048 characters once normalised is 400 on url, and nothing is written', async (a) => {
  const res = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body: { url: `http://127.0.0.1:9/${'<'.repeat(1000)}`, events: ['*'] } });
  a.is(res.status, 400, res.text);
  a.is(res.body.code, 'validation_failed');
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['url'],
  );
  const rows = await t.stores.get('live').db.selectFrom('webhook_endpoints').select('url').execute();
  a.false(rows.some((r) => r.url.length > 2048 || r.url.includes('<<')));
});
