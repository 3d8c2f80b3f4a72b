import type { Executor, LocationsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import type { AccessFilter } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed, type FieldError } from '../../http/errors.js';
import { emit, type EventData } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findPet } from '../pets/index.js';
import { runInvoicePaidHooks } from './invoice-hooks.js';
import { accounts } from './ledger-accounts.js';
import { postJournal, type JournalPosting } from './ledger.service.js';
import { isCurrency, maxAmount, proportion, taxOf } from './money.js';
import {
  findInvoice,
  findInvoiceWithLines,
  insertInvoice,
  replaceInvoiceLines,
  takeInvoiceNumber,
  updateInvoice,
  type InvoiceWithLines,
} from './invoices.repository.js';
import type { CreateInvoiceInput, InvoiceLineInputValue, UpdateInvoiceInput } from './invoices.schema.js';
import type { InvoiceLinesTable, InvoicesTable, InvoiceStatus } from './payments.table.js';

/**
 * The invoice state machine of DESIGN §9, in one place. Payments move an open invoice towards paid
 * (a zero total is paid by finalizing it); a void, paid or written-off invoice takes none.
 */
const transitions: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['open'],
  open: ['paid', 'void', 'uncollectible'],
  uncollectible: [],
  paid: [],
  void: [],
};

/** The one answer for an invoice whose state forbids an action: 409 invalid_state_transition with `currentStatus`. */
export function invoiceStateConflict(invoice: Pick<InvoicesTable, 'id' | 'status'>, detail: string): AppError {
  return new AppError('invalid_state_transition', `Invoice ${invoice.id} is ${invoice.status}: ${detail}`, { extensions: { currentStatus: invoice.status } });
}

/** 409 invalid_state_transition naming the current status, unless `from → to` is allowed. */
export function assertInvoiceTransition(invoice: Pick<InvoicesTable, 'id' | 'status'>, to: InvoiceStatus, action = `become ${to}`): void {
  if (transitions[invoice.status].includes(to)) return;
  const allowed = transitions[invoice.status].length ? transitions[invoice.status].join(', ') : 'none (final state)';
  throw invoiceStateConflict(invoice, `it cannot ${action}; allowed: ${allowed}.`);
}

/** What is still to pay: total − amountPaid while collectable, else 0. */
export const amountDueOf = (invoice: Pick<InvoicesTable, 'status' | 'total' | 'amount_paid'>): number =>
  invoice.status === 'void' || invoice.status === 'paid' ? 0 : invoice.total - invoice.amount_paid;

/**
 * A location's invoice number prefix: the initials of its name (up to three letters), e.g.
 * "Downtown Clinic" → DC. Fixed at its first invoice, so a rename keeps one series.
 */
export function invoicePrefix(name: string): string {
  const words = name
    .toUpperCase()
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const initials = words
    .map((w) => w[0])
    .join('')
    .slice(0, 3);
  if (initials.length >= 2) return initials;
  const letters = words.join('').slice(0, 2);
  return letters.length === 2 ? letters : 'IN';
}

interface BuiltLines {
  rows: InvoiceLinesTable[];
  subtotal: number;
  tax: number;
}

/** Line amounts and taxes (round half up per line, DESIGN §7); 400 for a line above 10^12. */
function buildLines(invoiceId: string, tenantId: string, lines: readonly InvoiceLineInputValue[], defaultBps: number, now: number): BuiltLines {
  const errors: FieldError[] = [];
  const rows: InvoiceLinesTable[] = [];
  let subtotal = 0;
  let tax = 0;
  lines.forEach((line, position) => {
    const amount = line.quantity * line.unitAmount;
    if (amount > maxAmount) {
      errors.push({ field: `lines[${position}].unitAmount`, message: `quantity × unitAmount is ${amount}; a line may not exceed ${maxAmount}` });
      return;
    }
    const bps = line.taxRateBps ?? defaultBps;
    const taxAmount = taxOf(amount, bps);
    subtotal += amount;
    tax += taxAmount;
    rows.push({
      id: newId('inl'),
      invoice_id: invoiceId,
      tenant_id: tenantId,
      position,
      description: line.description.trim(),
      quantity: line.quantity,
      unit_amount: line.unitAmount,
      amount,
      tax_rate_bps: bps,
      tax_amount: taxAmount,
      source_id: line.sourceId ?? null,
    });
  });
  if (errors.length > 0) throw validationFailed(errors);
  return { rows, subtotal, tax };
}

