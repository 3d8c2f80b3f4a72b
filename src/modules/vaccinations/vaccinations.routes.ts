import type { Clock } from '../../clock.js';
import { wholeTenant } from '../../http/actor.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentVaccination } from './vaccinations.presenter.js';
import { listVaccinations } from './vaccinations.repository.js';
import { CreateVaccinationSchema, ListVaccinationsQuery, PetVaccinationsParams, VaccinationParams, VaccinationSchema } from './vaccinations.schema.js';
import { createVaccination, getVaccination, requireVisiblePet } from './vaccinations.service.js';

const tags = ['Vaccinations'];

/**
 * Scopes: vaccinations belong to the pet's care record (they drive the pet's vaccinationStatus,
 * read with `pets.read`), and front-desk staff record them from certificates, so they use the
 * `pets` area rather than `medical` (which staff may only read).
 */
const access = 'Needs `pets` to record, `pets.read` to read (vaccinations are part of the pet record; staff may record them). ';
const visibility = 'The pet must be visible to the caller (another location answers 404); records follow the pet to its current location. ';

export function vaccinationRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/pets/:id/vaccinations',
      operationId: 'createVaccination',
      summary: "Record a vaccination in a pet's record",
      description:
        access +
        visibility +
        "administeredOn may not be after today's date at the pet's location; dueOn must be after administeredOn (it may be past when " +
        'recording history). providerId, when given, must name a provider visible to the caller (else 400 resource_missing). Records are not edited: record the next dose as a new vaccination. ' +
        'Emits no event; the daily vaccination-reminders job emits `pet.vaccination_due` from dueOn.',
      tags,
      access: { scope: 'pets' },
      params: PetVaccinationsParams,
      body: CreateVaccinationSchema,
      response: { status: 201, description: 'The new vaccination', schema: VaccinationSchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentVaccination(await createVaccination(db, actor, params.id, body, deps.clock.now())),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pets/:id/vaccinations',
      operationId: 'listPetVaccinations',
      summary: "List a pet's vaccinations",
      description: access + visibility + 'Newest recorded first; filter by vaccine (exact name, case-insensitive).',
      tags,
      access: { scope: 'pets.read' },
      params: PetVaccinationsParams,
      query: ListVaccinationsQuery,
      response: { status: 200, description: 'A page of vaccinations', schema: pageSchema(VaccinationSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        const pet = await requireVisiblePet(db, actor, params.id);
        return { body: toPage(await listVaccinations(db, wholeTenant(actor), pet.id, page, query), page, presentVaccination) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/vaccinations/:id',
      operationId: 'getVaccination',
      summary: 'Get a vaccination',
      description: access + 'Visible when its pet is visible to the caller; otherwise 404.',
      tags,
      access: { scope: 'pets.read' },
      params: VaccinationParams,
      response: { status: 200, description: 'The vaccination', schema: VaccinationSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentVaccination(await getVaccination(db, actor, params.id)) }),
    }),
  ];
}
