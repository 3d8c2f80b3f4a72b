import test from 'ava';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/eventually.js';
import { adminCredentials } from '../helpers/test-app.js';
import { consoleSuite, desktop, month, now, openPage, shoot, signIn, tablet, type ConsoleFixture, type PageGlobals } from './console-support.js';

/**
 * The console in headless Chromium (playwright-core) against the real app: sign-in, the dashboard's
 * numbers against the API, every panel, the API's own 401/403/429 shown, the CSP blocking an inline
 * script, no secret or token kept anywhere, keyboard use; screenshots go to test-results/console/.
 */
let f: ConsoleFixture;
const suite = consoleSuite(test, 'console browser tests', async (fixture) => {
  f = fixture;
});
const { serial, signedIn, admin } = suite;

const { clientId: adminId, clientSecret: adminSecret } = adminCredentials.live;
const usd = (minor: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(minor / 100);

serial('a wrong secret shows the API’s own 401 problem and keeps the user on the sign-in form', async (a) => {
  const { context, page } = await openPage(suite.browser);
  await signIn(page, f.t.url, adminId, 'sk_live_wrong');
  const problem = page.locator('#sign-in-problem');
  await problem.waitFor();
  a.regex(await problem.innerText(), /401 Client authentication failed/);
  a.regex(await problem.innerText(), /code invalid_client/);
  a.false(await page.locator('#workspace').isVisible());
  a.is(await page.getByLabel('Client secret').inputValue(), '', 'the secret left the field');
  await shoot(page, 'sign-in-401-desktop');
  await context.close();
});

serial('the dashboard charts this month’s metrics with the API’s numbers; no secret or token is kept in storage, the URL or logs', async (a) => {
  const { page, logs, tokens } = await admin();
  const token = await f.admin();
  await page.getByRole('link', { name: 'Dashboard' }).click();
  const summary = await f.t.request('GET', `/v1/analytics/summary?from=${month.from}&to=${month.to}`, { token });
  a.is(summary.status, 200);
  await page.locator('.kpi[data-metric="revenue_net"]').waitFor();
  await page.locator('.chart-card canvas').nth(3).waitFor();

  const metrics = summary.body.metrics as Array<{ name: string; value: number; unit: string }>;
  const revenue = metrics.find((m) => m.name === 'revenue_net');
  a.is(revenue?.value, 12_000 + 8_050 + 4_525 - 1_000 + 5_000, 'payments minus refunds, both clinics');
  await page.locator('.kpi[data-metric="revenue_net"][data-value="28575"]').waitFor();
  a.is(await page.locator('.kpi[data-metric="revenue_net"] dd').first().innerText(), usd(28_575));
  for (const m of metrics) {
    const kpi = page.locator(`.kpi[data-metric="${m.name}"]`);
    a.is(await kpi.getAttribute('data-value'), String(m.value), m.name);
  }
  a.is(await page.locator('.kpi[data-metric="no_show_rate"] dd').first().innerText(), '50.0 %', '1 no-show of 2 finished');
  a.is(await page.locator('.kpi[data-metric="vaccination_compliance_rate"] dd').first().innerText(), '50.0 %', '1 compliant of 2 vaccinated');

  for (const name of ['revenue_net', 'boarding_occupancy_rate', 'no_show_rate', 'vaccination_compliance_rate']) {
    const series = await f.t.request('GET', `/v1/analytics/metrics/${name}?from=${month.from}&to=${month.to}&interval=day`, { token });
    a.is(series.status, 200);
    const rows = await page
      .locator(`figure[data-metric="${name}"] tbody tr`)
      .evaluateAll((trs) =>
        trs.map((tr) => ({ bucket: tr.querySelector('th')?.textContent, value: Number(tr.querySelector('td')?.getAttribute('data-value')) })),
      );
    a.deepEqual(
      rows,
      (series.body.points as Array<{ bucket: string; value: number }>).map((p) => ({ bucket: p.bucket, value: p.value })),
      name,
    );
    a.is(await page.locator(`figure[data-metric="${name}"] canvas`).count(), 1, `${name} drawn`);
  }

  // One clinic: the summary the API gives for that location.
  await page.locator('#dash-location').selectOption({ label: 'Riverside Clinic' });
  await page.locator('#panel-dashboard').getByRole('button', { name: 'Show' }).click();
  await page.locator('.kpi[data-metric="revenue_net"][data-value="23575"]').waitFor();
  a.is(await page.locator('.kpi[data-metric="revenue_net"] dd').first().innerText(), usd(23_575));
  const riverside = await f.t.request('GET', `/v1/analytics/summary?from=${month.from}&to=${month.to}&locationId=${f.locationId}`, { token });
  for (const m of riverside.body.metrics as Array<{ name: string; value: number }>) {
    a.is(await page.locator(`.kpi[data-metric="${m.name}"]`).getAttribute('data-value'), String(m.value), `${m.name} at Riverside`);
  }
  await shoot(page, 'dashboard-desktop');
  await page.setViewportSize(tablet);
  await page.locator('.chart-card canvas').first().waitFor();
  await shoot(page, 'dashboard-tablet');

  a.is(tokens.length, 1);
  const kept = await page.evaluate(() => {
    const { document, location, localStorage, sessionStorage } = globalThis as unknown as PageGlobals;
    return {
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      url: location.href,
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
      fields: [...document.querySelectorAll('input')].map((i) => i.value).join(' '),
    };
  });
  a.is(kept.local, '{}');
  a.is(kept.session, '{}');
  a.is(kept.cookie, '');
  for (const secret of [adminSecret, tokens[0]!]) {
    a.false(kept.url.includes(secret));
    a.false(kept.html.includes(secret));
    a.false(kept.fields.includes(secret));
    a.false(
      logs.some((line) => line.includes(secret)),
      'not in the console log',
    );
  }
  a.notRegex(kept.url, /secret|token|sk_live/);
});

serial('occupancy grid, today’s appointments, webhook replay, a job run with progress and audit search', async (a) => {
  const { page } = await admin();
  const token = await f.admin();

  // Occupancy: the "All rooms" row is the API's reserved + checked in of capacity, night by night.
  await page.getByRole('link', { name: 'Occupancy' }).click();
  await page.locator('table.occupancy').waitFor();
  a.is(await page.locator('#occ-location option').first().innerText(), 'Riverside Clinic', 'named for admins');
  const occupancy = await f.t.request('GET', `/v1/boarding/occupancy?locationId=${f.locationId}&from=2026-12-10&to=2027-01-06`, { token });
  const expected = (occupancy.body.nights as Array<{ date: string; reserved: number; checkedIn: number; capacity: number }>).map(
    (n) => `${n.reserved + n.checkedIn}/${n.capacity}`,
  );
  a.is(expected.length, 28);
  a.deepEqual(await page.locator('table.occupancy tr.total td').allInnerTexts(), expected);
  a.is(expected[0], '1/3');
  a.is(expected[3], '3/3', '13 December: both standard places and the suite');
  await shoot(page, 'occupancy-desktop');
  await page.setViewportSize(tablet);
  await shoot(page, 'occupancy-tablet');
  await page.setViewportSize(desktop);

  // Today's appointments, in time order.
  await page.getByRole('link', { name: 'Appointments' }).click();
  await page.locator('#appointments-table').waitFor();
  const times = await page.locator('#appointments-table tbody tr td:first-child').allInnerTexts();
  a.deepEqual(times, ['11:00–11:30', '14:30–15:00']);
  await page.locator('#appointments-table', { hasText: 'Pepper' }).waitFor();
  a.deepEqual(await page.locator('#appointments-table tbody tr td:nth-child(3)').allInnerTexts(), ['Pepper', 'Biscuit']);
  await shoot(page, 'appointments-desktop');

  // Webhooks: the delivered test event, replayed from its row.
  await eventually(
    async () => (await f.t.request('GET', `/v1/webhook-endpoints/${f.endpointId}/deliveries?status=succeeded`, { token })).body.data.length >= 2,
    {
      timeoutMs: 10_000,
      what: 'the test event and pet.registered delivered',
    },
  );
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.locator('#deliveries-table').waitFor();
  const row = page.locator('#deliveries-table tbody tr', { hasText: 'pet.registered' }).first();
  const eventId = await row.getAttribute('data-event');
  await row.getByRole('button', { name: /Replay event/ }).click();
  await page.locator('#panel-webhooks .notice', { hasText: 'queued as whd_' }).waitFor();
  await eventually(
    async () =>
      (
        (await f.t.request('GET', `/v1/webhook-endpoints/${f.endpointId}/deliveries?eventId=${eventId}`, { token })).body.data as Array<{
          kind: string;
        }>
      ).some((d) => d.kind === 'replay'),
    { timeoutMs: 10_000, what: 'a replay delivery attempt' },
  );
  await shoot(page, 'webhooks-desktop');

  // Jobs: run one and follow it to the end.
  await page.getByRole('link', { name: 'Jobs' }).click();
  const job = page.locator('#jobs-table tr[data-job="subscription-billing"]');
  await job.getByRole('button', { name: 'Run subscription-billing now' }).click();
  await job.locator('.progress .badge', { hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  const runId = await job.locator('.progress .badge').getAttribute('data-run');
  a.regex(await job.locator('td').nth(2).innerText(), /^succeeded · /, 'the last run cell follows');
  const detail = await f.t.request('GET', '/v1/jobs/subscription-billing', { token });
  a.is((detail.body.recentRuns as Array<{ id: string; status: string }>).find((r) => r.id === runId)?.status, 'succeeded');
  await shoot(page, 'jobs-desktop');

  // Audit: the refused sign-in of a moment ago.
  a.is((await f.t.token(adminId, 'sk_live_not_it')).status, 401);
  await page.getByRole('link', { name: 'Audit' }).click();
  const audit = page.locator('#panel-audit');
  await audit.getByLabel('Status').fill('401');
  await audit.getByLabel('Method').selectOption('POST');
  await audit.getByRole('button', { name: 'Search' }).click();
  // The table shows the unfiltered rows (some of them /oauth/token too) until the search answers:
  // wait for the filtered ones rather than for any row naming the route.
  const rows = page.locator('#audit-table tbody tr', { hasText: '/oauth/token' });
  const statuses = await eventually(
    async () => {
      const shown = await page.locator('#audit-table tbody td:nth-child(5)').allInnerTexts();
      return (await rows.count()) > 0 && shown.length > 0 && shown.every((s) => s === '401') && shown;
    },
    { what: 'the audit rows filtered to 401' },
  );
  a.true(statuses.length > 0);
  await shoot(page, 'audit-desktop');
  await page.setViewportSize(tablet);
  await shoot(page, 'audit-tablet');
});

serial(
  'a staff client sees only the panels its scopes allow, an admin panel opened by address shows the API’s 403, and an expired token’s 401 returns to sign-in',
  async (a) => {
    const { context, page } = await openPage(suite.browser, tablet);
    await signedIn(page, f.staff.clientId, f.staff.clientSecret);
    a.deepEqual(await page.locator('#nav a').allInnerTexts(), ['Occupancy', 'Appointments', 'Pets', 'Pet parents']);
    await page.locator('table.occupancy').waitFor();
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).location.hash = '#audit';
    });
    const problem = page.locator('#panel-audit .problem');
    await problem.waitFor();
    a.regex(await problem.innerText(), /^403 /);
    a.regex(await problem.innerText(), /code (insufficient_scope|forbidden_role)/);
    await shoot(page, 'staff-403-tablet');

    // Two hours on, the token has expired: the API's 401 sends the user back to sign in, in its own words.
    f.t.clock.advance(2 * 3_600_000);
    try {
      await page.evaluate(() => {
        (globalThis as unknown as PageGlobals).location.hash = '#occupancy';
      });
      await page.locator('#panel-occupancy').getByRole('button', { name: 'Show' }).click();
      const expired = page.locator('#sign-in-problem');
      await expired.waitFor();
      a.regex(await expired.innerText(), /401 The access token is invalid or expired/);
      a.false(await page.locator('#workspace').isVisible());
      a.is(await page.locator('#nav a').count(), 0, 'the panels went with the token');
    } finally {
      f.t.clock.set(now);
    }
    await context.close();
  },
);

