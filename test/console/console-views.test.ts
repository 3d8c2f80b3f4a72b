import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/eventually.js';
import { createPet, createPetParent } from '../helpers/factories.js';
import type { Response } from '../helpers/test-app.js';
import { consoleSuite, desktop, month, openPage, screenshotDir, shoot, type ConsoleFixture, type PageGlobals } from './console-support.js';

/**
 * The console's read views and live refresh in headless Chromium, against the real app: revenue
 * in two currencies drawn as two lines, the audit table within a 1280 px window, the appointments
 * and dashboard refreshed from the event stream, and the pets, pet parents and invoices views
 * (search, paging, detail, a missing scope's 403). Screenshots go to test-results/console/.
 */
let f: ConsoleFixture;
const suite = consoleSuite(test, 'console views browser tests', async (fixture) => {
  f = fixture;
  r = await records();
});
const { serial, admin, signedIn } = suite;

interface Records {
  camdenId: string;
  dana: { id: string };
  juniper: { id: string };
  harriet: { id: string };
  providerId: string;
  invoice: { id: string; number: string; total: number };
  payment: { id: string };
  refund: { id: string };
  longPath: string;
}

let r: Records;

async function ok(res: Response, status: number, what: string): Promise<any> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

/**
 * Beyond the shared fixture (one clinic's December in USD): a clinic in London paid in GBP, a pet
 * parent with a pet, vaccinations, an appointment ahead, 30 pets of one litter (two pages), an open
 * invoice part paid and part refunded, and two calls whose paths are far longer than a table cell.
 */
async function records(): Promise<Records> {
  const { t } = f;
  const token = await f.admin();
  // The harness's own admin token was taken before the fixture moved the clock: these calls use a fresh one.
  const camden = await ok(
    await t.request('POST', '/v1/locations', { token, body: { name: 'Camden Clinic', timezone: 'Europe/London', currency: 'GBP', taxRateBps: 0 } }),
    201,
    'location',
  );
  const harriet = await createPetParent(t, camden.id, { name: 'Harriet Jones' }, token);
  await createPet(t, harriet.id, camden.id, { name: 'Rufus' }, token);
  await ok(
    await t.request('POST', '/v1/payments', { token, body: { parentId: harriet.id, amount: 9_900, method: 'cash', currency: 'GBP' } }),
    201,
    'GBP payment',
  );

  const dana = await createPetParent(t, f.locationId, { name: 'Dana Whitfield', email: 'dana@example.com', phone: '+44 20 7946 0001' }, token);
  const juniper = await createPet(t, dana.id, f.locationId, { name: 'Juniper', breed: 'Whippet', birthDate: '2021-04-02' }, token);
  for (const [vaccine, administeredOn, dueOn] of [
    ['Rabies', '2025-01-10', '2026-01-10'],
    ['Rabies', '2026-01-12', '2027-01-12'],
    ['Leptospirosis', '2025-12-01', '2026-12-01'],
  ] as const) {
    await ok(await t.request('POST', `/v1/pets/${juniper.id}/vaccinations`, { token, body: { vaccine, administeredOn, dueOn } }), 201, 'vaccination');
  }
  const providers = await ok(await t.request('GET', `/v1/providers?locationId=${f.locationId}`, { token }), 200, 'providers');
  const providerId = (providers.data as Array<{ id: string; name: string }>).find((p) => p.name === 'Dr. Ana Silva')?.id;
  if (!providerId) throw new Error('the fixture’s provider is missing');
  await ok(
    await t.request('POST', '/v1/appointments', { token, body: { petId: juniper.id, providerId, type: 'checkup', startsAt: '2026-12-15T09:00:00Z' } }),
    201,
    'appointment ahead',
  );
  for (let i = 1; i <= 30; i++) await createPet(t, dana.id, f.locationId, { name: `Litter ${String(i).padStart(2, '0')}` }, token);

  const invoice = await ok(
    await t.request('POST', '/v1/invoices', {
      token,
      body: {
        parentId: dana.id,
        locationId: f.locationId,
        petId: juniper.id,
        dueOn: '2026-12-24',
        finalize: true,
        lines: [
          { description: 'Annual check-up', quantity: 1, unitAmount: 6_500 },
          { description: 'Leptospirosis booster', quantity: 2, unitAmount: 2_250 },
        ],
      },
    }),
    201,
    'invoice',
  );
  const payment = await ok(
    await t.request('POST', '/v1/payments', {
      token,
      body: { parentId: dana.id, invoiceId: invoice.id, amount: 8_000, method: 'card_terminal', currency: 'USD' },
    }),
    201,
    'invoice payment',
  );
  const refund = await ok(
    await t.request('POST', '/v1/refunds', { token, body: { paymentId: payment.id, amount: 1_500, reason: 'Booster not given' } }),
    201,
    'refund',
  );

  // Paths far wider than their column: a pet id at the route's limit, and a route nobody serves.
  const longPath = `/v1/pets/pet_${'x'.repeat(96)}/vaccinations`;
  await t.request('GET', longPath, { token });
  await t.request('GET', `/v1/${'unknown-segment-'.repeat(16)}end`, { token });
  return {
    camdenId: camden.id,
    dana,
    juniper,
    harriet,
    providerId,
    invoice: { id: invoice.id, number: invoice.number, total: invoice.total },
    payment,
    refund,
    longPath,
  };
}

