import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { deliverOutbox, waitForNotification, type NotificationBody } from './notification-kit.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

/** POST/GET /v1/notifications over HTTP, delivered through a real SMTP server on loopback. */
let smtp: SmtpSink;
let admin: string;
let staff: TokenSet; // notifications + pets, whole tenant
let locA: { id: string };
let locB: { id: string };
let parentA: { id: string };
let parentB: { id: string };
let petA: { id: string };

test.before(async () => {
  smtp = await startSmtpSink();
});
const t = useTestApp(test, () => ({ config: { smtpUrl: smtp.url, mailFrom: 'Happy Paws <clinic@petcare.test>', jobPollMs: 20 } }));
test.before(async () => {
  admin = await t.adminToken();
  staff = await t.client({ name: 'front desk', role: 'staff', scopes: ['notifications', 'pets'] });
  locA = await createLocation(t, { name: 'Clinic A' });
  locB = await createLocation(t, { name: 'Clinic B' });
  parentA = await createPetParent(t, locA.id, { name: 'Alex A', email: 'alex.a@example.com' });
  parentB = await createPetParent(t, locB.id, { name: 'Blake B', email: 'blake.b@example.com' });
  petA = await createPet(t, parentA.id, locA.id, { name: 'Bella' });
});
test.after.always(async () => {
  await smtp?.close();
});

const message = (parentId: string, extra: Record<string, unknown> = {}) => ({
  parentId,
  channel: 'email',
  subject: 'Bella is ready for pickup',
  body: 'Hello,\nBella is ready to go home. See you soon!',
  ...extra,
});

const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

test.serial('POST queues a message (202) and the delivery job sends it over SMTP', async (a) => {
  const res = await t.request<NotificationBody>('POST', '/v1/notifications', { token: staff.accessToken, body: message(parentA.id, { petId: petA.id }) });
  a.is(res.status, 202, res.text);
  a.regex(res.body.id, /^ntf_[a-z0-9]{26}$/);
  a.like(res.body, {
    parentId: parentA.id,
    petId: petA.id,
    locationId: locA.id,
    channel: 'email',
    kind: 'manual',
    relatedId: null,
    to: 'alex.a@example.com',
    subject: 'Bella is ready for pickup',
    status: 'queued',
    attempts: 0,
    lastError: null,
    sentAt: null,
  });
  a.is(res.body.nextAttemptAt, res.body.createdAt);

  const sent = await waitForNotification(t, staff.accessToken, res.body.id, (n) => n.status === 'sent');
  a.is(sent.attempts, 1);
  a.is(sent.lastError, null);
  a.is(sent.nextAttemptAt, null);
  a.truthy(sent.sentAt);

  const [mail] = mailsTo('alex.a@example.com');
  a.truthy(mail);
  a.is(mail!.from, 'clinic@petcare.test');
  a.is(mail!.subject, 'Bella is ready for pickup');
  a.is(mail!.headers.get('to'), 'alex.a@example.com');
  a.regex(mail!.headers.get('from') ?? '', /Happy Paws <clinic@petcare\.test>/);
  // A stable Message-ID derived from the notification: a resend after a crash carries the same one.
  a.is(mail!.headers.get('message-id'), `<${res.body.id}@petcare.test>`);
  a.is(mail!.headers.get('x-notification-id'), res.body.id);
  a.is(mail!.text.trim(), 'Hello,\nBella is ready to go home. See you soon!');
});

test.serial('manual messages do not need reminder consent (it covers automatic reminders)', async (a) => {
  const noConsent = await createPetParent(t, locA.id, { email: 'no.consent@example.com', reminderConsent: false });
  const res = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(noConsent.id) });
  a.is(res.status, 202, res.text);
  await waitForNotification(t, staff.accessToken, res.body.id, (n) => n.status === 'sent');
  a.is(mailsTo('no.consent@example.com').length, 1);
});

test('a parent without an email address answers 422 recipient_unreachable and queues nothing', async (a) => {
  const silent = await createPetParent(t, locA.id, { email: null });
  const res = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(silent.id) });
  a.is(res.status, 422);
  a.is(res.body.code, 'recipient_unreachable');
  a.deepEqual(res.body.errors, [{ field: 'parentId', message: 'the pet parent has no email address' }]);
  const rows = await t.stores.get('live').db.selectFrom('notifications').select('id').where('parent_id', '=', silent.id).execute();
  a.is(rows.length, 0);
});

