import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { listLocations } from './locations.repository.js';
import { presentLocation } from './locations.presenter.js';
import { CreateLocationSchema, ListLocationsQuery, LocationParams, LocationSchema, UpdateLocationSchema } from './locations.schema.js';
import { createLocation, getLocation, patchLocation } from './locations.service.js';

const admin = ['admin'] as const;
const tags = ['Locations'];

export function locationRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/locations',
      operationId: 'createLocation',
      summary: 'Create a location',
      description: 'A clinic, salon or boarding site of the tenant, with the IANA time zone its schedules use. Admin only.',
      tags,
      access: { scope: 'admin', roles: admin },
      body: CreateLocationSchema,
      response: { status: 201, description: 'The new location', schema: LocationSchema },
      handler: async ({ db, actor, body }) => ({ body: presentLocation(await createLocation(db, actor, body, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/locations',
      operationId: 'listLocations',
      summary: 'List locations',
      description: 'Newest first. A location-scoped client sees only its own locations.',
      tags,
      access: { scope: 'admin.read', roles: admin },
      query: ListLocationsQuery,
      response: { status: 200, description: 'A page of locations', schema: pageSchema(LocationSchema) },
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listLocations(db, actor, page), page, presentLocation) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/locations/:id',
      operationId: 'getLocation',
      summary: 'Get a location',
      tags,
      access: { scope: 'admin.read', roles: admin },
      params: LocationParams,
      response: { status: 200, description: 'The location', schema: LocationSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentLocation(await getLocation(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/locations/:id',
      operationId: 'updateLocation',
      summary: 'Update a location',
      tags,
      access: { scope: 'admin', roles: admin },
      params: LocationParams,
      body: UpdateLocationSchema,
      response: { status: 200, description: 'The updated location', schema: LocationSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => ({ body: presentLocation(await patchLocation(db, actor, params.id, body, deps.clock.now())) }),
    }),
  ];
}
