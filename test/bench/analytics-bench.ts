/**
 * The analytics case of `npm run bench` (module-cases.ts runs it beside GET /v1/pets/:id):
 *   GET /v1/analytics/summary for one month at a location holding 100,000 appointments and 50,000
 *   payments (plus 5,000 refunds, 2,000 invoices, 1,000 pets with 2,000 vaccinations) spread over the
 *   past 12 months, checked against 0.05 × GET /v1/pets/:id in the same run.
 * The rows go in by direct SQLite inserts into the server's file (WAL lets that happen while it
 * runs): through the API they would take minutes. Every metric is computed from the records on each
 * call (no rollup), through the location-and-date indexes of migration 2026_11_24_1300.
 */
import type autocannon from 'autocannon';
import path from 'node:path';
import { accessToken, benchAdmin, expectStatus, type GatewayServer } from './bench-servers.js';
import type { ModuleBenchCase, PreparedCase } from './module-cases.js';

const zone = 'Europe/London';
const appointments = 100_000;
const payments = 50_000;
const refunds = 5_000;
const invoices = 2_000;
const pets = 1_000;
const days = 365;
const statuses = ['completed', 'completed', 'completed', 'completed', 'cancelled', 'no_show', 'confirmed', 'checked_in'] as const;

async function prepare(gateway: GatewayServer): Promise<PreparedCase> {
  const [{ DateTime }, { default: SQLite }, { newId, randomSecret }] = await Promise.all([
    import('luxon'),
    import('better-sqlite3'),
    import('../../src/db/ids.js'),
  ]);
  const url = gateway.url;
  const admin = await accessToken(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await expectStatus(
    url,
    'POST',
    '/v1/locations',
    201,
    { name: 'Bench analytics clinic', timezone: zone, currency: 'USD', taxRateBps: 825 },
    admin,
  );
  const parent = await expectStatus(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench analytics owner', locationId: location.id }, admin);
  const provider = await expectStatus(url, 'POST', '/v1/providers', 201, { name: 'Bench analytics vet', kind: 'vet', locationIds: [location.id] }, admin);
  const client = await expectStatus(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench analytics', role: 'admin', scopes: ['analytics'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const token = await accessToken(url, String(client.clientId), String(client.clientSecret));

  const today = DateTime.now().setZone(zone).startOf('day');
  const nowIso = new Date().toISOString();
  /** An instant `i` of `n` spread evenly over the past `days` days (local 08:00–18:00). */
  const spread = (i: number, n: number): string => {
    const day = today.minus({ days: days - Math.floor((i * days) / n) });
    return day
      .plus({ minutes: 8 * 60 + ((i * 37) % 600) })
      .toUTC()
      .toISO()!;
  };
  const db = new SQLite(path.join(gateway.dataDir, 'live.sqlite'));
  try {
    db.pragma('busy_timeout = 10000');
    const tenantId = (db.prepare('select id from tenants limit 1').get() as { id: string }).id;
    // Short transactions: the server keeps writing (audit, jobs) while this runs, and waits at most its busy timeout for the lock.
    const inChunks = (count: number, insert: (i: number) => void) => {
      for (let first = 0; first < count; first += 2_000)
        db.transaction(() => {
          for (let i = first; i < Math.min(count, first + 2_000); i++) insert(i);
        })();
    };
    {
      const insertPet = db.prepare(
        `insert into pets (id, tenant_id, location_id, owner_id, name, breed, species, birth_date, last_visit, created_at, updated_at) values (?, ?, ?, ?, ?, 'Mixed', 'dog', null, null, ?, ?)`,
      );
      const insertVaccination = db.prepare(
        `insert into vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, lot_number, provider_id, recorded_by_client_id, recorded_by_role, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, null, null, 'cli_bench', 'admin', ?)`,
      );
      const petIds: string[] = [];
      inChunks(pets, (i) => {
        const id = newId('pet');
        const created = spread(i, pets);
        petIds.push(id);
        insertPet.run(id, tenantId, location.id, parent.id, `Bench pet ${i}`, created, created);
        for (const [k, vaccine] of ['Rabies', 'DHPP'].entries()) {
          const given = today.minus({ days: 30 + ((i * 13 + k * 101) % 400) });
          insertVaccination.run(
            newId('vac'),
            tenantId,
            location.id,
            id,
            vaccine,
            vaccine.toLowerCase(),
            given.toISODate()!,
            given.plus({ years: 1 }).toISODate()!,
            created,
          );
        }
      });
      const insertAppointment = db.prepare(
        `insert into appointments (id, tenant_id, location_id, pet_id, provider_id, type, status, starts_at, ends_at, notes, created_at, updated_at, blocked_from, blocked_until, calendar_token, sequence)
         values (?, ?, ?, ?, ?, 'vet_consultation', ?, ?, ?, null, ?, ?, ?, ?, ?, 0)`,
      );
      inChunks(appointments, (i) => {
        const start = spread(i, appointments);
        const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
        insertAppointment.run(
          newId('apt'),
          tenantId,
          location.id,
          petIds[i % pets],
          provider.id,
          statuses[i % statuses.length],
          start,
          end,
          nowIso,
          nowIso,
          start,
          end,
          `ct_live_${randomSecret(24)}`,
        );
      });
      const insertPayment = db.prepare(
        `insert into payments (id, tenant_id, location_id, parent_id, invoice_id, wallet_id, amount, amount_refunded, currency, method, reference, status, settlement_id, created_at)
         values (?, ?, ?, ?, null, null, ?, ?, 'USD', ?, null, 'succeeded', null, ?)`,
      );
      const insertRefund = db.prepare(
        `insert into refunds (id, tenant_id, location_id, payment_id, invoice_id, amount, currency, reason, status, settlement_id, created_at) values (?, ?, ?, ?, null, ?, 'USD', null, 'succeeded', null, ?)`,
      );
      const methods = ['cash', 'card_terminal', 'bank_transfer', 'check'] as const;
      inChunks(payments, (i) => {
        const id = newId('pay');
        const at = spread(i, payments);
        const amount = 1_000 + ((i * 7919) % 20_000);
        const refunded = i % (payments / refunds) === 0 ? Math.floor(amount / 2) : 0;
        insertPayment.run(id, tenantId, location.id, parent.id, amount, refunded, methods[i % methods.length], at);
        if (refunded > 0) insertRefund.run(newId('ref'), tenantId, location.id, id, refunded, new Date(Date.parse(at) + 86_400_000).toISOString());
      });
      const insertInvoice = db.prepare(
        `insert into invoices (id, tenant_id, location_id, parent_id, pet_id, number, status, currency, subtotal, tax, total, amount_paid, amount_refunded, due_on, subscription_id, created_at, updated_at, finalized_at, paid_at, voided_at, uncollectible_at)
         values (?, ?, ?, ?, null, ?, ?, 'USD', 1000, 0, 1000, ?, 0, null, null, ?, ?, ?, ?, null, null)`,
      );
      inChunks(invoices, (i) => {
        const at = spread(i, invoices);
        const paid = i % 4 !== 0;
        insertInvoice.run(
          newId('inv'),
          tenantId,
          location.id,
          parent.id,
          `BA-${String(i + 1).padStart(6, '0')}`,
          paid ? 'paid' : 'open',
          paid ? 1000 : 0,
          at,
          at,
          at,
          paid ? new Date(Date.parse(at) + 3 * 86_400_000).toISOString() : null,
        );
      });
    }
  } finally {
    db.close();
  }
  // The inserts blocked this process for seconds: let the event loop see the keep-alive sockets the
  // server closed meanwhile, or the next fetch would go out on one of them ("other side closed").
  await new Promise((resolve) => setTimeout(resolve, 200));

  // The last complete month.
  const month = today.minus({ months: 1 });
  const from = month.startOf('month').toISODate()!;
  const to = month.endOf('month').toISODate()!;
  const pathname = `/v1/analytics/summary?from=${from}&to=${to}&locationId=${location.id}`;
  // One call proves the fixtures before the load starts, and says what one answer covers.
  const probe = await expectStatus(url, 'GET', pathname, 200, undefined, token);
  const metrics = probe.metrics as Array<{ name: string; value: number }>;
  const value = (name: string) => metrics.find((m) => m.name === name)?.value;
  const covered =
    `${from}..${to}: appointments ${value('appointments_by_status')}, revenue_net ${value('revenue_net')}, invoices_open ${value('invoices_open')}, ` +
    `no_show_rate ${value('no_show_rate')?.toFixed(3)}, vaccination_compliance_rate ${value('vaccination_compliance_rate')?.toFixed(3)}, active_pets ${value('active_pets')}`;
  if (!value('appointments_by_status')) throw new Error(`the analytics bench month holds no appointments: ${covered}`);
  return {
    options: (): autocannon.Options => ({ url: url + pathname, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }),
    report: () => `one answer: ${covered} (of ${appointments.toLocaleString('en')} appointments and ${payments.toLocaleString('en')} payments over 12 months)`,
  };
}

export const analyticsCase: ModuleBenchCase = {
  key: 'l',
  label: 'GET /v1/analytics/summary, one month over 100,000 appointments and 50,000 payments',
  targetOverGet: 0.05,
  prepare,
};
