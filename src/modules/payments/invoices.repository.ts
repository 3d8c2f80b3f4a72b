import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { wholeTenant, type AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { InvoiceLinesTable, InvoicesTable, InvoiceStatus } from './payments.table.js';
import { runVisibleStatement, sqlText, visibleText } from './money-sql.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';
import type { TimeRange } from './time-range.js';

export interface InvoiceWithLines extends InvoicesTable {
  lines: InvoiceLinesTable[];
}

const invoiceById = visibleById('invoices', 'location_id');

export async function findInvoice(db: Executor, access: AccessFilter, id: string): Promise<InvoicesTable | null> {
  return findVisibleById<InvoicesTable>(db, invoiceById, access, id);
}

export async function findInvoiceWithLines(db: Executor, access: AccessFilter, id: string): Promise<InvoiceWithLines | null> {
  const invoice = await findInvoice(db, access, id);
  if (!invoice) return null;
  const [withLines] = await attachInvoiceLines(db, access, [invoice]);
  return withLines ?? null;
}

export interface InvoiceListFilters {
  status?: InvoiceStatus | undefined;
  parentId?: string | undefined;
  locationId?: string | undefined;
  range: TimeRange;
}

export async function listInvoices(db: Executor, access: AccessFilter, page: PageRequest, filters: InvoiceListFilters): Promise<InvoiceWithLines[]> {
  let query = scoped(db, access).selectFrom('invoices').selectAll();
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.range.from !== undefined) query = query.where('created_at', '>=', filters.range.from);
  if (filters.range.to !== undefined) query = query.where('created_at', '<', filters.range.to);
  return attachInvoiceLines(db, access, await pageQuery(query, page).execute());
}

/** The lines of invoices the caller was shown (so the tenant is enough to find them). */
async function attachInvoiceLines(db: Executor, access: AccessFilter, invoices: InvoicesTable[]): Promise<InvoiceWithLines[]> {
  if (invoices.length === 0) return [];
  const lines = await scoped(db, wholeTenant(access))
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

export async function insertInvoice(db: Executor, access: AccessFilter, row: InvoicesTable, lines: InvoiceLinesTable[]): Promise<void> {
  const queries = scoped(db, access);
  await queries.insert('invoices', row);
  await queries.insert('invoice_lines', lines);
}

/** Replaces the lines of a draft the caller may see (the database refuses this once the invoice is finalized). */
export async function replaceInvoiceLines(db: Executor, access: AccessFilter, invoiceId: string, lines: InvoiceLinesTable[]): Promise<void> {
  const queries = scoped(db, access);
  await queries.deleteFrom('invoice_lines').where('invoice_id', '=', invoiceId).execute();
  await queries.insert('invoice_lines', lines);
}

/** Changes one invoice the caller may see (prepared text: the tenant and locations are in it). */
export async function updateInvoice(db: Executor, access: AccessFilter, id: string, patch: Partial<InvoicesTable>): Promise<void> {
  const columns = Object.keys(patch).filter((c) => patch[c as keyof InvoicesTable] !== undefined);
  const text = sqlText(`update:invoices:${columns.join(',')}`, () => `update "invoices" set ${columns.map((c) => `"${c}" = ?`).join(', ')} where "id" = ?`);
  const visible = visibleText('invoices', access);
  await runVisibleStatement(db, text + visible.text, [...columns.map((c) => patch[c as keyof InvoicesTable]), id, ...visible.parameters]);
}

/**
 * The next number of a location's gapless series, taken in the finalizing transaction: the counter
 * row moves with the invoice, so a rolled-back finalization gives its number back.
 */
export async function takeInvoiceNumber(db: Executor, access: AccessFilter, locationId: string, prefix: string): Promise<string> {
  // An upsert scoped() does not build: the counter row is keyed by the caller's tenant and the invoice's location, both in the text.
  const row = await sql<{ prefix: string; last_number: number }>`
    INSERT INTO invoice_number_counters (tenant_id, location_id, prefix, last_number) VALUES (${access.tenantId}, ${locationId}, ${prefix}, 1)
    ON CONFLICT (tenant_id, location_id) DO UPDATE SET last_number = last_number + 1
    RETURNING prefix, last_number`.execute(acrossTenants(db, 'hand-written: tenant_id and location_id in its text'));
  const taken = row.rows[0];
  if (!taken) throw new Error('invoice number counter returned no row');
  return `${taken.prefix}-${String(taken.last_number).padStart(6, '0')}`;
}
