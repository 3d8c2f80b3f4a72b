import test from 'ava';
import { book, createProvider } from '../appointments/scheduling-support.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { startTestApp, TestClock } from '../helpers/test-app.js';
import { freshAdminToken, runJob, waitForNotification, type NotificationBody } from '../notifications/notification-kit.js';
import { startSmtpSink } from '../notifications/smtp-sink.js';

/**
 * Reminders that waited in the outbox (no SMTP yet) are checked again when their turn comes:
 * a visit cancelled or moved since, or a parent who withdrew consent, gets no mail.
 */
test('queued reminders no longer wanted are cancelled at sending, the rest go out', async (t) => {
  const clock = new TestClock(Date.parse('2026-11-23T09:00:00.000Z'));
  const first = await startTestApp({ clock, config: { jobPollMs: 20 } }); // no SMTP: the outbox
  t.teardown(() => first.close());
  const location = await createLocation(first, { timezone: 'Europe/London' });
  const provider = await createProvider(first, { locationIds: [location.id] });
  const stays = await createPetParent(first, location.id, { reminderConsent: true });
  const withdraws = await createPetParent(first, location.id, { reminderConsent: true });
  const booked = async (parentId: string, startsAt: string) => {
    const pet = await createPet(first, parentId, location.id);
    const res = await book(first, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.id as string;
  };
  const kept = await booked(stays.id, '2026-11-23T14:00:00Z');
  const cancelled = await booked(stays.id, '2026-11-23T15:00:00Z');
  const moved = await booked(stays.id, '2026-11-23T16:00:00Z');
  const noConsent = await booked(withdraws.id, '2026-11-23T17:00:00Z');
  await runJob(first, 'appointment-reminders');

  const token = await freshAdminToken(first);
  const queued = (await first.request('GET', '/v1/notifications?kind=appointment_reminder', { token })).body.data as NotificationBody[];
  t.is(queued.length, 4);
  t.true(
    queued.every((n) => n.status === 'queued'),
    'waiting in the outbox',
  );
  const reminderOf = (appointmentId: string) => queued.find((n) => (n as unknown as { relatedId: string }).relatedId === appointmentId)!.id;

  t.is((await first.request('PATCH', `/v1/appointments/${cancelled}`, { token, body: { status: 'cancelled' } })).status, 200);
  t.is((await first.request('PATCH', `/v1/appointments/${moved}`, { token, body: { startsAt: '2026-11-23T18:00:00Z' } })).status, 200);
  t.is((await first.request('PATCH', `/v1/pet-parents/${withdraws.id}`, { token, body: { reminderConsent: false } })).status, 200);
  await first.close({ keepData: true });

  const smtp = await startSmtpSink();
  t.teardown(() => smtp.close());
  const second = await startTestApp({ clock, dataDir: first.dataDir, config: { smtpUrl: smtp.url, jobPollMs: 20 } });
  t.teardown(() => second.close());
  const token2 = await freshAdminToken(second);
  const sent = await waitForNotification(second, token2, reminderOf(kept), (n) => n.status !== 'queued');
  t.is(sent.status, 'sent');
  for (const [appointment, reason] of [
    [cancelled, /no longer confirmed/],
    [moved, /moved/],
    [noConsent, /no longer consents/],
  ] as const) {
    const n = await waitForNotification(second, token2, reminderOf(appointment), (x) => x.status !== 'queued');
    t.is(n.status, 'cancelled', appointment);
    t.regex(n.lastError ?? '', reason);
  }
  t.is(smtp.messages.length, 1, 'only the reminder still wanted was mailed');
});