function checkCurrency(currency: string): void {
  if (!isCurrency(currency)) throw validationFailed([{ field: 'currency', message: `'${currency}' is not an ISO 4217 currency code` }]);
}

/** The pet, when given, must be visible and belong to the parent billed. */
async function checkPet(db: Executor, access: AccessFilter, petId: string | null | undefined, parentId: string): Promise<void> {
  if (petId === undefined || petId === null) return;
  const pet = await findPet(db, access, petId);
  if (!pet) throw missingReference('petId', 'pet', petId);
  if (pet.owner_id !== parentId) throw validationFailed([{ field: 'petId', message: `pet ${petId} belongs to another pet parent` }]);
}

async function requireLocation(db: Executor, access: AccessFilter, locationId: string): Promise<LocationsTable> {
  const location = await findLocation(db, access, locationId);
  if (!location) throw missingReference('locationId', 'location', locationId);
  return location;
}

export async function getInvoice(db: Executor, access: AccessFilter, id: string): Promise<InvoiceWithLines> {
  return foundOr404(await findInvoiceWithLines(db, access, id), 'invoice', id);
}

/**
 * Creates an invoice in the caller's transaction (draft, or finalized with `finalize: true`).
 * Other modules bill through this: boarding check-out, grooming completion, marketplace orders.
 * Lines default to the location's taxRateBps and the invoice to the location's currency.
 */
export async function createInvoice(
  trx: Executor,
  access: AccessFilter,
  input: CreateInvoiceInput,
  now: number,
  options: { subscriptionId?: string } = {},
): Promise<InvoiceWithLines> {
  if (input.currency !== undefined) checkCurrency(input.currency);
  const parent = await findPetParent(trx, access, input.parentId);
  if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
  const location = await requireLocation(trx, access, input.locationId);
  await checkPet(trx, access, input.petId, parent.id);

  const id = newId('inv');
  const built = buildLines(id, access.tenantId, input.lines, location.tax_rate_bps, now);
  const at = isoAt(now);
  const row: InvoicesTable = {
    id,
    tenant_id: access.tenantId,
    location_id: location.id,
    parent_id: parent.id,
    pet_id: input.petId ?? null,
    number: null,
    status: 'draft',
    currency: input.currency ?? location.currency,
    subtotal: built.subtotal,
    tax: built.tax,
    total: built.subtotal + built.tax,
    amount_paid: 0,
    amount_refunded: 0,
    due_on: input.dueOn ?? null,
    subscription_id: options.subscriptionId ?? null,
    created_at: at,
    updated_at: at,
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    uncollectible_at: null,
  };
  await insertInvoice(trx, access, row, built.rows);
  if (input.finalize) return finalizeInvoice(trx, access, id, now);
  return { ...row, lines: built.rows };
}

/** PATCH of a draft: lines (replaced whole), pet, currency, due date. Anything but a draft → 409. */
export async function updateDraftInvoice(trx: Executor, access: AccessFilter, id: string, input: UpdateInvoiceInput, now: number): Promise<InvoiceWithLines> {
  const invoice = await getInvoice(trx, access, id);
  if (invoice.status !== 'draft') throw invoiceStateConflict(invoice, 'only a draft can be edited (finalized invoices are immutable).');
  if (input.currency !== undefined) checkCurrency(input.currency);
  if (input.petId !== undefined) await checkPet(trx, access, input.petId, invoice.parent_id);
  const patch: Partial<InvoicesTable> = { updated_at: isoAt(now) };
  let lines = invoice.lines;
  if (input.lines !== undefined) {
    const location = await requireLocation(trx, access, invoice.location_id);
    const built = buildLines(id, access.tenantId, input.lines, location.tax_rate_bps, now);
    await replaceInvoiceLines(trx, access, id, built.rows);
    lines = built.rows;
    patch.subtotal = built.subtotal;
    patch.tax = built.tax;
    patch.total = built.subtotal + built.tax;
  }
  if (input.petId !== undefined) patch.pet_id = input.petId;
  if (input.currency !== undefined) patch.currency = input.currency;
  if (input.dueOn !== undefined) patch.due_on = input.dueOn;
  await updateInvoice(trx, access, id, patch);
  return { ...invoice, ...patch, lines };
}

