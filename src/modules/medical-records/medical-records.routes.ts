import type { Clock } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentMedicalRecord } from './medical-records.presenter.js';
import { amendmentsOf, listMedicalRecords } from './medical-records.repository.js';
import {
  AmendMedicalRecordSchema,
  AmendmentParams,
  CreateMedicalRecordSchema,
  ListMedicalRecordsQuery,
  MedicalRecordParams,
  MedicalRecordSchema,
  PetMedicalParams,
} from './medical-records.schema.js';
import type { MedicalRecordsTable } from './medical-records.table.js';
import { amendMedicalRecord, createMedicalRecord, getMedicalRecord, requireVisiblePet } from './medical-records.service.js';

const tags = ['Medical records'];
const writers = ['doctor', 'admin'] as const;

const appendOnly =
  'Records are append-only (the database refuses UPDATE and DELETE): a correction is an amendment, a new record with ' +
  '`amends` naming the original, which stays visible with `supersededBy` naming its amendment. ';
const visibility = 'The pet must be visible to the caller (another location answers 404); records follow the pet to its current location. ';

/** A record the caller was shown, with its amendment (of the same pet, so of the same visibility). */
async function present(db: Executor, actor: AccessFilter, row: MedicalRecordsTable) {
  return presentMedicalRecord(row, (await amendmentsOf(db, wholeTenant(actor), [row.id])).get(row.id) ?? null);
}

export function medicalRecordRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/pets/:id/medical',
      operationId: 'listPetMedicalRecords',
      summary: "List a pet's medical records",
      description:
        'Needs `medical.read`. ' +
        visibility +
        'Newest first (an amendment, being newer, comes before the record it corrects); filter by kind, or `current=true` for only the versions ' +
        'no amendment supersedes. ' +
        appendOnly,
      tags,
      access: { scope: 'medical.read' },
      params: PetMedicalParams,
      query: ListMedicalRecordsQuery,
      response: { status: 200, description: 'A page of medical records', schema: pageSchema(MedicalRecordSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        const pet = await requireVisiblePet(db, actor, params.id);
        const rows = await listMedicalRecords(db, wholeTenant(actor), pet.id, page, query);
        const successors = await amendmentsOf(
          db,
          wholeTenant(actor),
          rows.map((r) => r.id),
        );
        return { body: toPage(rows, page, (row) => presentMedicalRecord(row, successors.get(row.id) ?? null)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/pets/:id/medical',
      operationId: 'createMedicalRecord',
      summary: "Add a record to a pet's medical history",
      description:
        'Needs `medical` and the doctor or admin role (staff may only read). ' +
        visibility +
        'The kind decides the other fields (see the body). The API client and its role are recorded as the author. ' +
        appendOnly +
        'Emits no event.',
      tags,
      access: { scope: 'medical', roles: writers },
      params: PetMedicalParams,
      body: CreateMedicalRecordSchema,
      response: { status: 201, description: 'The new medical record', schema: MedicalRecordSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentMedicalRecord(await createMedicalRecord(db, actor, params.id, body, deps.clock.now()), null),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/pets/:id/medical/:recordId/amendments',
      operationId: 'amendMedicalRecord',
      summary: 'Correct a medical record with an amendment',
      description:
        'Needs `medical` and the doctor or admin role. Appends the corrected record in full (same kind as the original; kind is ' +
        'not sent) with the reason; the original is kept unchanged and answers `supersededBy` from then on. Only the current ' +
        'version can be amended: amending one already amended answers 409 `conflict` naming its amendment. ' +
        visibility +
        'Emits no event.',
      tags,
      access: { scope: 'medical', roles: writers },
      params: AmendmentParams,
      body: AmendMedicalRecordSchema,
      response: { status: 201, description: 'The amendment (a new medical record)', schema: MedicalRecordSchema },
      errors: ['not_found', 'conflict'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentMedicalRecord(await amendMedicalRecord(db, actor, params.id, params.recordId, body, deps.clock.now()), null),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/medical-records/:id',
      operationId: 'getMedicalRecord',
      summary: 'Get a medical record',
      description: 'Needs `medical.read`. Visible when its pet is visible to the caller; otherwise 404. ' + appendOnly,
      tags,
      access: { scope: 'medical.read' },
      params: MedicalRecordParams,
      response: { status: 200, description: 'The medical record', schema: MedicalRecordSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: await present(db, actor, await getMedicalRecord(db, actor, params.id)) }),
    }),
  ];
}