const money = (minor: number, currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).format(minor / 100);

const go = (page: Page, hash: string) =>
  page.evaluate((h) => {
    (globalThis as unknown as PageGlobals).location.hash = h;
  }, hash);

serial('revenue in two currencies is drawn as two lines with a legend, each with the API’s own series, never summed', async (a) => {
  const { page } = await admin();
  const token = await f.admin();
  await page.getByRole('link', { name: 'Dashboard' }).click();
  const figure = page.locator('figure[data-metric="revenue_net"]');
  await figure.locator('.chart-legend li').nth(1).waitFor();
  a.deepEqual(await figure.locator('.chart-legend li').allInnerTexts(), ['GBP', 'USD']);
  a.deepEqual(await figure.locator('thead th').allTextContents(), ['Day', 'GBP', 'USD']);

  const summary = await ok(await f.t.request('GET', `/v1/analytics/summary?from=${month.from}&to=${month.to}`, { token }), 200, 'summary');
  const revenue = (summary.metrics as Array<{ name: string; value: number; currency?: string }>).filter((m) => m.name === 'revenue_net');
  a.deepEqual(revenue.map((m) => [m.currency, m.value]).sort(), [
    ['GBP', 9_900],
    ['USD', 28_575 + 8_000 - 1_500],
  ]);
  for (const m of revenue) {
    await page.locator(`.kpi[data-metric="revenue_net"][data-currency="${m.currency}"][data-value="${m.value}"]`).waitFor();
    const series = await ok(
      await f.t.request('GET', `/v1/analytics/metrics/revenue_net?from=${month.from}&to=${month.to}&interval=day&currency=${m.currency}`, { token }),
      200,
      `series ${m.currency}`,
    );
    const column = await figure.locator(`tbody td[data-currency="${m.currency}"]`).evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    a.deepEqual(
      column,
      (series.points as Array<{ value: number }>).map((p) => p.value),
      `${m.currency}: the API's series, day by day`,
    );
    a.is(
      column.reduce((sum, v) => sum + v, 0),
      m.value,
      `${m.currency}: the days add up to the month's figure`,
    );
  }
  a.is(await figure.locator('canvas').count(), 1);
  await figure.scrollIntoViewIfNeeded();
  await shoot(page, 'dashboard-two-currencies-desktop');
  await figure.locator('summary').click();
  await figure.screenshot({ path: path.join(screenshotDir, 'revenue-two-currencies-chart.png') });
});