serial('the API’s 429 is shown with its Retry-After', async (a) => {
  const { context, page } = await openPage(suite.browser);
  await signedIn(page, f.limited.clientId, f.limited.clientSecret);
  // One call a minute: the rooms list passes, the occupancy grid is refused.
  const problem = page.locator('#panel-occupancy .problem');
  await problem.waitFor();
  a.regex(await problem.innerText(), /429 Too many requests/);
  a.regex(await problem.innerText(), /Retry after \d+ s/);
  await context.close();
});

serial('the Content-Security-Policy blocks an injected inline script', async (a) => {
  const { page } = await admin();
  a.is(
    await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.cspViolations),
    undefined,
    'the console itself broke no rule on any panel',
  );
  await page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true';
    document.body.append(script);
    const div = document.createElement('div');
    div.innerHTML = '<img src="data:," onerror="window.__injectedHandler = true">';
    document.body.append(div);
  });
  await page.waitForFunction(() => Number((globalThis as unknown as PageGlobals).document.documentElement.dataset.cspViolations ?? 0) >= 2);
  a.is(await page.evaluate(() => (globalThis as unknown as PageGlobals).__injected), undefined, 'the inline script did not run');
  a.is(await page.evaluate(() => (globalThis as unknown as PageGlobals).__injectedHandler), undefined, 'the inline handler did not run');
});

