import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { listPetParents } from './pet-parents.repository.js';
import { presentPetParent } from './pet-parents.presenter.js';
import { CreatePetParentSchema, ListPetParentsQuery, PetParentParams, PetParentSchema, UpdatePetParentSchema } from './pet-parents.schema.js';
import { createPetParent, getPetParent, patchPetParent } from './pet-parents.service.js';

const tags = ['Pet parents'];

export function petParentRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/pet-parents',
      operationId: 'createPetParent',
      summary: 'Register a pet parent',
      tags,
      access: { scope: 'pets' },
      body: CreatePetParentSchema,
      response: { status: 201, description: 'The new pet parent', schema: PetParentSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentPetParent(await createPetParent(db, actor, body, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pet-parents',
      operationId: 'listPetParents',
      summary: 'List pet parents',
      description: 'Newest first; filter by locationId, exact email or a name substring.',
      tags,
      access: { scope: 'pets.read' },
      query: ListPetParentsQuery,
      response: { status: 200, description: 'A page of pet parents', schema: pageSchema(PetParentSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listPetParents(db, actor, page, query), page, presentPetParent) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pet-parents/:id',
      operationId: 'getPetParent',
      summary: 'Get a pet parent',
      tags,
      access: { scope: 'pets.read' },
      params: PetParentParams,
      response: { status: 200, description: 'The pet parent', schema: PetParentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentPetParent(await getPetParent(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/pet-parents/:id',
      operationId: 'updatePetParent',
      summary: 'Update a pet parent',
      tags,
      access: { scope: 'pets' },
      params: PetParentParams,
      body: UpdatePetParentSchema,
      response: { status: 200, description: 'The updated pet parent', schema: PetParentSchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, params, body }) => ({ body: presentPetParent(await patchPetParent(db, actor, params.id, body, deps.clock.now())) }),
    }),
  ];
}