test('references: unknown parent or pet → 400 resource_missing; a pet of another parent → 400 validation_failed', async (a) => {
  const unknownParent = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message('usr_00000000000000000000000000') });
  a.is(unknownParent.status, 400);
  a.is(unknownParent.body.code, 'resource_missing');
  a.is(unknownParent.body.errors[0].field, 'parentId');

  const unknownPet = await t.request('POST', '/v1/notifications', {
    token: staff.accessToken,
    body: message(parentA.id, { petId: 'pet_00000000000000000000000000' }),
  });
  a.is(unknownPet.status, 400);
  a.is(unknownPet.body.code, 'resource_missing');
  a.is(unknownPet.body.errors[0].field, 'petId');

  const otherPet = await createPet(t, parentB.id, locB.id);
  const wrongOwner = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(parentA.id, { petId: otherPet.id }) });
  a.is(wrongOwner.status, 400);
  a.is(wrongOwner.body.code, 'validation_failed');
  a.is(wrongOwner.body.errors[0].field, 'petId');
});

test('validation: channel, subject, body, unknown fields', async (a) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ channel: 'sms' }, 'channel'],
    [{ channel: undefined }, 'channel'],
    [{ subject: '' }, 'subject'],
    [{ subject: '   ' }, 'subject'],
    [{ subject: 'two\r\nBcc: evil@example.com' }, 'subject'],
    [{ subject: 'x'.repeat(201) }, 'subject'],
    [{ body: '' }, 'body'],
    [{ body: 'x'.repeat(10_001) }, 'body'],
    [{ parentId: 'not-an-id' }, 'parentId'],
    [{ petId: 'usr_wrongprefix' }, 'petId'],
    [{ bcc: 'someone@example.com' }, 'bcc'],
  ];
  for (const [extra, field] of cases) {
    const body = message(parentA.id, extra);
    for (const key of Object.keys(extra)) if (extra[key] === undefined) delete (body as Record<string, unknown>)[key];
    const res = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body });
    a.is(res.status, 400, `${JSON.stringify(extra)} → ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.true(
      res.body.errors.some((e: { field: string }) => e.field.includes(field)),
      `${field} in ${JSON.stringify(res.body.errors)}`,
    );
  }
  const badQuery = await t.request('GET', '/v1/notifications?status=delivered', { token: staff.accessToken });
  a.is(badQuery.status, 400);
  const badLimit = await t.request('GET', '/v1/notifications?limit=101', { token: staff.accessToken });
  a.is(badLimit.status, 400);
});

test('auth: 401 without a token, 403 without the notifications scope, read-only scope cannot send', async (a) => {
  const none = await t.request('POST', '/v1/notifications', { body: message(parentA.id) });
  a.is(none.status, 401);
  const noneGet = await t.request('GET', '/v1/notifications');
  a.is(noneGet.status, 401);

  const petsOnly = await t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] });
  const refused = await t.request('POST', '/v1/notifications', { token: petsOnly.accessToken, body: message(parentA.id) });
  a.is(refused.status, 403);
  a.is(refused.body.code, 'insufficient_scope');
  a.is((await t.request('GET', '/v1/notifications', { token: petsOnly.accessToken })).status, 403);

  // Doctors' role ceiling has no notifications area at all.
  const doctor = await t.client({ name: 'vet', role: 'doctor', scopes: ['pets'] });
  a.is((await t.request('GET', '/v1/notifications', { token: doctor.accessToken })).status, 403);

  const reader = await t.client({ name: 'reader', role: 'staff', scopes: ['notifications.read'] });
  a.is((await t.request('GET', '/v1/notifications', { token: reader.accessToken })).status, 200);
  const write = await t.request('POST', '/v1/notifications', { token: reader.accessToken, body: message(parentA.id) });
  a.is(write.status, 403);
});

test.serial('location scoping: another location’s messages are 404, absent from lists, and its parents are resource_missing', async (a) => {
  const inB = await t.request('POST', '/v1/notifications', { token: admin, body: message(parentB.id) });
  a.is(inB.status, 202);
  const scopedA = await t.client({ name: 'A desk', role: 'staff', scopes: ['notifications'], locationIds: [locA.id] });

  const get = await t.request('GET', `/v1/notifications/${inB.body.id}`, { token: scopedA.accessToken });
  a.is(get.status, 404);
  a.is(get.body.code, 'not_found');
  a.is((await t.request('GET', '/v1/notifications/ntf_00000000000000000000000000', { token: scopedA.accessToken })).status, 404);

  const list = await t.request('GET', `/v1/notifications?limit=100`, { token: scopedA.accessToken });
  a.is(list.status, 200);
  a.true(list.body.data.length > 0);
  for (const n of list.body.data) a.is(n.locationId, locA.id);
  const filtered = await t.request('GET', `/v1/notifications?parentId=${parentB.id}`, { token: scopedA.accessToken });
  a.deepEqual(filtered.body.data, []);

  const post = await t.request('POST', '/v1/notifications', { token: scopedA.accessToken, body: message(parentB.id) });
  a.is(post.status, 400);
  a.is(post.body.code, 'resource_missing');

  const mine = await t.request('POST', '/v1/notifications', { token: scopedA.accessToken, body: message(parentA.id) });
  a.is(mine.status, 202);
  a.is((await t.request('GET', `/v1/notifications/${mine.body.id}`, { token: scopedA.accessToken })).status, 200);
});

test.serial('Idempotency-Key: a replay answers the same notification and sends one email; another body → 422', async (a) => {
  const parent = await createPetParent(t, locA.id, { email: 'idem@example.com' });
  const key = `ntf-${Date.now()}`;
  const first = await t.request('POST', '/v1/notifications', { token: staff.accessToken, idempotencyKey: key, body: message(parent.id) });
  a.is(first.status, 202);
  const again = await t.request('POST', '/v1/notifications', { token: staff.accessToken, idempotencyKey: key, body: message(parent.id) });
  a.is(again.status, 202);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.is(again.body.id, first.body.id);
  const other = await t.request('POST', '/v1/notifications', { token: staff.accessToken, idempotencyKey: key, body: message(parent.id, { subject: 'Other' }) });
  a.is(other.status, 422);
  a.is(other.body.code, 'idempotency_key_mismatch');

  await waitForNotification(t, staff.accessToken, first.body.id, (n) => n.status === 'sent');
  await deliverOutbox(t);
  const rows = await t.stores.get('live').db.selectFrom('notifications').select('id').where('parent_id', '=', parent.id).execute();
  a.is(rows.length, 1);
  a.is(mailsTo('idem@example.com').length, 1);
});

test.serial('list: newest first, filters and cursor paging', async (a) => {
  const parent = await createPetParent(t, locA.id, { email: 'list@example.com' });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(parent.id, { subject: `Note ${i}` }) });
    ids.push(res.body.id);
  }
  const page1 = await t.request('GET', `/v1/notifications?parentId=${parent.id}&limit=2`, { token: staff.accessToken });
  a.is(page1.status, 200);
  a.deepEqual(
    page1.body.data.map((n: NotificationBody) => n.id),
    [ids[2], ids[1]],
  );
  a.true(page1.body.hasMore);
  const page2 = await t.request('GET', `/v1/notifications?parentId=${parent.id}&limit=2&cursor=${page1.body.nextCursor}`, { token: staff.accessToken });
  a.deepEqual(
    page2.body.data.map((n: NotificationBody) => n.id),
    [ids[0]],
  );
  a.false(page2.body.hasMore);
  a.is(page2.body.nextCursor, null);

  for (const id of ids) await waitForNotification(t, staff.accessToken, id, (n) => n.status === 'sent');
  const sent = await t.request('GET', `/v1/notifications?parentId=${parent.id}&status=sent&kind=manual&channel=email`, { token: staff.accessToken });
  a.is(sent.body.data.length, 3);
  const queued = await t.request('GET', `/v1/notifications?parentId=${parent.id}&status=queued`, { token: staff.accessToken });
  a.deepEqual(queued.body.data, []);
  const reminders = await t.request('GET', `/v1/notifications?parentId=${parent.id}&kind=vaccination_reminder`, { token: staff.accessToken });
  a.deepEqual(reminders.body.data, []);
  const byPet = await t.request('GET', `/v1/notifications?petId=${petA.id}`, { token: staff.accessToken });
  a.true(byPet.body.data.every((n: NotificationBody) => n.petId === petA.id));
  a.is((await t.request('GET', '/v1/notifications?cursor=bogus', { token: staff.accessToken })).status, 400);
});

test.serial('a manual message emits no domain event (none in the catalogue)', async (a) => {
  const db = t.stores.get('live').db;
  const before = (await db.selectFrom('events').select('id').execute()).length;
  const res = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(parentA.id) });
  a.is(res.status, 202);
  a.is((await db.selectFrom('events').select('id').execute()).length, before);
});

test('sandbox and live are separate: a live notification is 404 with a sandbox token', async (a) => {
  const live = await t.request('POST', '/v1/notifications', { token: staff.accessToken, body: message(parentA.id) });
  const sandboxAdmin = await t.adminToken('sandbox');
  a.is((await t.request('GET', `/v1/notifications/${live.body.id}`, { token: sandboxAdmin })).status, 404);
  const demo = await t.request('POST', '/v1/notifications', { token: sandboxAdmin, body: message('usr_demo_alex') });
  a.is(demo.status, 202, demo.text);
  a.is(demo.body.to, 'alex@example.com');
  a.is((await t.request('GET', `/v1/notifications/${demo.body.id}`, { token: admin })).status, 404);
});
