import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, verifyStripeStyle, type Receiver } from './webhook-support.js';
import { childProcesses, exited, startServerProcess, type ServerProcess } from '../helpers/child-processes.js';

/**
 * A hard kill (SIGKILL) of the real server while webhook first attempts hang at the receiver: those
 * attempts were held in memory only (a first attempt writes its rows when it ends), so the next
 * process on the same data dir fans their events out again (recorded_seq < last_seq) and each event
 * is sent once more, as a new delivery; nothing is delivered twice that should not be.
 */
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-webhook-kill-'));
const track = childProcesses(test);
const admin = { clientId: 'pk_live_killtestadmin', clientSecret: 'sk_live_killtestadminsecret-0123456789abcdef0123' } as const;

const children: ChildProcess[] = [];
const receivers: Receiver[] = [];

test.after.always(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
  for (const r of receivers) await r.close();
  rmSync(scratch, { recursive: true, force: true });
});

type Server = ServerProcess;

/** The server in a process of its own (see startServerProcess), its webhooks allowed to 127.0.0.1 and retried at once. */
async function startServer(dataDir: string): Promise<Server> {
  const server = await startServerProcess(
    track,
    {
      PETCARE_DATA_DIR: dataDir,
      PETCARE_ADMIN_CLIENT_ID: admin.clientId,
      PETCARE_ADMIN_CLIENT_SECRET: admin.clientSecret,
      PETCARE_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      PETCARE_JOB_POLL_MS: '50',
      PETCARE_WEBHOOK_RETRY_SCHEDULE: '1,1',
    },
    { timeoutMs: 15_000 },
  );
  children.push(server.child);
  return server;
}