serial('keyboard only: sign in, then reach and open the panels', async (a) => {
  const { context, page } = await openPage(suite.browser);
  await page.goto(`${f.t.url}/console`);
  const focused = () =>
    page.evaluate(() => {
      const { activeElement } = (globalThis as unknown as PageGlobals).document;
      return activeElement?.id || activeElement?.textContent?.trim() || '';
    });
  a.is(await focused(), 'client-id', 'the first field has focus');
  await page.keyboard.press('Shift+Tab');
  a.is(await focused(), 'Skip to content', 'the skip link comes first');
  await page.keyboard.press('Tab');
  await page.keyboard.type(adminId);
  await page.keyboard.press('Tab');
  a.is(await focused(), 'client-secret');
  await page.keyboard.type(adminSecret);
  await page.keyboard.press('Tab');
  a.is(await focused(), 'sign-in-button');
  await page.keyboard.press('Enter');
  await page.locator('#workspace').waitFor();
  a.is(await focused(), 'Dashboard', 'focus moves to the current panel’s link');
  await page.keyboard.press('Tab');
  a.is(await focused(), 'Occupancy');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.activeElement?.id === 'title-occupancy');
  a.is(await focused(), 'title-occupancy', 'the opened panel’s heading has focus');
  await page.keyboard.press('Tab');
  a.is(await focused(), 'occ-location', 'then its first control');
  // The skip link moves to the content and leaves the open panel open.
  await page.locator('.skip-link').focus();
  await page.keyboard.press('Enter');
  a.true(await page.locator('#panel-occupancy').isVisible());
  await page.locator('#occ-location').focus();
  // Back past every panel link (the panel's heading is not a tab stop) to the header.
  const links = await page.locator('#nav a').count();
  for (let i = 0; i <= links; i++) await page.keyboard.press('Shift+Tab');
  a.is(await focused(), 'sign-out', 'the header’s sign-out button is reachable');
  await page.keyboard.press('Enter');
  await page.locator('#sign-in').waitFor();
  a.is(await focused(), 'client-id');
  await context.close();
});
