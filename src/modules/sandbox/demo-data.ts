import { createHash, randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import { acrossTenants, insertCallersRow, scoped, type ScopedTable } from '../../db/access-policy.js';
import { runStatement, selectRows, type Executor } from '../../db/database.js';
import { resetSteps, type ModuleManifest } from '../../module-manifest.js';
import { dayMs } from '../../calendar-dates.js';
import { seedDefaultAppointmentTypes } from '../appointments/index.js';
import { createMembership } from '../grooming/index.js';
import { billNextPeriod, createSubscription } from '../payments/index.js';
import { knowledgeDocumentText, planPractice } from './demo-practice.js';

/**
 * Demo data of the sandbox: the practice of demo-practice.ts. Ids of the rows docs and tutorials
 * name are fixed (loc_demo_downtown, usr_demo_alex, pet_demo_bella, prv_demo_chen, vac_demo_…), so
 * a sandbox client scoped to a demo location keeps working across resets.
 */

/** What a seeding wrote, by kind (the reset's answer). */
export interface SeededCounts {
  locations: number;
  petParents: number;
  pets: number;
  providers: number;
  vaccinations: number;
  appointments: number;
  invoices: number;
  payments: number;
  refunds: number;
  wallets: number;
  subscriptions: number;
  boardingStays: number;
  grooms: number;
  memberships: number;
  marketplaceOrders: number;
  reviews: number;
  knowledgeDocuments: number;
}

/**
 * One prepared insert per row (`insertCallersRow`, the hot paths' insert, with the access policy's
 * check): thousands of rows through Kysely's builder cost several times what SQLite takes to write them.
 */
async function insertAll(db: Executor, tenantId: string, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  const access = { tenantId, locationIds: null };
  // The plan's rows are the tables' rows (demo-practice.ts builds each with every column).
  for (const row of rows) await insertCallersRow(db, access, table as ScopedTable, row as never);
}

/**
 * Seeds the demo practice of one sandbox tenant, in the caller's transaction. The bulk goes in as
 * rows (fast: the appliance seeds at first start); subscriptions and grooming memberships go
 * through the payments and grooming services, which bill their past periods from the wallets. No
 * event announces seed data: those the services emitted are taken back before the commit.
 */
export async function insertDemoData(db: Executor, tenantId: string, now: number): Promise<SeededCounts> {
  const plan = planPractice(tenantId, now);
  const [before] = await selectRows<{ seq: number | null }>(
    acrossTenants(db, 'hand-written: the event log position before seeding'),
    'select max(seq) as seq from events',
    [],
  );
  const rows = new Map(plan.tables);
  for (const [table, tableRows] of plan.tables) {
    if (tableRows.length === 0) continue;
    if (table === 'appointments') {
      // Calendar links are secrets: random (sealed later by the appointments housekeeping), never from the seed.
      for (const row of tableRows) row.calendar_token = `ct_test_${randomBytes(18).toString('base64url')}`;
    }
    await insertAll(db, tenantId, table, tableRows);
    if (table === 'invoice_lines') {
      // Lines go on drafts only (a trigger): the invoices reach their final state once their lines are in.
      const invoicesOfTenant = acrossTenants(db, 'hand-written: tenant_id in its text');
      for (const f of plan.finalize) {
        await runStatement(
          invoicesOfTenant,
          `update invoices set number = ?, status = ?, amount_paid = ?, amount_refunded = ?, due_on = ?, updated_at = ?, finalized_at = ?, paid_at = ?
           where id = ? and tenant_id = ? and status = 'draft'`,
          [f.number, f.status, f.amount_paid, f.amount_refunded, f.due_on, f.updated_at, f.finalized_at, f.paid_at, f.id, tenantId],
        );
      }
    }
  }
  for (const counter of plan.counters) {
    await runStatement(
      acrossTenants(db, 'hand-written: tenant_id in its text'),
      'insert into invoice_number_counters (tenant_id, location_id, prefix, last_number) values (?, ?, ?, ?)',
      [counter.tenant_id, counter.location_id, counter.prefix, counter.last_number],
    );
  }
  await seedDefaultAppointmentTypes(db, tenantId, now);
  const access = { tenantId, locationIds: null };
  for (const plan_ of plan.wellnessPlans) {
    // Billed as the practice would have been: created on its start date (billing that first period),
    // then each later period at its start, when the hourly billing job meets the location's midnight;
    // so the invoices', payments' and wallet debits' times are their periods', not the seeding's.
    const localAt = (date: string, time: string) => DateTime.fromISO(`${date}T${time}`, { zone: plan_.timezone }).toMillis();
    const subscription = await createSubscription(
      db,
      access,
      {
        parentId: plan_.parentId,
        petId: plan_.petId,
        locationId: plan_.locationId,
        description: 'Wellness plan: exams, vaccines and 10% off treatments',
        amount: plan_.amount,
        interval: 'month',
        collection: plan_.collection,
        startDate: plan_.startDate,
      },
      Math.min(localAt(plan_.startDate, '10:00'), now),
    );
    for (;;) {
      const [next] = await selectRows<{ current_period_end: string }>(
        acrossTenants(db, 'hand-written: tenant_id in its text'),
        'select current_period_end from subscriptions where id = ? and tenant_id = ?',
        [subscription.id, tenantId],
      );
      const periodAt = next ? localAt(next.current_period_end, '00:05') : now;
      if (periodAt >= now) break;
      while (await billNextPeriod(db, access, subscription.id, periodAt)) {
        // the period that started then (and a retried collection)
      }
    }
    // And what the job would do now: a short wallet retried, an overdue invoice marked past due.
    while (await billNextPeriod(db, access, subscription.id, now)) {
      // nothing left to bill: periods up to now are billed
    }
  }
  for (const m of plan.memberships) {
    await createMembership(
      db,
      access,
      {
        parentId: m.parentId,
        petId: m.petId,
        packageId: m.packageId,
        locationId: m.locationId,
        sessionsPerPeriod: 1,
        price: m.price,
        interval: 'month',
        collection: 'wallet',
      },
      now,
    );
  }
  await insertKnowledgeDocument(db, tenantId, now);
  // Seed data is not news: the events the services emitted go before anything can read them.
  await runStatement(acrossTenants(db, 'hand-written: tenant_id in its text'), 'delete from events where tenant_id = ? and seq > ?', [
    tenantId,
    before?.seq ?? 0,
  ]);
  const count = (table: string) => rows.get(table)?.length ?? 0;
  return {
    locations: count('locations'),
    petParents: count('pet_parents'),
    pets: count('pets'),
    providers: count('providers'),
    vaccinations: count('vaccinations'),
    appointments: count('appointments'),
    invoices: await countRows(db, tenantId, 'invoices'),
    payments: await countRows(db, tenantId, 'payments'),
    refunds: count('refunds'),
    wallets: count('wallets'),
    subscriptions: plan.wellnessPlans.length + plan.memberships.length,
    boardingStays: count('boarding_stays'),
    grooms: count('grooming_appointments'),
    memberships: plan.memberships.length,
    marketplaceOrders: count('marketplace_orders'),
    reviews: count('provider_reviews'),
    knowledgeDocuments: 1,
  };
}

async function countRows(db: Executor, tenantId: string, table: 'invoices' | 'payments'): Promise<number> {
  const [row] = await selectRows<{ n: number }>(
    acrossTenants(db, 'hand-written: tenant_id in its text'),
    `select count(*) as n from ${table} where tenant_id = ?`,
    [tenantId],
  );
  return row?.n ?? 0;
}

/** The clinic handbook as a text document of the demo knowledge service: queued, so the ai-indexing job indexes it (lexical search needs no LLM). */
async function insertKnowledgeDocument(db: Executor, tenantId: string, now: number): Promise<void> {
  const at = new Date(now - 30 * dayMs).toISOString();
  const bytes = Buffer.from(knowledgeDocumentText, 'utf8');
  await insertAll(db, tenantId, 'ai_documents', [
    {
      id: 'kdoc_demo_handbook',
      tenant_id: tenantId,
      service_id: 'ais_demo_handbook',
      title: 'Clinic handbook: policies and aftercare',
      source: 'text',
      content_type: 'text/plain; charset=utf-8',
      filename: 'clinic-handbook.txt',
      source_document_id: null,
      storage_key: null,
      source_text: knowledgeDocumentText,
      size_bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      status: 'uploaded',
      pages: null,
      chunks: null,
      chunks_total: null,
      error: null,
      created_by: 'demo-data',
      created_at: at,
      updated_at: at,
      indexed_at: null,
    },
  ]);
}

/**
 * Erases the tenant's rows of every module (the manifests' `reset`, see `ModuleReset`): each
 * module's own erasure, latest module first, then the plain rows. Clients, tenants, webhook
 * endpoints and the audit trail stay (the manifests' `keeps`).
 */
export async function clearSandboxData(db: Executor, tenantId: string, modules: readonly ModuleManifest[]): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  for (const step of resetSteps(modules)) {
    if (step.kind === 'erase') await step.run(db, tenantId);
    else for (const table of step.tables) await tenant.deleteFrom(table as ScopedTable).execute();
  }
}