/** Only finalized invoices announce themselves, and finalizing numbers them. */
function finalizedNumber(invoice: InvoicesTable): string {
  if (invoice.number === null) throw new Error(`invoice ${invoice.id} has no number: only a finalized invoice emits events`);
  return invoice.number;
}

const invoiceEventData = (invoice: InvoicesTable): EventData<'invoice.finalized'> => ({
  invoiceId: invoice.id,
  number: finalizedNumber(invoice),
  parentId: invoice.parent_id,
  locationId: invoice.location_id,
  total: invoice.total,
  amountDue: amountDueOf(invoice),
  currency: invoice.currency,
});

/**
 * draft → open: takes the location's next number, posts receivable against revenue and tax, and
 * emits invoice.finalized. A total of 0 goes straight to paid (and emits invoice.paid too).
 */
export async function finalizeInvoice(trx: Executor, access: AccessFilter, id: string, now: number): Promise<InvoiceWithLines> {
  const invoice = await getInvoice(trx, access, id);
  assertInvoiceTransition(invoice, 'open', 'be finalized');
  const location = await requireLocation(trx, { tenantId: access.tenantId, locationIds: null }, invoice.location_id);
  const number = await takeInvoiceNumber(trx, access, location.id, invoicePrefix(location.name));
  const at = isoAt(now);
  const status: InvoiceStatus = invoice.total === 0 ? 'paid' : 'open';
  const patch: Partial<InvoicesTable> = { number, status, finalized_at: at, updated_at: at, paid_at: status === 'paid' ? at : null };
  await updateInvoice(trx, access, id, patch);
  const finalized = { ...invoice, ...patch };
  await postJournal(
    trx,
    {
      tenantId: access.tenantId,
      locationId: invoice.location_id,
      sourceType: 'invoice',
      sourceId: id,
      currency: invoice.currency,
      memo: `invoice ${number} finalized`,
      lines: [
        { account: accounts.receivable(invoice.parent_id), amount: invoice.total },
        { account: accounts.revenue(invoice.location_id), amount: -invoice.subtotal },
        { account: accounts.taxPayable(invoice.location_id), amount: -invoice.tax },
      ],
    },
    now,
  );
  await emit(trx, 'invoice.finalized', invoiceEventData(finalized), access.tenantId, now);
  if (status === 'paid') {
    await emit(trx, 'invoice.paid', invoiceEventData(finalized), access.tenantId, now);
    await runInvoicePaidHooks(trx, finalized, now);
  }
  return finalized;
}

/**
 * open → void when nothing stays paid (every payment refunded; else 409 like any forbidden move):
 * reverses what the invoice still carries in revenue and tax — the refunds' credits already
 * reversed their share.
 */
export async function voidInvoice(trx: Executor, access: AccessFilter, id: string, now: number): Promise<InvoiceWithLines> {
  const invoice = await getInvoice(trx, access, id);
  assertInvoiceTransition(invoice, 'void', 'be voided');
  const kept = invoice.amount_paid - invoice.amount_refunded;
  if (kept !== 0) {
    throw invoiceStateConflict(
      invoice,
      `it has ${kept} ${invoice.currency} paid and not refunded, so it cannot be voided; refund its payments first (POST /v1/refunds).`,
    );
  }
  const at = isoAt(now);
  const patch: Partial<InvoicesTable> = { status: 'void', voided_at: at, updated_at: at };
  await updateInvoice(trx, access, id, patch);
  const credited = creditedSoFar(invoice, invoice.amount_refunded);
  const outstanding = invoice.total - invoice.amount_paid;
  await postJournal(
    trx,
    {
      tenantId: access.tenantId,
      locationId: invoice.location_id,
      sourceType: 'invoice',
      sourceId: id,
      currency: invoice.currency,
      memo: `invoice ${invoice.number} voided`,
      lines: [
        { account: accounts.revenue(invoice.location_id), amount: invoice.subtotal - credited.revenue },
        { account: accounts.taxPayable(invoice.location_id), amount: invoice.tax - credited.tax },
        { account: accounts.receivable(invoice.parent_id), amount: -outstanding },
      ],
    },
    now,
  );
  return { ...invoice, ...patch };
}

