import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentProvider } from './providers.presenter.js';
import { listProviders } from './providers.repository.js';
import { CreateProviderSchema, ListProvidersQuery, ProviderParams, ProviderSchema, UpdateProviderSchema } from './providers.schema.js';
import { createProvider, getProvider, patchProvider } from './providers.service.js';

const tags = ['Providers'];
const managers = ['admin', 'staff'] as const;

export function providerRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/providers',
      operationId: 'createProvider',
      summary: 'Onboard a provider',
      description:
        'A vet, groomer, sitter, walker or trainer working at one or more locations (each visible to the caller). `services` lists the ' +
        'appointment type codes the provider offers (case-insensitive; an empty or absent list means every type). New providers are `active`. ' +
        'Emits `provider.onboarded`.',
      tags,
      access: { scope: 'bookings', roles: managers },
      body: CreateProviderSchema,
      response: { status: 201, description: 'The new provider', schema: ProviderSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentProvider(await createProvider(db, actor, body, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/providers',
      operationId: 'listProviders',
      summary: 'List providers',
      description:
        'Newest first; filter by locationId, kind, service (an appointment type code; providers offering every type match too) or status. ' +
        'A location-scoped client sees the providers working at its locations.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListProvidersQuery,
      response: { status: 200, description: 'A page of providers', schema: pageSchema(ProviderSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listProviders(db, actor, page, { ...query, service: query.service?.toLowerCase() });
        return { body: toPage(rows, page, presentProvider) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/providers/:id',
      operationId: 'getProvider',
      summary: 'Get a provider',
      description: '`locationIds` lists the locations the caller can see.',
      tags,
      access: { scope: 'bookings.read' },
      params: ProviderParams,
      response: { status: 200, description: 'The provider', schema: ProviderSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentProvider(await getProvider(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/providers/:id',
      operationId: 'updateProvider',
      summary: 'Update a provider',
      description:
        'Renames, changes kind, services or status (`inactive` providers take no new bookings), or replaces the locations. A location-scoped ' +
        'caller replaces only the locations it can see; the provider keeps the others.',
      tags,
      access: { scope: 'bookings', roles: managers },
      params: ProviderParams,
      body: UpdateProviderSchema,
      response: { status: 200, description: 'The updated provider', schema: ProviderSchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, params, body }) => ({ body: presentProvider(await patchProvider(db, actor, params.id, body, deps.clock.now())) }),
    }),
  ];
}