async function call(server: Server, method: string, pathname: string, status: number, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(server.url + pathname, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${pathname} answered ${res.status}, expected ${status}: ${text}`);
  return text ? JSON.parse(text) : {};
}

async function adminToken(server: Server): Promise<string> {
  const body = await call(server, 'POST', '/oauth/token', 200, {
    grant_type: 'client_credentials',
    client_id: admin.clientId,
    client_secret: admin.clientSecret,
  });
  return String(body.access_token);
}

/** Every attempt of the endpoint (in flight ones included), oldest first. */
async function attemptsOf(server: Server, token: string, endpointId: string): Promise<any[]> {
  const page = await call(server, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, 200, undefined, token);
  return [...page.data].reverse();
}

const header = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(',') : (value ?? ''));

test.serial('a server killed (SIGKILL) while first attempts hang: the next start sends each of those events again, once', async (t) => {
  const dataDir = path.join(scratch, 'data');
  let hang = true;
  const receiver = await startReceiver(() => (hang ? 'hang' : { status: 200, body: 'ok' }));
  receivers.push(receiver);

  // 1. The first process: an endpoint for pet.registered at a receiver that never answers.
  const first = await startServer(dataDir);
  let token = await adminToken(first);
  const endpoint = await call(first, 'POST', '/v1/webhook-endpoints', 201, { url: receiver.url, events: ['pet.registered'] }, token);
  t.regex(endpoint.secret, /^whsec_/);
  const location = await call(first, 'POST', '/v1/locations', 201, { name: 'Kill test clinic', timezone: 'Europe/London' }, token);
  const parent = await call(first, 'POST', '/v1/pet-parents', 201, { name: 'Kill test parent', email: 'kill@example.com', locationId: location.id }, token);
  const createPet = async (server: Server, name: string): Promise<string> =>
    String((await call(server, 'POST', '/v1/pets', 201, { name, breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id }, token)).id);

  // 2. Five pet.registered events: attempt 1 of each reaches the receiver and hangs there.
  for (let i = 1; i <= 5; i++) await createPet(first, `Pet ${i}`);
  const firstAttempts = await receiver.waitFor(5, 10_000);
  t.deepEqual(
    firstAttempts.map((r) => header(r.headers['x-service-delivery-attempt'])),
    ['1', '1', '1', '1', '1'],
  );
  const before = new Set(firstAttempts.map((r) => r.body.id));
  t.is(before.size, 5, 'five distinct events');
  /** event id → delivery id, as attempt 1 named it. */
  const deliveryOf = new Map(firstAttempts.map((r) => [r.body.id, header(r.headers['x-service-delivery-id'])]));
  for (const r of firstAttempts) {
    t.is(r.body.type, 'pet.registered');
    t.is(header(r.headers['x-service-event-id']), r.body.id);
    t.true(verifyStripeStyle(header(r.headers['x-service-signature']), r.rawBody, endpoint.secret, Math.floor(Date.now() / 1000)), 'attempt 1 is signed');
  }
  // Every attempt the receiver holds is listed in flight (from the dispatcher's memory: no row yet).
  const inFlight = await attemptsOf(first, token, endpoint.id);
  t.is(inFlight.length, 5, JSON.stringify(inFlight));
  for (const a of inFlight) {
    t.like(a, { attempt: 1, status: 'in_flight', deliveryStatus: 'sending', finishedAt: null });
    t.is(a.deliveryId, deliveryOf.get(a.eventId), 'the listing and the request name the same delivery');
  }

  // 3. A hard kill: no graceful stop, nothing recorded. The receiver answers from now on.
  first.child.kill('SIGKILL');
  await exited(first.child);
  t.is(first.child.signalCode, 'SIGKILL');
  hang = false;

  // 4. The next process on the same data dir: each of those events again, at once, signed, as a new
  // delivery (the cut attempt left no row: whether it arrived is unknown, so the event goes again).
  const second = await startServer(dataDir);
  token = await adminToken(second);
  const resent = (await receiver.waitFor(10, 10_000)).slice(5);
  t.deepEqual(new Set(resent.map((r) => r.body.id)), before, 'each cut event is sent again');
  for (const r of resent) {
    t.is(header(r.headers['x-service-delivery-attempt']), '1');
    t.not(header(r.headers['x-service-delivery-id']), deliveryOf.get(r.body.id), 'a new delivery');
    t.true(verifyStripeStyle(header(r.headers['x-service-signature']), r.rawBody, endpoint.secret, Math.floor(Date.now() / 1000)), 'signed');
  }
  const recovered = await eventually(
    async () => {
      const all = await attemptsOf(second, token, endpoint.id);
      return all.length === 5 && all.every((a) => a.status === 'succeeded' && a.deliveryStatus === 'succeeded') ? all : undefined;
    },
    { what: 'five finished attempts' },
  );
  t.deepEqual(new Set(recovered.map((a) => a.eventId)), before);
  t.deepEqual(new Set(recovered.map((a) => a.deliveryId)), new Set(resent.map((r) => header(r.headers['x-service-delivery-id']))), 'listed under the ids sent');
  for (const a of recovered) t.is(a.responseStatus, 200);

  // 5. Two more events on the new process: delivered once each.
  await createPet(second, 'Pet 6');
  await createPet(second, 'Pet 7');
  const later = (await receiver.waitFor(12, 10_000)).slice(10);
  for (const r of later) {
    t.is(header(r.headers['x-service-delivery-attempt']), '1');
    t.false(before.has(r.body.id));
    t.true(verifyStripeStyle(header(r.headers['x-service-signature']), r.rawBody, endpoint.secret, Math.floor(Date.now() / 1000)));
  }
  await eventually(
    async () => {
      const all = await attemptsOf(second, token, endpoint.id);
      return all.length === 7 && all.every((a) => a.status !== 'in_flight');
    },
    { what: 'seven finished attempts' },
  );

  // Nothing more is due: a delivery pass, run now and awaited, claims nothing (a claim would be listed in flight).
  const run = await call(second, 'POST', '/v1/jobs/webhook-delivery/run', 200, { wait: true, waitSeconds: 10 }, token);
  t.is(run.status, 'succeeded');
  const final = await attemptsOf(second, token, endpoint.id);
  t.is(final.length, 7, JSON.stringify(final.map((a) => [a.eventId, a.attempt, a.status])));
  t.false(final.some((a) => a.status === 'in_flight'));
  const receipts = new Map<string, number>();
  for (const r of receiver.received) receipts.set(r.body.id, (receipts.get(r.body.id) ?? 0) + 1);
  const expected = new Map<string, number>([...[...before].map((id): [string, number] => [id, 2]), ...later.map((r): [string, number] => [r.body.id, 1])]);
  t.deepEqual(receipts, expected, 'the first five twice (cut, then again), the last two once');
  t.is(receiver.received.length, 12);
});
