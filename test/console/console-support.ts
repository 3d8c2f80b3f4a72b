import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestFn } from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { adminCredentials, startTestApp, TestClock, type Response, type TestApp } from '../helpers/test-app.js';

interface PageElement {
  id: string;
  value: string;
  textContent: string | null;
  innerHTML: string;
  outerHTML: string;
  dataset: Record<string, string | undefined>;
  append(...nodes: PageElement[]): void;
}

/**
 * The browser globals the tests read inside page.evaluate callbacks, which run in the page: the
 * root tsconfig has no DOM lib (the console's own code is checked against it in console/tsconfig.json).
 * Use as `const { document } = globalThis as unknown as PageGlobals` inside the callback.
 */
export interface PageGlobals {
  document: {
    activeElement: PageElement | null;
    documentElement: PageElement;
    body: PageElement;
    cookie: string;
    createElement(tag: string): PageElement;
    querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  };
  location: { href: string; hash: string };
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  __injected?: boolean;
  __injectedHandler?: boolean;
}

/** Debian's chromium (`.ci/run` installs it); PETCARE_CHROMIUM names another. */
export const chromiumPath = process.env.PETCARE_CHROMIUM ?? '/usr/bin/chromium';
export const haveChromium = existsSync(chromiumPath);
export const noBrowserMessage = `No Chromium at ${chromiumPath} (install Debian's chromium, as .ci/run does, or set PETCARE_CHROMIUM): the console's browser tests are skipped.`;

/** Screenshots for people to look at (gitignored). */
export const screenshotDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/console');

export const desktop = { width: 1280, height: 800 };
export const tablet = { width: 820, height: 1180 };

/** "Now" for the app's clock and the browser's: 10 December 2026, 10:00 in London (GMT = UTC). */
export const now = Date.parse('2026-12-10T10:00:00.000Z');
export const month = { from: '2026-12-01', to: '2026-12-31' };

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}

/** A page on the fixed clock in London time; console messages and token answers are recorded. */
export async function openPage(browser: Browser, viewport = desktop): Promise<{ context: BrowserContext; page: Page; logs: string[]; tokens: string[] }> {
  const context = await browser.newContext({ viewport, timezoneId: 'Europe/London', locale: 'en-GB' });
  const page = await context.newPage();
  await page.clock.setFixedTime(now);
  const logs: string[] = [];
  const tokens: string[] = [];
  page.on('console', (message) => logs.push(message.text()));
  page.on('response', async (res) => {
    if (res.url().endsWith('/oauth/token') && res.ok()) tokens.push(((await res.json()) as { access_token: string }).access_token);
  });
  return { context, page, logs, tokens };
}

/** A screenshot of the window, or with `fullPage` of the whole page (a record's detail taller than the window). */
export async function shoot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: options.fullPage ?? false });
}