serial(
  'the audit table stays inside a 1280 px window: long paths wrap or are cut with the whole text on hover, the table scrolls inside its panel',
  async (a) => {
    const { page } = await admin();
    await page.getByRole('link', { name: 'Audit' }).click();
    const table = page.locator('#audit-table');
    await table
      .locator('tbody tr', { hasText: 'x'.repeat(96) })
      .first()
      .waitFor();
    const cell = table.locator(`td[title="GET ${r.longPath}"]`).first();
    a.is(await cell.count(), 1, 'the full path is in the cell’s title');

    const box = async (selector: string) => {
      const b = await page.locator(selector).first().boundingBox();
      if (!b) throw new Error(`${selector} is not shown`);
      return { left: b.x, right: b.x + b.width };
    };
    const measure = async () => {
      const root = await page.evaluate(() => {
        const { documentElement } = (globalThis as unknown as PageGlobals).document as unknown as {
          documentElement: { scrollWidth: number; clientWidth: number };
        };
        return { page: documentElement.scrollWidth, viewport: documentElement.clientWidth };
      });
      return { table: await box('#audit-table'), scroller: await box('#panel-audit .table-scroll'), panel: await box('#panel-audit'), ...root };
    };
    const wide = await measure();
    a.is(wide.viewport, desktop.width);
    a.true(wide.page <= wide.viewport, `the page does not scroll sideways (${wide.page} px of ${wide.viewport})`);
    a.true(wide.table.right <= wide.panel.right, `the table ends inside its panel (${wide.table.right} ≤ ${wide.panel.right})`);
    a.true(wide.table.right <= desktop.width, `and inside the window (${wide.table.right} ≤ ${desktop.width})`);
    // The refused calls with the long paths, for the picture.
    await page.locator('#panel-audit').getByLabel('Status').fill('404');
    await page.locator('#panel-audit').getByRole('button', { name: 'Search' }).click();
    await eventually(async () => (await table.locator('tbody td:nth-child(5)').allInnerTexts()).every((s) => s === '404'), { what: 'the 404 calls' });
    const filtered = await measure();
    a.true(filtered.table.right <= filtered.panel.right && filtered.page <= filtered.viewport, 'the long paths fit too');
    await shoot(page, 'audit-long-paths-desktop');

    // Too narrow for the table: it scrolls inside its own box, the page does not.
    await page.setViewportSize({ width: 560, height: 800 });
    const narrow = await measure();
    a.true(narrow.page <= narrow.viewport, `the page does not scroll sideways at 560 px (${narrow.page} px)`);
    a.true(narrow.scroller.right <= narrow.panel.right, 'the scrolling box stays in the panel');
    await page.setViewportSize(desktop);
  },
);

serial('the appointments view shows an appointment booked over the API while it is open, without a reload, also across a dropped connection', async (a) => {
  const { page } = await admin();
  await page.getByRole('link', { name: 'Appointments' }).click();
  await page.locator('#appointments-table').waitFor();
  await page.locator('#live-status[data-state="live"]').waitFor();
  const before = await page.locator('#appointments-table tbody tr').count();
  await page.evaluate(() => {
    (globalThis as unknown as { __samePage: boolean }).__samePage = true;
  });

  const token = await f.admin();
  const booked = await ok(
    await f.t.request('POST', '/v1/appointments', {
      token,
      body: { petId: r.juniper.id, providerId: r.providerId, type: 'checkup', startsAt: '2026-12-10T16:00:00Z' },
    }),
    201,
    'appointment',
  );
  const row = page.locator(`#appointments-table tr[data-id="${booked.id}"]`);
  await row.waitFor({ timeout: 15_000 });
  a.is(await page.locator('#appointments-table tbody tr').count(), before + 1);
  a.is(await row.locator('td').nth(2).innerText(), 'Juniper');
  a.true(await page.evaluate(() => (globalThis as unknown as { __samePage?: boolean }).__samePage === true), 'the same page: no reload');
  await shoot(page, 'appointments-live-desktop');

  // The connection drops (the server cuts every socket); the page's reconnect is held until a booking
  // has been made meanwhile: it resumes after the last event it had (Last-Event-ID) and gets the booking.
  const [latest] = (await ok(await f.t.request('GET', '/v1/events?limit=1', { token }), 200, 'events')).data as Array<{ id: string }>;
  const resumes: Array<string | undefined> = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/v1/events/stream', async (route) => {
    resumes.push(route.request().headers()['last-event-id']);
    await held;
    await route.continue();
  });
  try {
    f.t.server.closeAllConnections();
    await page.locator('#live-status[data-state="connecting"]').waitFor({ timeout: 15_000 });
    const missed = await ok(
      await f.t.request('POST', '/v1/appointments', {
        token,
        body: { petId: r.juniper.id, providerId: r.providerId, type: 'checkup', startsAt: '2026-12-10T17:00:00Z' },
      }),
      201,
      'appointment while disconnected',
    );
    await eventually(() => resumes.length > 0, { what: 'the page reconnecting' });
    release();
    await page.locator(`#appointments-table tr[data-id="${missed.id}"]`).waitFor({ timeout: 15_000 });
    a.is(resumes[0], latest?.id, 'the reconnect resumed after the last event the page had');
    await page.locator('#live-status[data-state="live"]').waitFor();
  } finally {
    release();
    await page.unroute('**/v1/events/stream');
  }

  // The dashboard, opened later, has followed too: a payment made meanwhile is in its figure.
  await ok(
    await f.t.request('POST', '/v1/payments', { token, body: { parentId: r.harriet.id, amount: 1_100, method: 'cash', currency: 'GBP' } }),
    201,
    'payment',
  );
  await page.getByRole('link', { name: 'Dashboard' }).click();
  await page.locator('.kpi[data-metric="revenue_net"][data-currency="GBP"][data-value="11000"]').waitFor({ timeout: 15_000 });
  a.is(await page.locator('.kpi[data-metric="revenue_net"][data-currency="GBP"] dd').first().innerText(), money(11_000, 'GBP'));
});

