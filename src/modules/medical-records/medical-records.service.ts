import type { Executor, PetsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, wholeTenant } from '../../http/actor.js';
import { conflict, foundOr404, notFound } from '../../http/errors.js';
import { validateBody } from '../../http/validation.js';
import { findPet } from '../pets/index.js';
import { amendmentsOf, findMedicalRecord, insertMedicalRecord } from './medical-records.repository.js';
import {
  kindSchemas,
  type AmendMedicalRecordInput,
  type CreateMedicalRecordInput,
  type MedicalRecordContent,
  type MedicalRecordKind,
} from './medical-records.schema.js';
import type { MedicalRecordsTable } from './medical-records.table.js';

export async function requireVisiblePet(db: Executor, actor: Actor, petId: string): Promise<PetsTable> {
  return foundOr404(await findPet(db, actor, petId), 'pet', petId);
}

/** 400 naming the field unless the content is exactly what `kind` takes (required fields, no foreign ones). */
function checkContent(kind: MedicalRecordKind, content: MedicalRecordContent): void {
  validateBody(kindSchemas[kind], { kind, ...content });
}

function newRecord(actor: Actor, pet: PetsTable, kind: MedicalRecordKind, content: MedicalRecordContent, now: number): MedicalRecordsTable {
  return {
    id: newId('med'),
    tenant_id: actor.tenantId,
    location_id: pet.location_id,
    pet_id: pet.id,
    kind,
    text: content.text ?? null,
    diagnosis_code: content.code ?? null,
    medication: content.medication ?? null,
    dosage: content.dosage ?? null,
    frequency: content.frequency ?? null,
    duration_days: content.durationDays ?? null,
    weight_kg: content.weightKg ?? null,
    allergen: content.allergen ?? null,
    severity: content.severity ?? null,
    amends: null,
    amendment_reason: null,
    author_client_id: actor.clientId,
    author_role: actor.role,
    created_at: new Date(now).toISOString(),
  };
}

export async function createMedicalRecord(
  db: Executor,
  actor: Actor,
  petId: string,
  input: CreateMedicalRecordInput,
  now: number,
): Promise<MedicalRecordsTable> {
  const pet = await requireVisiblePet(db, actor, petId);
  const { kind, ...content } = input;
  checkContent(kind, content);
  const row = newRecord(actor, pet, kind, content, now);
  await insertMedicalRecord(db, actor, row);
  return row;
}

/**
 * Corrects a record by appending a full replacement of the same kind that names it in `amends`.
 * Only the current version may be amended, so corrections form one chain per original.
 */
export async function amendMedicalRecord(
  db: Executor,
  actor: Actor,
  petId: string,
  recordId: string,
  input: AmendMedicalRecordInput,
  now: number,
): Promise<MedicalRecordsTable> {
  const pet = await requireVisiblePet(db, actor, petId);
  const original = await findMedicalRecord(db, actor, recordId);
  if (!original || original.pet_id !== pet.id) throw notFound('medical record', recordId);
  const successor = (await amendmentsOf(db, wholeTenant(actor), [original.id])).get(original.id);
  if (successor) throw conflict(`Medical record '${original.id}' was already amended by '${successor}'; amend the current version instead.`);
  const { reason, ...content } = input;
  const kind = original.kind as MedicalRecordKind;
  checkContent(kind, content);
  const row: MedicalRecordsTable = { ...newRecord(actor, pet, kind, content, now), amends: original.id, amendment_reason: reason };
  await insertMedicalRecord(db, actor, row);
  return row;
}

export async function getMedicalRecord(db: Executor, actor: Actor, id: string): Promise<MedicalRecordsTable> {
  return foundOr404(await findMedicalRecord(db, actor, id), 'medical record', id);
}
