import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { CurrencyCode, maxAmount, TaxRateBps } from './money.js';
import { DateOnly, Nullable, ParentId, PetId } from './payment-fields.js';
import { timeRangeFields } from './time-range.js';

export const invoiceStatuses = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export const maxInvoiceLines = 100;
export const maxLineQuantity = 10_000;

export const InvoiceLineSchema = Type.Object(
  {
    id: Type.String({ description: 'Line id (inl_…).' }),
    description: Type.String(),
    quantity: Type.Integer(),
    unitAmount: Type.Integer({ description: 'Minor units per unit.' }),
    amount: Type.Integer({ description: 'quantity × unitAmount, before tax.' }),
    taxRateBps: Type.Integer({ description: "The line's rate: its own, else the location's taxRateBps when written." }),
    taxAmount: Type.Integer({ description: 'round-half-up(amount × taxRateBps / 10000).' }),
    sourceId: Nullable(Type.String({ description: 'What the line bills, e.g. a booking (bkg_…).' })),
  },
  { additionalProperties: false },
);

const money = (description: string) => Type.Integer({ description: `${description} Integer minor units.` });
const instant = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

export const InvoiceSchema = Type.Object(
  {
    id: Type.String({ description: 'Invoice id (inv_…).' }),
    number: Nullable(Type.String({ description: 'Assigned at finalization, gapless per location, e.g. DT-000042; null while draft.' })),
    status: Type.Union(invoiceStatuses.map((s) => Type.Literal(s))),
    parentId: Type.String(),
    petId: Nullable(Type.String()),
    locationId: Type.String(),
    currency: Type.String(),
    lines: Type.Array(InvoiceLineSchema),
    subtotal: money('Sum of line amounts.'),
    tax: money('Sum of line taxes.'),
    total: money('subtotal + tax.'),
    amountPaid: money('Sum of the payments applied (refunds do not lower it).'),
    amountRefunded: money('Sum of the refunds of those payments.'),
    amountDue: money('What is still to pay: total − amountPaid (0 once paid or void).'),
    dueOn: Nullable(Type.String({ format: 'date' })),
    createdAt: Type.String({ format: 'date-time' }),
    finalizedAt: instant('When it left draft.'),
    paidAt: instant('When amountDue reached 0.'),
    voidedAt: instant('When it was voided.'),
  },
  { additionalProperties: false },
);

export const InvoiceLineInput = Type.Object(
  {
    description: NonBlankText(500),
    quantity: Type.Integer({ minimum: 1, maximum: maxLineQuantity, description: 'Whole units, 1 to 10,000.' }),
    unitAmount: Type.Integer({ minimum: 0, maximum: maxAmount, description: 'Minor units per unit, 0 to 10^12; quantity × unitAmount may not pass 10^12.' }),
    taxRateBps: Type.Optional(TaxRateBps),
    sourceId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'What the line bills, e.g. a booking (bkg_…).' }))),
  },
  { additionalProperties: false },
);

const Lines = Type.Array(InvoiceLineInput, { minItems: 1, maxItems: maxInvoiceLines, description: '1 to 100 lines.' });

export const CreateInvoiceSchema = Type.Object(
  {
    parentId: ParentId,
    locationId: LocationId,
    petId: Type.Optional(Nullable(PetId)),
    currency: Type.Optional(CurrencyCode),
    dueOn: Type.Optional(Nullable(DateOnly('When payment is due'))),
    lines: Lines,
    finalize: Type.Optional(Type.Boolean({ description: 'Finalize at once (number assigned, status open, or paid when the total is 0).' })),
  },
  { additionalProperties: false },
);

export const UpdateInvoiceSchema = Type.Object(
  {
    lines: Type.Optional(Lines),
    petId: Type.Optional(Nullable(PetId)),
    currency: Type.Optional(CurrencyCode),
    dueOn: Type.Optional(Nullable(DateOnly('When payment is due'))),
  },
  { additionalProperties: false, minProperties: 1, description: 'Draft invoices only; lines, when given, replace all lines.' },
);

export const ListInvoicesQuery = Type.Object(
  {
    ...pageQueryFields,
    status: Type.Optional(Type.Union(invoiceStatuses.map((s) => Type.Literal(s)))),
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    ...timeRangeFields,
  },
  { additionalProperties: false },
);

export type InvoiceLineInputValue = Static<typeof InvoiceLineInput>;
export type CreateInvoiceInput = Static<typeof CreateInvoiceSchema>;
export type UpdateInvoiceInput = Static<typeof UpdateInvoiceSchema>;
export type ListInvoicesFilters = Static<typeof ListInvoicesQuery>;