export async function signIn(page: Page, url: string, clientId: string, clientSecret: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Client ID').fill(clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

type OpenedPage = Awaited<ReturnType<typeof openPage>>;

/** A test file's browser and data (see consoleSuite): `f` and `browser` are set by its test.before. */
export interface ConsoleSuite {
  /** test.serial, or test.serial.skip without Chromium. */
  serial: TestFn['serial'] | TestFn['serial']['skip'];
  f: ConsoleFixture;
  browser: Browser;
  /** Signs in on `page` (the admin client unless told) and waits for the workspace. */
  signedIn(page: Page, id?: string, secret?: string): Promise<void>;
  /** One admin page shared by the file's tests, in the desktop window: a sign-in costs the server a password hash (~1–2 s on a busy machine). */
  admin(): Promise<OpenedPage>;
}

/**
 * The shared setup of a console browser test file: without Chromium one passing test says why and
 * the rest are skipped; otherwise Chromium launches while consoleFixture writes the data (then
 * `prepare`, the file's own), and everything is closed after.
 */
export function consoleSuite(test: TestFn, name: string, prepare?: (f: ConsoleFixture) => Promise<void>): ConsoleSuite {
  if (!haveChromium) {
    test(name, (a) => {
      a.log(noBrowserMessage);
      a.pass();
    });
  }
  let launching: Promise<Browser> | undefined;
  let adminSession: Promise<OpenedPage> | undefined;
  const suite: ConsoleSuite = {
    serial: haveChromium ? test.serial : test.serial.skip,
    f: undefined as unknown as ConsoleFixture,
    browser: undefined as unknown as Browser,
    async signedIn(page, id = adminCredentials.live.clientId, secret = adminCredentials.live.clientSecret) {
      await signIn(page, suite.f.t.url, id, secret);
      await page.locator('#workspace').waitFor();
    },
    async admin() {
      adminSession ??= openPage(suite.browser).then(async (opened) => {
        await suite.signedIn(opened.page);
        return opened;
      });
      const opened = await adminSession;
      await opened.page.setViewportSize(desktop);
      return opened;
    },
  };
  test.before(async () => {
    if (!haveChromium) return;
    launching = launch().then((b) => (suite.browser = b));
    suite.f = await consoleFixture();
    await prepare?.(suite.f);
    await launching;
  });
  test.after.always(async () => {
    // The browser even when the fixture failed while it was still launching: a live Chromium keeps the worker from exiting.
    await launching?.catch(() => undefined);
    await suite.browser?.close();
    const { f } = suite;
    if (!f) return;
    await f.t.close();
    await new Promise<void>((resolve) => {
      f.receiver.close(() => resolve());
      f.receiver.closeAllConnections();
    });
  });
  return suite;
}

async function ok(res: Response, status: number, what: string): Promise<any> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

export interface ConsoleFixture {
  t: TestApp;
  admin: () => Promise<string>;
  locationId: string;
  staff: { clientId: string; clientSecret: string };
  limited: { clientId: string; clientSecret: string };
  endpointId: string;
  receiver: Server;
}

/**
 * One clinic's December (and a payment at a second clinic): payments and a refund, appointments (a no-show, a completed one, two
 * today), vaccinations (one pet compliant, one overdue), boarding rooms and stays, a webhook
 * endpoint with a delivered test event; a staff client and a staff client limited to 1 call a minute.
 */
export async function consoleFixture(): Promise<ConsoleFixture> {
  const clock = new TestClock(Date.parse('2026-12-01T08:00:00.000Z'));
  const t = await startTestApp({ clock, config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
  // The first GET /console builds the page from source (esbuild): let it run while the data is written.
  const warm = fetch(`${t.url}/console`).then((res) => res.arrayBuffer());
  // Admin tokens expire an hour after the clock's time of issue: take a fresh one after each move.
  const admin = async () =>
    (await ok(await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret), 200, 'admin token')).access_token as string;
  const at = async (iso: string) => {
    clock.set(Date.parse(iso));
    return admin();
  };
  let token = await admin();
  // Factories and t.client use the harness's admin token, taken now: they run before the clock moves.
  const staff = await t.client({ name: 'front desk', role: 'staff', scopes: ['bookings', 'pets'] });
  const limited = await t.client({ name: 'kiosk', role: 'staff', scopes: ['bookings.read'], rateLimitPerMinute: 1 });
  const location = await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0, name: 'Riverside Clinic' });
  const parent = await createPetParent(t, location.id);
  const hillside = await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0, name: 'Hillside Clinic' });
  const otherParent = await createPetParent(t, hillside.id);
  const [p1, p2, p3] = [
    await createPet(t, parent.id, location.id, { name: 'Biscuit' }),
    await createPet(t, parent.id, location.id, { name: 'Mochi' }),
    await createPet(t, parent.id, location.id, { name: 'Pepper' }),
  ];
  const provider = await ok(
    await t.request('POST', '/v1/providers', { token, body: { name: 'Dr. Ana Silva', kind: 'vet', locationIds: [location.id] } }),
    201,
    'provider',
  );
  await ok(
    await t.request('PUT', `/v1/appointments/schedules/${provider.id}`, {
      token,
      body: { locationId: location.id, weekly: [1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: '08:00', end: '18:00' })), timeOff: [] },
    }),
    200,
    'schedule',
  );
  const book = async (petId: string, startsAt: string) =>
    (await ok(await t.request('POST', '/v1/appointments', { token, body: { petId, providerId: provider.id, type: 'checkup', startsAt } }), 201, 'appointment'))
      .id as string;
  const move = async (id: string, status: string) =>
    ok(await t.request('PATCH', `/v1/appointments/${id}`, { token, body: { status } }), 200, `appointment ${status}`);

  const noShow = await book(p1.id, '2026-12-03T10:00:00Z');
  const done = await book(p2.id, '2026-12-04T10:00:00Z');
  for (const pet of [p1, p2]) {
    const overdue = pet === p2;
    await ok(
      await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
        token,
        body: { vaccine: 'Rabies', administeredOn: overdue ? '2025-11-01' : '2026-06-01', dueOn: overdue ? '2026-11-01' : '2027-06-01' },
      }),
      201,
      'vaccination',
    );
  }
  for (const [type, capacity, name] of [
    ['standard', 2, 'Kennel A'],
    ['suite', 1, 'Garden suite'],
  ] as const) {
    await ok(
      await t.request('POST', '/v1/boarding/rooms', {
        token,
        body: { locationId: location.id, name, roomType: type, capacity, species: ['dog'], nightlyRate: 4_500 },
      }),
      201,
      'room',
    );
  }
  const stay = async (petId: string, roomType: string, checkInOn: string, checkOutOn: string) =>
    (
      await ok(
        await t.request('POST', '/v1/boarding/bookings', { token, body: { petId, locationId: location.id, roomType, checkInOn, checkOutOn } }),
        201,
        'stay',
      )
    ).id as string;
  const firstStay = await stay(p1.id, 'standard', '2026-12-10', '2026-12-14');
  await stay(p2.id, 'suite', '2026-12-12', '2026-12-20');
  await stay(p3.id, 'standard', '2026-12-13', '2026-12-18');

  token = await at('2026-12-02T12:00:00Z');
  const first = await ok(
    await t.request('POST', '/v1/payments', { token, body: { parentId: parent.id, amount: 12_000, method: 'cash', currency: 'USD' } }),
    201,
    'payment',
  );
  token = await at('2026-12-03T12:00:00Z');
  await move(noShow, 'no_show');
  token = await at('2026-12-04T12:00:00Z');
  for (const s of ['checked_in', 'in_progress', 'completed']) await move(done, s);
  token = await at('2026-12-05T12:00:00Z');
  await ok(
    await t.request('POST', '/v1/payments', { token, body: { parentId: parent.id, amount: 8_050, method: 'card_terminal', currency: 'USD' } }),
    201,
    'payment',
  );
  token = await at('2026-12-06T12:00:00Z');
  await ok(
    await t.request('POST', '/v1/payments', { token, body: { parentId: otherParent.id, amount: 5_000, method: 'cash', currency: 'USD' } }),
    201,
    'payment elsewhere',
  );
  token = await at('2026-12-09T15:00:00Z');
  await ok(await t.request('POST', '/v1/payments', { token, body: { parentId: parent.id, amount: 4_525, method: 'cash', currency: 'USD' } }), 201, 'payment');
  await ok(await t.request('POST', '/v1/refunds', { token, body: { paymentId: first.id, amount: 1_000 } }), 201, 'refund');

  token = await at('2026-12-10T08:00:00Z');
  await book(p1.id, '2026-12-10T14:30:00Z');
  await book(p3.id, '2026-12-10T11:00:00Z');
  await ok(await t.request('POST', '/v1/boarding/check-in', { token, body: { bookingId: firstStay } }), 200, 'check-in');

  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = await ok(
    await t.request('POST', '/v1/webhook-endpoints', {
      token,
      body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['*'], description: 'Front-desk sync' },
    }),
    201,
    'endpoint',
  );
  await ok(await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token }), 202, 'test event');
  // An event the endpoint subscribes to (webhook.test is sent only on request, and is not replayed).
  await createPet(t, parent.id, location.id, { name: 'Olive' }, token);

  clock.set(now);
  await warm;
  return {
    t,
    admin,
    locationId: location.id,
    staff: { clientId: staff.clientId, clientSecret: staff.clientSecret },
    limited: { clientId: limited.clientId, clientSecret: limited.clientSecret },
    endpointId: endpoint.id,
    receiver,
  };
}
