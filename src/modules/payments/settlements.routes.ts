import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { IdParams } from './payment-fields.js';
import { presentSettlement } from './settlements.presenter.js';
import { listSettlements } from './settlements.repository.js';
import { ListSettlementsQuery, SettlementSchema } from './settlements.schema.js';
import { getSettlement } from './settlements.service.js';

const tags = ['Settlements'];
const about =
  'daily_close: the `settlement` job closes each location’s local day — the payments and refunds recorded by its end and not counted before, per currency, by method; ' +
  'a closed day is immutable and anything recorded after its close falls into the next close. provider_payout: marketplace statements (DESIGN §12). ' +
  'Scope `payments.read`; a location-scoped client sees its locations’ daily closes only (others answer 404). ';

export function settlementRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/settlements',
      operationId: 'listSettlements',
      summary: 'List settlements',
      description: about + 'Newest first; filters kind, locationId, providerId, from and to (dates of the period).',
      tags,
      access: { scope: 'payments.read' },
      query: ListSettlementsQuery,
      response: { status: 200, description: 'A page of settlements', schema: pageSchema(SettlementSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listSettlements(db, actor, page, {
          kind: query.kind,
          locationId: query.locationId,
          providerId: query.providerId,
          from: query.from,
          to: query.to,
        });
        return { body: toPage(rows, page, presentSettlement) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/settlements/:id',
      operationId: 'getSettlement',
      summary: 'Get a settlement',
      description: about,
      tags,
      access: { scope: 'payments.read' },
      params: IdParams('Settlement id (stl_…).'),
      response: { status: 200, description: 'The settlement', schema: SettlementSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentSettlement(await getSettlement(db, actor, params.id)) }),
    }),
  ];
}
