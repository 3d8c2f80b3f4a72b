import { sql } from 'kysely';
import { runStatement, type Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { InvoiceLinesTable, InvoicesTable, InvoiceStatus } from './payments.table.js';
import { sqlText } from './money-sql.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';
import type { TimeRange } from './time-range.js';

export interface InvoiceWithLines extends InvoicesTable {
  lines: InvoiceLinesTable[];
}

/** The access policy: the tenant, and the caller's locations when it is location-scoped. */
function visible(db: Executor, access: AccessFilter) {
  let query = db.selectFrom('invoices').selectAll().where('tenant_id', '=', access.tenantId);
  if (access.locationIds !== null) query = query.where('location_id', 'in', inList(access.locationIds));
  return query;
}

const invoiceById = visibleById('invoices', 'location_id');

export async function findInvoice(db: Executor, access: AccessFilter, id: string): Promise<InvoicesTable | null> {
  return findVisibleById<InvoicesTable>(db, invoiceById, access, id);
}

export async function findInvoiceWithLines(db: Executor, access: AccessFilter, id: string): Promise<InvoiceWithLines | null> {
  const invoice = await findInvoice(db, access, id);
  if (!invoice) return null;
  const [withLines] = await attachInvoiceLines(db, [invoice]);
  return withLines ?? null;
}

export interface InvoiceListFilters {
  status?: InvoiceStatus | undefined;
  parentId?: string | undefined;
  locationId?: string | undefined;
  range: TimeRange;
}

export async function listInvoices(db: Executor, access: AccessFilter, page: PageRequest, filters: InvoiceListFilters): Promise<InvoiceWithLines[]> {
  let query = visible(db, access);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.range.from !== undefined) query = query.where('created_at', '>=', filters.range.from);
  if (filters.range.to !== undefined) query = query.where('created_at', '<', filters.range.to);
  return attachInvoiceLines(db, await pageQuery(query, page).execute());
}

async function attachInvoiceLines(db: Executor, invoices: InvoicesTable[]): Promise<InvoiceWithLines[]> {
  if (invoices.length === 0) return [];
  const lines = await db
    .selectFrom('invoice_lines')
    .selectAll()
    .where(
      'invoice_id',
      'in',
      invoices.map((i) => i.id),
    )
    .orderBy('invoice_id')
    .orderBy('position')
    .execute();
  const byInvoice = new Map<string, InvoiceLinesTable[]>();
  for (const line of lines) {
    const list = byInvoice.get(line.invoice_id) ?? [];
    list.push(line);
    byInvoice.set(line.invoice_id, list);
  }
  return invoices.map((invoice) => ({ ...invoice, lines: byInvoice.get(invoice.id) ?? [] }));
}

export async function insertInvoice(db: Executor, row: InvoicesTable, lines: InvoiceLinesTable[]): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
  if (lines.length > 0) await db.insertInto('invoice_lines').values(lines).execute();
}

/** Replaces a draft's lines (the database refuses this once the invoice is finalized). */
export async function replaceInvoiceLines(db: Executor, invoiceId: string, lines: InvoiceLinesTable[]): Promise<void> {
  await db.deleteFrom('invoice_lines').where('invoice_id', '=', invoiceId).execute();
  if (lines.length > 0) await db.insertInto('invoice_lines').values(lines).execute();
}

export async function updateInvoice(db: Executor, id: string, patch: Partial<InvoicesTable>): Promise<void> {
  const columns = Object.keys(patch).filter((c) => patch[c as keyof InvoicesTable] !== undefined);
  const text = sqlText(`update:invoices:${columns.join(',')}`, () => `update "invoices" set ${columns.map((c) => `"${c}" = ?`).join(', ')} where "id" = ?`);
  await runStatement(db, text, [...columns.map((c) => patch[c as keyof InvoicesTable]), id]);
}

/**
 * The next number of a location's gapless series, taken in the finalizing transaction: the counter
 * row moves with the invoice, so a rolled-back finalization gives its number back.
 */
export async function takeInvoiceNumber(db: Executor, tenantId: string, locationId: string, prefix: string): Promise<string> {
  const row = await sql<{ prefix: string; last_number: number }>`
    INSERT INTO invoice_number_counters (tenant_id, location_id, prefix, last_number) VALUES (${tenantId}, ${locationId}, ${prefix}, 1)
    ON CONFLICT (tenant_id, location_id) DO UPDATE SET last_number = last_number + 1
    RETURNING prefix, last_number`.execute(db);
  const taken = row.rows[0];
  if (!taken) throw new Error('invoice number counter returned no row');
  return `${taken.prefix}-${String(taken.last_number).padStart(6, '0')}`;
}