serial('pets: search by name, page through a litter, open a pet with its owner, vaccinations and the appointment ahead', async (a) => {
  const { page } = await admin();
  await page.getByRole('link', { name: 'Pets' }).click();
  await page.locator('#pets-table').waitFor();
  await shoot(page, 'pets-list-desktop');

  const panel = page.locator('#panel-pets');
  await panel.getByLabel('Name').fill('litter');
  await panel.getByRole('button', { name: 'Search' }).click();
  await page.locator('#pets-table caption', { hasText: '25 pets' }).waitFor();
  a.true((await page.locator('#pets-table tbody td:first-child').allInnerTexts()).every((n) => n.startsWith('Litter ')));
  await panel.getByRole('button', { name: 'Load more' }).click();
  await page.locator('#pets-table caption', { hasText: '30 pets' }).waitFor();
  a.true(await panel.getByRole('button', { name: 'Load more' }).isHidden(), 'no third page');
  a.is(new Set(await page.locator('#pets-table tbody td:first-child').allInnerTexts()).size, 30, 'no pet twice');
  await page.locator('#pets-table tbody tr').first().locator('td').nth(2).getByText('Dana Whitfield').waitFor();

  await panel.getByLabel('Name').fill('junip');
  await panel.getByRole('button', { name: 'Search' }).click();
  await page.locator('#pets-table caption', { hasText: '1 pet,' }).waitFor();
  await shoot(page, 'pets-search-desktop');
  await page.locator('#pets-table').getByRole('link', { name: 'Juniper' }).click();
  a.is(await page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash), `#pets/${r.juniper.id}`);
  const detail = page.locator('#panel-pets .record');
  await detail.locator('h2', { hasText: 'Juniper' }).waitFor();
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.activeElement?.id === 'pet-title');
  await detail.locator('#pet-owner dd a', { hasText: 'Dana Whitfield' }).waitFor();
  await detail.locator('#pet-vaccinations tbody tr').nth(2).waitFor();
  a.deepEqual(await detail.locator('#pet-vaccinations tbody td:nth-child(4)').allInnerTexts(), ['Up to date', 'Overdue', 'Replaced'], 'latest first');
  await detail.locator('#pet-appointments tbody tr').first().waitFor();
  // Today's two, booked by the live test above, then the one on the 15th.
  const ahead = await detail.locator('#pet-appointments tbody tr td:first-child').allInnerTexts();
  a.deepEqual(ahead, ['10 Dec 2026 16:00–16:30', '10 Dec 2026 17:00–17:30', '15 Dec 2026 09:00–09:30']);
  await shoot(page, 'pet-detail-desktop', { fullPage: true });

  // Back returns to the list as it was.
  await page.goBack();
  await page.locator('#pets-table caption', { hasText: '1 pet,' }).waitFor();
  a.true(await detail.isHidden());
});

