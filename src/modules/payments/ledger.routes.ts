import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentLedgerEntry } from './ledger.presenter.js';
import { listLedgerEntries } from './ledger.repository.js';
import { LedgerEntrySchema, ListLedgerEntriesQuery } from './ledger.schema.js';
import { timeRange } from './time-range.js';

export function ledgerRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/ledger/entries',
      operationId: 'listLedgerEntries',
      summary: 'List journal entries',
      description:
        'The double-entry journal behind every figure: each money movement (invoice finalized, voided, credited or written off; payment; refund; wallet top-up or adjustment) ' +
        'posts one entry whose signed lines (positive = debit, negative = credit) sum to 0 in its currency. Entries are append-only: the database refuses to change or delete them. ' +
        'Newest first; filters account (exact), sourceId, from, to. Admin role with `payments.read`; a location-scoped admin sees its locations only.',
      tags: ['Ledger'],
      access: { scope: 'payments.read', roles: ['admin'] },
      query: ListLedgerEntriesQuery,
      response: { status: 200, description: 'A page of journal entries', schema: pageSchema(LedgerEntrySchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listLedgerEntries(db, actor, page, { account: query.account, sourceId: query.sourceId, range: timeRange(query) });
        return { body: toPage(rows, page, presentLedgerEntry) };
      },
    }),
  ];
}
