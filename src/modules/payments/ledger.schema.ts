import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { timeRangeFields } from './time-range.js';

export const LedgerEntrySchema = Type.Object(
  {
    id: Type.String({ description: 'Journal entry id (je_…).' }),
    sourceType: Type.String({ description: 'What moved the money: invoice, payment, refund or wallet.' }),
    sourceId: Type.String({ description: 'The record that did (inv_…, pay_…, ref_…, wal_…).' }),
    currency: Type.String({ description: 'ISO 4217; every line of an entry is in it.' }),
    memo: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    lines: Type.Array(
      Type.Object(
        {
          account: Type.String({ description: 'e.g. receivable:usr_…, cash:card_terminal, revenue:loc_…, tax_payable:loc_…, wallet:wal_…' }),
          amount: Type.Integer({ description: 'Signed minor units: positive = debit, negative = credit.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Two or more lines; they sum to 0.' },
    ),
  },
  { additionalProperties: false },
);

export const ListLedgerEntriesQuery = Type.Object(
  {
    ...pageQueryFields,
    account: Type.Optional(Type.String({ minLength: 3, maxLength: 200, description: 'Entries with a line on this account (exact), e.g. wallet:wal_…' })),
    sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Entries caused by this record.' })),
    ...timeRangeFields,
  },
  { additionalProperties: false },
);

export type ListLedgerEntriesFilters = Static<typeof ListLedgerEntriesQuery>;
