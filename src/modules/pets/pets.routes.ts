import type { Clock } from '../../clock.js';
import type { Executor, PetsTable } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentPet } from './pets.presenter.js';
import { listPets } from './pets.repository.js';
import { CreatePetSchema, ListPetsQuery, PetParams, PetSchema, UpdatePetSchema } from './pets.schema.js';
import { createPet, getPet, patchPet } from './pets.service.js';
import { dateOf, statusFrom } from './vaccination-status.js';

const tags = ['Pets'];

/**
 * vaccinationStatus as of the environment's business date (UTC; the sandbox test clock moves it, as it
 * moves the care coordinator's), from the row's own input: the earliest due date the vaccination
 * triggers keep on it (migration denormalize_pet_earliest_due).
 */
const present = (row: PetsTable, today: string) => presentPet(row, statusFrom(row.vaccination_earliest_due ?? null, today));
const businessToday = async (db: Executor, actor: Actor, clock: Clock) => dateOf(await businessNow(db, actor.env, clock));

export function petRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/pets',
      operationId: 'createPet',
      emits: ['pet.registered'],
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
        const today = await businessToday(db, actor, deps.clock);
        return { body: toPage(rows, page, (row) => present(row, today)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pets/:id',
      operationId: 'getPet',
      summary: 'Get a pet',
      description:
        "The seed's pet object (id, name, breed, ownerId, vaccinationStatus, lastVisit) plus species, birthDate, locationId, createdAt, updatedAt and size (small | medium | large | xlarge or null; grooming reads it).",
      tags,
      access: { scope: 'pets.read' },
      params: PetParams,
      response: { status: 200, description: 'The pet', schema: PetSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: present(await getPet(db, actor, params.id), await businessToday(db, actor, deps.clock)) }),
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
      handler: async ({ db, actor, params, body }) => ({
        body: present(await patchPet(db, actor, params.id, body, deps.clock.now()), await businessToday(db, actor, deps.clock)),
      }),
    }),
  ];
}