/** open → uncollectible: writes what is due off to bad debt; the invoice takes no payment after that (DESIGN §9). */
export async function markInvoiceUncollectible(trx: Executor, access: AccessFilter, id: string, now: number): Promise<InvoiceWithLines> {
  const invoice = await getInvoice(trx, access, id);
  assertInvoiceTransition(invoice, 'uncollectible', 'be marked uncollectible');
  const at = isoAt(now);
  const patch: Partial<InvoicesTable> = { status: 'uncollectible', uncollectible_at: at, updated_at: at };
  await updateInvoice(trx, access, id, patch);
  const due = amountDueOf(invoice);
  await postJournal(
    trx,
    {
      tenantId: access.tenantId,
      locationId: invoice.location_id,
      sourceType: 'invoice',
      sourceId: id,
      currency: invoice.currency,
      memo: `invoice ${invoice.number} written off`,
      lines: [
        { account: accounts.badDebt(invoice.location_id), amount: due },
        { account: accounts.receivable(invoice.parent_id), amount: -due },
      ],
    },
    now,
  );
  return { ...invoice, ...patch };
}

/**
 * Revenue and tax already credited back for `refunded` of the invoice's payments: the tax share is
 * round-half-up(refunded × tax / total), taken cumulatively so partial refunds never credit more
 * tax than the invoice charged and a full refund credits exactly all of it.
 */
export function creditedSoFar(invoice: Pick<InvoicesTable, 'tax' | 'total'>, refunded: number): { revenue: number; tax: number } {
  const tax = proportion(refunded, invoice.tax, invoice.total);
  return { tax, revenue: refunded - tax };
}

/**
 * Applies a payment (already validated against the state and amountDue) to an open invoice:
 * amountPaid grows; reaching the total makes it paid (invoice.paid). Returns the updated invoice.
 */
export async function applyPaymentToInvoice(trx: Executor, invoice: InvoicesTable, amount: number, now: number): Promise<InvoicesTable> {
  const at = isoAt(now);
  const amountPaid = invoice.amount_paid + amount;
  const paid = amountPaid === invoice.total;
  const patch: Partial<InvoicesTable> = { amount_paid: amountPaid, updated_at: at };
  if (paid) {
    patch.status = 'paid';
    patch.paid_at = at;
  }
  // The invoice was found by the caller (a payment's, or a hook's): its tenant is enough.
  await updateInvoice(trx, { tenantId: invoice.tenant_id, locationIds: null }, invoice.id, patch);
  const updated = { ...invoice, ...patch };
  if (paid) {
    await emit(trx, 'invoice.paid', invoiceEventData(updated), invoice.tenant_id, now);
    await runInvoicePaidHooks(trx, updated, now);
  }
  return updated;
}

/**
 * Records a refund of one of the invoice's payments: amountRefunded grows (never past amountPaid:
 * a CHECK) and returns the credit that reverses that share of revenue and tax, so the parent's
 * receivable keeps showing exactly what is still due (the caller posts it with the refund's entry).
 */
export async function applyRefundToInvoice(
  trx: Executor,
  tenantId: string,
  invoiceId: string,
  amount: number,
  refundId: string,
  now: number,
): Promise<JournalPosting> {
  // The refund's payment was found through the caller's filter; its invoice follows it.
  const access: AccessFilter = { tenantId, locationIds: null };
  const row = foundOr404(await findInvoice(trx, access, invoiceId), 'invoice', invoiceId);
  const before = creditedSoFar(row, row.amount_refunded);
  const after = creditedSoFar(row, row.amount_refunded + amount);
  await updateInvoice(trx, access, row.id, { amount_refunded: row.amount_refunded + amount, updated_at: isoAt(now) });
  return {
    tenantId: row.tenant_id,
    locationId: row.location_id,
    sourceType: 'invoice',
    sourceId: row.id,
    currency: row.currency,
    memo: `invoice ${row.number}: credit for refund ${refundId}`,
    lines: [
      { account: accounts.revenue(row.location_id), amount: after.revenue - before.revenue },
      { account: accounts.taxPayable(row.location_id), amount: after.tax - before.tax },
      { account: accounts.receivable(row.parent_id), amount: -amount },
    ],
  };
}