serial('pet parents: search, a parent’s pets and invoices, and links between the views', async (a) => {
  const { page } = await admin();
  await page.getByRole('link', { name: 'Pet parents' }).click();
  await page.locator('#parents-table').waitFor();
  const panel = page.locator('#panel-parents');
  await panel.getByLabel('Name').fill('whit');
  await panel.getByRole('button', { name: 'Search' }).click();
  await page.locator('#parents-table caption', { hasText: '1 pet parent,' }).waitFor();
  a.deepEqual(await page.locator('#parents-table tbody td:nth-child(2)').allInnerTexts(), ['dana@example.com']);
  await shoot(page, 'parents-search-desktop');

  await page.locator('#parents-table').getByRole('link', { name: 'Dana Whitfield' }).click();
  const detail = page.locator('#panel-parents .record');
  await detail.locator('h2', { hasText: 'Dana Whitfield' }).waitFor();
  await detail.locator('#parent-pets caption', { hasText: '31 pets' }).waitFor();
  await detail.locator('#parent-invoices tbody tr').first().waitFor();
  a.regex(await detail.locator('#parent-invoices .owed').innerText(), new RegExp(`Owed: ${money(r.invoice.total - 8_000, 'USD').replace('$', '\\$')}`));
  await shoot(page, 'parent-detail-desktop', { fullPage: true });

  // From the parent to the invoice's detail in the Invoices view.
  await detail.locator('#parent-invoices').getByRole('link', { name: r.invoice.number }).click();
  await page.locator('#panel-invoices .record h2', { hasText: r.invoice.number }).waitFor();
  a.is(await page.locator('#nav a[aria-current="page"]').innerText(), 'Invoices');
});

serial('invoices: filter by status, and an invoice’s lines, payments, refunds and balance as the API gives them', async (a) => {
  const { page } = await admin();
  const token = await f.admin();
  await go(page, '#invoices');
  await page.locator('#invoices-table').waitFor();
  const panel = page.locator('#panel-invoices');
  await panel.getByLabel('Status').selectOption('open');
  await panel.getByRole('button', { name: 'Search' }).click();
  await eventually(async () => (await page.locator('#invoices-table tbody td:nth-child(2)').allInnerTexts()).every((s) => s === 'open'), {
    what: 'open invoices only',
  });
  const row = page.locator(`#invoices-table tr[data-id="${r.invoice.id}"]`);
  await row.waitFor();
  a.is(await row.locator('td').nth(2).innerText(), 'Dana Whitfield');
  await shoot(page, 'invoices-list-desktop');

  await row.getByRole('link', { name: r.invoice.number }).click();
  const detail = page.locator('#panel-invoices .record');
  await detail.locator('#invoice-refunds tbody tr').first().waitFor();
  const invoice = await ok(await f.t.request('GET', `/v1/invoices/${r.invoice.id}`, { token }), 200, 'invoice');
  a.deepEqual(await detail.locator('#invoice-lines tbody td:first-child').allInnerTexts(), ['Annual check-up', 'Leptospirosis booster']);
  for (const [key, value] of [
    ['total', invoice.total],
    ['paid', invoice.amountPaid],
    ['refunded', invoice.amountRefunded],
    ['due', invoice.amountDue],
  ] as const) {
    a.is(await detail.locator(`.balance-${key}`).getAttribute('data-value'), String(value), key);
  }
  a.deepEqual([invoice.total, invoice.amountPaid, invoice.amountRefunded, invoice.amountDue], [11_000, 8_000, 1_500, 3_000]);
  a.is(await detail.locator('.balance-due dd').innerText(), money(3_000, 'USD'));
  a.regex(await detail.locator('#invoice-payments tbody').innerText(), /card terminal[\s\S]*\$80\.00[\s\S]*\$15\.00/);
  a.regex(await detail.locator('#invoice-refunds tbody').innerText(), /Booster not given\s+\$15\.00/);
  await detail.getByRole('link', { name: 'Juniper' }).waitFor();
  await shoot(page, 'invoice-detail-desktop', { fullPage: true });
});

serial('a client without payments.read sees no Invoices panel, the API’s 403 where it asks anyway, and the rest of a record', async (a) => {
  const { context, page } = await openPage(suite.browser);
  await signedIn(page, f.staff.clientId, f.staff.clientSecret);
  a.deepEqual(await page.locator('#nav a').allInnerTexts(), ['Occupancy', 'Appointments', 'Pets', 'Pet parents']);
  await go(page, `#parents/${r.dana.id}`);
  const detail = page.locator('#panel-parents .record');
  await detail.locator('#parent-pets tbody tr').first().waitFor();
  const refused = detail.locator('#parent-invoices .problem');
  await refused.waitFor();
  a.regex(await refused.innerText(), /^403 /);
  a.regex(await refused.innerText(), /code insufficient_scope/);
  await shoot(page, 'parent-detail-403-desktop', { fullPage: true });

  await go(page, '#invoices');
  const problem = page.locator('#panel-invoices > .problem');
  await problem.waitFor();
  a.regex(await problem.innerText(), /^403 /);
  await context.close();
});
