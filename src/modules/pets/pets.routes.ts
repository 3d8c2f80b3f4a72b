import type { Clock } from '../../clock.js';
import type { Executor, PetsTable } from '../../db/database.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentPet } from './pets.presenter.js';
import { listPets } from './pets.repository.js';
import { CreatePetSchema, ListPetsQuery, PetParams, PetSchema, UpdatePetSchema } from './pets.schema.js';
import { createPet, patchPet, readPet } from './pets.service.js';
import { dateOf, statusFrom, vaccinationStatuses } from './vaccination-status.js';

const tags = ['Pets'];

/** vaccinationStatus as of the service clock's date (UTC). */
async function present(db: Executor, row: PetsTable, clock: Clock) {
  const statuses = await vaccinationStatuses(db, [row.id], dateOf(clock.now()));
  return presentPet(row, statuses.get(row.id) ?? 'No records');
}

export function petRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/pets',
      operationId: 'createPet',
      summary: 'Register a pet',
      description: 'Emits `pet.registered`. The owner and location must be visible to the caller.',
      tags,
      access: { scope: 'pets' },
      body: CreatePetSchema,
      response: { status: 201, description: 'The new pet', schema: PetSchema },
      errors: ['resource_missing'],
      // A pet registered just now has no vaccination records yet.
      handler: async ({ db, actor, body }) => ({ body: presentPet(await createPet(db, actor, body, deps.clock.now()), 'No records') }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pets',
      operationId: 'listPets',
      summary: 'List pets',
      description: 'Newest first; filter by ownerId, locationId or a name substring.',
      tags,
      access: { scope: 'pets.read' },
      query: ListPetsQuery,
      response: { status: 200, description: 'A page of pets', schema: pageSchema(PetSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listPets(db, actor, page, query);
        const statuses = await vaccinationStatuses(db, rows.map((r) => r.id), dateOf(deps.clock.now()));
        return { body: toPage(rows, page, (row) => presentPet(row, statuses.get(row.id) ?? 'No records')) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pets/:id',
      operationId: 'getPet',
      summary: 'Get a pet',
      description: "The seed's pet object (id, name, breed, ownerId, vaccinationStatus, lastVisit) plus species, birthDate, locationId, createdAt, updatedAt and size (small | medium | large | xlarge or null; grooming reads it).",
      tags,
      access: { scope: 'pets.read' },
      params: PetParams,
      response: { status: 200, description: 'The pet', schema: PetSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => {
        const pet = await readPet(db, actor, params.id);
        return { body: presentPet(pet, statusFrom(pet.earliest_due, dateOf(deps.clock.now()))) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/pets/:id',
      operationId: 'updatePet',
      summary: 'Update a pet',
      description: 'vaccinationStatus and lastVisit are derived from records and visits; they cannot be set.',
      tags,
      access: { scope: 'pets' },
      params: PetParams,
      body: UpdatePetSchema,
      response: { status: 200, description: 'The updated pet', schema: PetSchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, params, body }) => ({ body: await present(db, await patchPet(db, actor, params.id, body, deps.clock.now()), deps.clock) }),
    }),
  ];
}
