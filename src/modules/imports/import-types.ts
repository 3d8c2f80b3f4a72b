import type { TSchema } from '@sinclair/typebox';
import type { Environment } from '../../config.js';
import { localDate, isCalendarDate, utcDate } from '../../calendar-dates.js';
import type { Database, Executor, PetsTable } from '../../db/database.js';
import { newId, randomSecret } from '../../db/ids.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { externalIdMaxLength } from '../../http/schema-fields.js';
import { validateBody } from '../../http/validation.js';
import { findLocation, missingLocations } from '../locations/index.js';
import { medicalRecordKindSchemas } from '../medical-records/index.js';
import { CreatePetParentSchema, petParentRow } from '../pet-parents/index.js';
import { appointmentStatuses, calendarTokenPrefix } from '../appointments/index.js';
import { CreatePetSchema, recordPetVisit } from '../pets/index.js';
import { CreateProviderSchema } from '../providers/index.js';
import { busyIntervals, holdingStatuses, parseInstant, toIso, unknownAppointmentTypes, type Interval } from '../scheduling/index.js';
import { CreateVaccinationSchema, vaccineKey } from '../vaccinations/index.js';
import type { SourceRow } from './import-rows.js';
import {
  appointmentTypesOf,
  insertImported,
  providerLocationIds,
  replaceProviderLocations,
  rowsByExternalId,
  updateImported,
  type ImportedTable,
} from './imports.repository.js';
import type { ImportType } from './imports.table.js';

/** A column of an import type's file: the API field it fills, or a reference by external id. */
export interface ColumnSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
}

/** What a batch is planned and written with: the importer's access, the import's location, its clock. */
export interface ImportRun {
  readonly db: Executor;
  readonly access: AccessFilter;
  readonly clientId: string;
  readonly role: string;
  /** The form's locationId: where rows without their own go. */
  readonly locationId: string | null;
  readonly now: number;
  /** `now` as the ISO text rows are stamped with. */
  readonly at: string;
  /** Per run: locations the importer may see, by id (null: not visible), with their time zone. */
  readonly locations: Map<string, { timezone: string } | null>;
  /** The environment (calendar links of imported appointments carry its prefix). */
  readonly env: Environment;
  /** Seals the calendar token of an imported appointment, as the API stores it. */
  readonly seal: (plain: string) => string;
}

/** A new row of one of the imported tables, as it is inserted. */
export type ImportedInsert = { [T in ImportedTable]: { readonly table: T; readonly row: Database[T] } }[ImportedTable];

/**
 * A row that passed every check: what it will do, and the write that does it (in the batch's
 * transaction): a plain insert as `insert` (the batch inserts its rows of a table together), any
 * other write as `write`.
 */
export interface RowPlan {
  readonly row: number;
  readonly op: 'create' | 'update' | 'skip';
  readonly insert?: ImportedInsert;
  write?(trx: Executor): Promise<void>;
}

/** A row refused, with every reason found (the API's own messages). */
export interface RowFailure {
  readonly row: number;
  readonly errors: FieldError[];
}

export type Planned = RowPlan | RowFailure;
export const isFailure = (planned: Planned): planned is RowFailure => 'errors' in planned;

export interface TypeHandler {
  readonly columns: readonly ColumnSpec[];
  /** Checks a batch of rows (look-ups for the whole batch at once) and plans each one's write. */
  plan(run: ImportRun, rows: readonly SourceRow[]): Promise<Planned[]>;
}

const externalIdColumn: ColumnSpec = {
  name: 'externalId',
  required: true,
  description: "The record's id in the source system (1–100 characters): a re-run updates the record imported with it.",
};

/** The API's validation of a body (schema and string rules), as row errors instead of a thrown 400. */
function validated<T>(schema: TSchema, body: Record<string, unknown>): { value: T; errors: null } | { value: null; errors: FieldError[] } {
  try {
    return { value: validateBody<T>(schema, body), errors: null };
  } catch (err) {
    if (err instanceof AppError && err.errors) return { value: null, errors: err.errors };
    throw err;
  }
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/** Dates in another format (12/03/2021, 2021-3-12) are refused by name of the expected one, before the API's checks. */
function dateErrors(values: Record<string, string>, fields: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of fields) {
    const value = values[field];
    if (value === undefined) continue;
    if (!datePattern.test(value)) errors.push({ field, message: `'${value.slice(0, 40)}' is not a date in the expected format YYYY-MM-DD` });
    else if (!isCalendarDate(value)) errors.push({ field, message: `'${value}' is not a calendar date` });
  }
  return errors;
}

function booleanOf(value: string | undefined): boolean | undefined | null {
  if (value === undefined) return undefined;
  const text = value.trim().toLowerCase();
  if (['true', 'yes', 'y', '1'].includes(text)) return true;
  if (['false', 'no', 'n', '0'].includes(text)) return false;
  return null;
}

function externalIdErrors(values: Record<string, string>): FieldError[] {
  const id = values.externalId;
  if (id === undefined) return [{ field: 'externalId', message: 'is required' }];
  if (id.length > externalIdMaxLength) return [{ field: 'externalId', message: `must be at most ${externalIdMaxLength} characters` }];
  if (id.trim() === '') return [{ field: 'externalId', message: 'must not be blank' }];
  return [];
}

/** A location the importer may see (looked up once per run), with its time zone; null when it may not. */
async function visibleLocation(run: ImportRun, id: string): Promise<{ timezone: string } | null> {
  if (!run.locations.has(id)) {
    const found = await findLocation(run.db, run.access, id);
    run.locations.set(id, found ? { timezone: found.timezone } : null);
  }
  return run.locations.get(id) ?? null;
}

/** The existing rows of `table` for the batch's external ids, in the whole tenant (a row outside the importer's locations is refused by name). */
async function existingOf<T extends ImportedTable>(run: ImportRun, table: T, rows: readonly SourceRow[]) {
  return rowsByExternalId(
    run.db,
    wholeTenant(run.access),
    table,
    rows.flatMap((r) => (r.values.externalId ? [r.values.externalId] : [])),
  );
}

const outside = (kind: string): FieldError => ({ field: 'externalId', message: `belongs to a ${kind} at a location outside the importer's locations` });
const unknownReference = (field: string, kind: string, id: string, type: ImportType): FieldError => ({
  field,
  message: `no ${kind} with externalId '${id.slice(0, externalIdMaxLength)}' (import the ${type} file first; a record outside the importer's locations is not found either)`,
});

const canSee = (access: AccessFilter, locationId: string): boolean => access.locationIds === null || access.locationIds.includes(locationId);

/** Fields of `patch` that differ from `current`: an unchanged row is skipped, not rewritten. */
function changes<T extends object>(current: T, patch: Partial<T>): Partial<T> | null {
  const changed: Partial<T> = {};
  let any = false;
  for (const [key, value] of Object.entries(patch) as Array<[keyof T, T[keyof T]]>) {
    if ((current[key] ?? null) !== (value ?? null)) {
      changed[key] = value;
      any = true;
    }
  }
  return any ? changed : null;
}

/** A create, an update of what changed (with updated_at, `at`, when the table has one), or a skip. */
function upsertPlan<T extends ImportedTable>(
  run: ImportRun,
  table: T,
  row: number,
  existing: (Database[T] & { id: string }) | undefined,
  create: () => Database[T],
  patch: Partial<Database[T]>,
  stamp: string | null,
): RowPlan {
  if (!existing) return { row, op: 'create', insert: { table, row: create() } as ImportedInsert };
  const changed = changes(existing, patch);
  if (!changed) return { row, op: 'skip' };
  const full = stamp !== null ? ({ ...changed, updated_at: stamp } as Partial<Database[T]>) : changed;
  return { row, op: 'update', write: (trx) => updateImported(trx, run.access, table, existing.id, full) };
}

/** The body's fields that have a value (a new object: `delete` would turn the body into a slow dictionary). */
function definedOnly(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in body) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

const petParents: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'name', required: true, description: 'Full name (1–200 characters).' },
    { name: 'email', required: false, description: 'Email address for reminders.' },
    { name: 'phone', required: false, description: 'Phone number, E.164 preferred.' },
    { name: 'locationId', required: false, description: "loc_…; required unless the import's locationId is given." },
    { name: 'reminderConsent', required: false, description: 'true or false (yes/no, 1/0); default false.' },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'pet_parents', rows);
    const plans: Planned[] = [];
    for (const source of rows) {
      const v = source.values;
      const errors = externalIdErrors(v);
      const consent = booleanOf(v.reminderConsent);
      if (consent === null) errors.push({ field: 'reminderConsent', message: 'must be true or false' });
      const locationId = v.locationId ?? run.locationId ?? undefined;
      const body = definedOnly({ name: v.name, locationId, email: v.email, phone: v.phone, reminderConsent: consent ?? undefined });
      const checked = validated<{ name: string; email?: string | null; phone?: string | null; locationId: string; reminderConsent?: boolean }>(
        CreatePetParentSchema,
        body,
      );
      if (checked.errors) errors.push(...checked.errors);
      if (checked.value && !(await visibleLocation(run, checked.value.locationId))) {
        errors.push({ field: 'locationId', message: `no location with id '${checked.value.locationId}'` });
      }
      const current = v.externalId ? existing.get(v.externalId) : undefined;
      if (current && !canSee(run.access, current.location_id)) errors.push(outside('pet parent'));
      if (errors.length > 0 || !checked.value) {
        plans.push({ row: source.row, errors });
        continue;
      }
      const input = checked.value;
      const externalId = v.externalId as string;
      const at = run.at;
      plans.push(
        upsertPlan(
          run,
          'pet_parents',
          source.row,
          current,
          () => petParentRow(run.access.tenantId, input, at, externalId),
          {
            location_id: input.locationId,
            name: input.name,
            email: input.email ?? null,
            phone: input.phone ?? null,
            reminder_consent: input.reminderConsent ? 1 : 0,
          },
          at,
        ),
      );
    }
    return plans;
  },
};

const pets: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'name', required: true, description: "The pet's name (1–100 characters)." },
    { name: 'breed', required: true, description: 'Breed (1–100 characters).' },
    { name: 'species', required: true, description: 'dog, cat, rabbit, bird, reptile, ferret, guinea_pig, hamster, horse or other.' },
    { name: 'ownerExternalId', required: true, description: 'The externalId of its pet parent (imported before, as pet-parents).' },
    { name: 'locationId', required: false, description: "loc_…; default: the import's locationId, else the owner's location." },
    { name: 'birthDate', required: false, description: 'YYYY-MM-DD, not in the future.' },
    { name: 'size', required: false, description: 'small, medium, large or xlarge.' },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'pets', rows);
    const owners = await rowsByExternalId(
      run.db,
      run.access,
      'pet_parents',
      rows.flatMap((r) => (r.values.ownerExternalId ? [r.values.ownerExternalId] : [])),
    );
    const today = utcDate(run.now);
    const plans: Planned[] = [];
    for (const source of rows) {
      const v = source.values;
      const errors = [...externalIdErrors(v), ...dateErrors(v, ['birthDate'])];
      const owner = v.ownerExternalId ? owners.get(v.ownerExternalId) : undefined;
      if (v.ownerExternalId === undefined) errors.push({ field: 'ownerExternalId', message: 'is required' });
      else if (!owner) errors.push(unknownReference('ownerExternalId', 'pet parent', v.ownerExternalId, 'pet-parents'));
      const locationId = v.locationId ?? run.locationId ?? owner?.location_id;
      const body = definedOnly({
        name: v.name,
        breed: v.breed,
        species: v.species,
        ownerId: owner?.id ?? 'usr_unresolved',
        locationId: locationId ?? 'loc_unresolved',
        birthDate: v.birthDate,
        size: v.size,
      });
      const checked = validated<{
        name: string;
        breed: string;
        species: string;
        ownerId: string;
        locationId: string;
        birthDate?: string | null;
        size?: string | null;
      }>(CreatePetSchema, body);
      if (checked.errors) errors.push(...checked.errors.filter((e) => !(e.field === 'birthDate' && errors.some((o) => o.field === 'birthDate'))));
      if (v.birthDate !== undefined && datePattern.test(v.birthDate) && isCalendarDate(v.birthDate) && v.birthDate > today) {
        errors.push({ field: 'birthDate', message: 'cannot be in the future' });
      }
      if (owner && checked.value && !(await visibleLocation(run, checked.value.locationId))) {
        errors.push({ field: 'locationId', message: `no location with id '${checked.value.locationId}'` });
      }
      const current = v.externalId ? existing.get(v.externalId) : undefined;
      if (current && !canSee(run.access, current.location_id)) errors.push(outside('pet'));
      if (errors.length > 0 || !checked.value || !owner) {
        plans.push({ row: source.row, errors });
        continue;
      }
      const input = checked.value;
      const externalId = v.externalId as string;
      const at = run.at;
      const fields = {
        location_id: input.locationId,
        owner_id: owner.id,
        name: input.name,
        breed: input.breed,
        species: input.species,
        birth_date: input.birthDate ?? null,
        size: input.size ?? null,
      };
      plans.push(
        upsertPlan(
          run,
          'pets',
          source.row,
          current,
          (): PetsTable => ({
            id: newId('pet'),
            tenant_id: run.access.tenantId,
            ...fields,
            last_visit: null,
            created_at: at,
            updated_at: at,
            external_id: externalId,
          }),
          fields,
          at,
        ),
      );
    }
    return plans;
  },
};

/** The pets a batch of rows refers to by `petExternalId`, visible to the importer. */
const petsOf = (run: ImportRun, rows: readonly SourceRow[]) =>
  rowsByExternalId(
    run.db,
    run.access,
    'pets',
    rows.flatMap((r) => (r.values.petExternalId ? [r.values.petExternalId] : [])),
  );

const vaccinations: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'petExternalId', required: true, description: 'The externalId of the pet (imported before, as pets).' },
    { name: 'vaccine', required: true, description: 'Vaccine name, e.g. Rabies.' },
    { name: 'administeredOn', required: true, description: "YYYY-MM-DD; not after today's date at the pet's location, nor before its birthDate." },
    { name: 'dueOn', required: true, description: 'YYYY-MM-DD, after administeredOn: when the next dose is due (reminded as usual when it comes).' },
    { name: 'lotNumber', required: false, description: 'Lot number (1–100 characters).' },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'vaccinations', rows);
    const petsByExternal = await petsOf(run, rows);
    const plans: Planned[] = [];
    // Today at each pet's location, once per batch.
    const todays = new Map<string, string>();
    for (const source of rows) {
      const v = source.values;
      const errors = [...externalIdErrors(v), ...dateErrors(v, ['administeredOn', 'dueOn'])];
      const pet = v.petExternalId ? petsByExternal.get(v.petExternalId) : undefined;
      if (v.petExternalId === undefined) errors.push({ field: 'petExternalId', message: 'is required' });
      else if (!pet) errors.push(unknownReference('petExternalId', 'pet', v.petExternalId, 'pets'));
      const body = definedOnly({ vaccine: v.vaccine, administeredOn: v.administeredOn, dueOn: v.dueOn, lotNumber: v.lotNumber });
      const checked = validated<{ vaccine: string; administeredOn: string; dueOn: string; lotNumber?: string | null }>(CreateVaccinationSchema, body);
      // The format message above already names these fields.
      if (checked.errors) errors.push(...checked.errors.filter((e) => !errors.some((o) => o.field === e.field)));
      if (checked.value && pet && errors.length === 0) {
        // The API's rules (POST /v1/pets/:id/vaccinations), with its messages.
        const input = checked.value;
        let today = todays.get(pet.location_id);
        if (today === undefined) {
          const place = await visibleLocation(run, pet.location_id);
          today = place ? localDate(run.now, place.timezone) : utcDate(run.now);
          todays.set(pet.location_id, today);
        }
        if (input.administeredOn > today)
          errors.push({ field: 'administeredOn', message: `cannot be in the future (today is ${today} at the pet's location)` });
        if (input.dueOn <= input.administeredOn) errors.push({ field: 'dueOn', message: 'must be after administeredOn' });
        const earliest = pet.birth_date ?? '1900-01-01';
        if (input.administeredOn < earliest)
          errors.push({ field: 'administeredOn', message: `cannot be before ${pet.birth_date ? "the pet's birthDate" : '1900'} (${earliest})` });
        if (input.dueOn > '2199-12-31') errors.push({ field: 'dueOn', message: 'must be before 2200' });
      }
      const current = v.externalId ? existing.get(v.externalId) : undefined;
      if (current && !canSee(run.access, current.location_id)) errors.push(outside('vaccination'));
      if (errors.length > 0 || !checked.value || !pet) {
        plans.push({ row: source.row, errors });
        continue;
      }
      const input = checked.value;
      const externalId = v.externalId as string;
      const vaccine = input.vaccine.trim();
      const fields = {
        pet_id: pet.id,
        location_id: pet.location_id,
        vaccine,
        vaccine_key: vaccineKey(vaccine),
        administered_on: input.administeredOn,
        due_on: input.dueOn,
        lot_number: input.lotNumber?.trim() ?? null,
      };
      plans.push(
        upsertPlan(
          run,
          'vaccinations',
          source.row,
          current,
          () => ({
            id: newId('vac'),
            tenant_id: run.access.tenantId,
            ...fields,
            provider_id: null,
            recorded_by_client_id: run.clientId,
            recorded_by_role: run.role,
            created_at: run.at,
            external_id: externalId,
          }),
          fields,
          null,
        ),
      );
    }
    return plans;
  },
};

const medicalRecords: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'petExternalId', required: true, description: 'The externalId of the pet (imported before, as pets).' },
    {
      name: 'text',
      required: true,
      description: 'The note (1–10,000 characters). Imported as kind note; records are append-only, so a re-run skips a note imported before.',
    },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'medical_records', rows);
    const petsByExternal = await petsOf(run, rows);
    const plans: Planned[] = [];
    for (const source of rows) {
      const v = source.values;
      const errors = externalIdErrors(v);
      const pet = v.petExternalId ? petsByExternal.get(v.petExternalId) : undefined;
      if (v.petExternalId === undefined) errors.push({ field: 'petExternalId', message: 'is required' });
      else if (!pet) errors.push(unknownReference('petExternalId', 'pet', v.petExternalId, 'pets'));
      const checked = validated<{ kind: 'note'; text: string }>(
        medicalRecordKindSchemas.note,
        v.text === undefined ? { kind: 'note' } : { kind: 'note', text: v.text },
      );
      if (checked.errors) errors.push(...checked.errors);
      const current = v.externalId ? existing.get(v.externalId) : undefined;
      if (current && !canSee(run.access, current.location_id)) errors.push(outside('medical record'));
      if (errors.length > 0 || !checked.value || !pet) {
        plans.push({ row: source.row, errors });
        continue;
      }
      if (current) {
        plans.push({ row: source.row, op: 'skip' });
        continue;
      }
      const row: Database['medical_records'] = {
        id: newId('med'),
        tenant_id: run.access.tenantId,
        location_id: pet.location_id,
        pet_id: pet.id,
        kind: 'note',
        text: checked.value.text,
        diagnosis_code: null,
        medication: null,
        dosage: null,
        frequency: null,
        duration_days: null,
        weight_kg: null,
        allergen: null,
        severity: null,
        amends: null,
        amendment_reason: null,
        author_client_id: run.clientId,
        author_role: run.role,
        created_at: run.at,
        external_id: v.externalId as string,
      };
      plans.push({ row: source.row, op: 'create', insert: { table: 'medical_records', row } });
    }
    return plans;
  },
};

/** A list cell: values separated by `;`, `|` or blanks (`loc_a;loc_b`). */
const listOf = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(/[;|\s]+/)
        .map((v) => v.trim())
        .filter((v) => v !== '');

const providers: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'name', required: true, description: 'Display name (1–200 characters).' },
    { name: 'kind', required: true, description: 'vet, groomer, sitter, walker or trainer.' },
    { name: 'locationIds', required: false, description: "Where the provider works: loc_… ids separated by ; (default: the import's locationId)." },
    { name: 'services', required: false, description: 'Appointment type codes separated by ; (empty: every type).' },
    { name: 'status', required: false, description: 'active or inactive (default active).' },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'providers', rows);
    const current = await rowsByExternalId(
      run.db,
      run.access,
      'providers',
      rows.flatMap((r) => (r.values.externalId ? [r.values.externalId] : [])),
    );
    const plans: Planned[] = [];
    for (const source of rows) {
      const v = source.values;
      const errors = externalIdErrors(v);
      const locationIds = listOf(v.locationIds) ?? (run.locationId ? [run.locationId] : []);
      const body = definedOnly({ name: v.name, kind: v.kind, locationIds, services: listOf(v.services) });
      const checked = validated<{ name: string; kind: string; locationIds: string[]; services?: string[] }>(CreateProviderSchema, body);
      if (checked.errors) errors.push(...checked.errors);
      const status = v.status?.trim().toLowerCase() ?? 'active';
      if (status !== 'active' && status !== 'inactive') errors.push({ field: 'status', message: 'must be one of: active, inactive' });
      let services: string[] = [];
      if (checked.value) {
        const missing = await missingLocations(run.db, run.access, checked.value.locationIds);
        for (const id of missing) errors.push({ field: `locationIds[${checked.value.locationIds.indexOf(id)}]`, message: `no location with id '${id}'` });
        services = [...new Set((checked.value.services ?? []).map((s) => s.toLowerCase()))].sort();
        for (const code of await unknownAppointmentTypes(run.db, run.access, services)) {
          errors.push({ field: `services[${services.indexOf(code)}]`, message: `unknown appointment type '${code}'` });
        }
      }
      const found = v.externalId ? existing.get(v.externalId) : undefined;
      // A provider is visible to a confined importer through a location it works at (its policy).
      if (found && v.externalId && !current.has(v.externalId)) errors.push(outside('provider'));
      if (found && found.status !== 'active' && found.status !== 'inactive') {
        errors.push({ field: 'externalId', message: `names a marketplace provider (${found.status}); imports update staff providers only` });
      }
      if (errors.length > 0 || !checked.value) {
        plans.push({ row: source.row, errors });
        continue;
      }
      const input = checked.value;
      const externalId = v.externalId as string;
      const locations = [...new Set(input.locationIds)].sort();
      const at = run.at;
      const fields = { name: input.name, kind: input.kind, status, services: JSON.stringify(services) };
      if (!found) {
        const row: Database['providers'] = {
          id: newId('prv'),
          tenant_id: run.access.tenantId,
          ...fields,
          rating: null,
          rating_count: 0,
          created_at: at,
          updated_at: at,
          external_id: externalId,
        };
        plans.push({
          row: source.row,
          op: 'create',
          write: async (trx) => {
            await insertImported(trx, run.access, 'providers', row);
            await replaceProviderLocations(trx, run.access, row.id, run.access.tenantId, locations);
          },
        });
        continue;
      }
      const changed = changes(found, fields);
      const known = (await providerLocationIds(run.db, run.access, found.id)).join(';');
      if (!changed && known === locations.join(';')) {
        plans.push({ row: source.row, op: 'skip' });
        continue;
      }
      plans.push({
        row: source.row,
        op: 'update',
        write: async (trx) => {
          await updateImported(trx, run.access, 'providers', found.id, { ...(changed ?? {}), updated_at: at });
          await replaceProviderLocations(trx, run.access, found.id, run.access.tenantId, locations);
        },
      });
    }
    return plans;
  },
};

const minuteMs = 60_000;
const statusList = appointmentStatuses.join(', ');

const appointments: TypeHandler = {
  columns: [
    externalIdColumn,
    { name: 'petExternalId', required: true, description: 'The externalId of the pet (imported before, as pets).' },
    { name: 'providerExternalId', required: true, description: 'The externalId of the provider (imported before, as providers).' },
    { name: 'type', required: true, description: 'Appointment type code of the tenant (case-insensitive), e.g. vet_consultation: it gives the duration.' },
    { name: 'startsAt', required: true, description: 'ISO 8601 instant with offset, e.g. 2024-03-01T09:30:00Z.' },
    { name: 'status', required: false, description: `${statusList}; default completed for a past start, confirmed for a future one.` },
    { name: 'locationId', required: false, description: "loc_…; default: the import's locationId, else the pet's location." },
    { name: 'notes', required: false, description: 'Free text (up to 2,000 characters).' },
  ],
  async plan(run, rows) {
    const existing = await existingOf(run, 'appointments', rows);
    const petsByExternal = await petsOf(run, rows);
    const providers = await rowsByExternalId(
      run.db,
      run.access,
      'providers',
      rows.flatMap((r) => (r.values.providerExternalId ? [r.values.providerExternalId] : [])),
    );
    const types = await appointmentTypesOf(run.db, run.access);
    // Future visits of this batch, per provider: a file must not double-book a provider either.
    const planned = new Map<string, Interval[]>();
    const plans: Planned[] = [];
    for (const source of rows) {
      const v = source.values;
      const errors = externalIdErrors(v);
      const pet = v.petExternalId ? petsByExternal.get(v.petExternalId) : undefined;
      if (v.petExternalId === undefined) errors.push({ field: 'petExternalId', message: 'is required' });
      else if (!pet) errors.push(unknownReference('petExternalId', 'pet', v.petExternalId, 'pets'));
      const provider = v.providerExternalId ? providers.get(v.providerExternalId) : undefined;
      if (v.providerExternalId === undefined) errors.push({ field: 'providerExternalId', message: 'is required' });
      else if (!provider) errors.push(unknownReference('providerExternalId', 'provider', v.providerExternalId, 'providers'));
      const type = v.type === undefined ? undefined : types.get(v.type.trim().toLowerCase());
      if (v.type === undefined) errors.push({ field: 'type', message: 'is required' });
      else if (!type) errors.push({ field: 'type', message: `unknown appointment type '${v.type.slice(0, 50)}'` });
      const start = v.startsAt === undefined ? null : parseInstant(v.startsAt);
      if (v.startsAt === undefined) errors.push({ field: 'startsAt', message: 'is required' });
      else if (start === null)
        errors.push({
          field: 'startsAt',
          message: `'${v.startsAt.slice(0, 40)}' is not a date-time in the expected format (ISO 8601 with an offset, e.g. 2024-03-01T09:30:00Z)`,
        });
      const future = start !== null && start >= run.now;
      const status = v.status?.trim().toLowerCase() ?? (future ? 'confirmed' : 'completed');
      if (!(appointmentStatuses as readonly string[]).includes(status)) errors.push({ field: 'status', message: `must be one of: ${statusList}` });
      else if (future && !['confirmed', 'cancelled'].includes(status))
        errors.push({ field: 'status', message: 'a future appointment is confirmed or cancelled' });
      if (v.notes !== undefined && v.notes.length > 2000) errors.push({ field: 'notes', message: 'must be at most 2000 characters' });
      const locationId = v.locationId ?? run.locationId ?? pet?.location_id;
      if (locationId !== undefined && !(await visibleLocation(run, locationId)))
        errors.push({ field: 'locationId', message: `no location with id '${locationId}'` });
      const current = v.externalId ? existing.get(v.externalId) : undefined;
      if (current && !canSee(run.access, current.location_id)) errors.push(outside('appointment'));
      if (errors.length > 0 || !pet || !provider || !type || start === null || locationId === undefined) {
        plans.push({ row: source.row, errors });
        continue;
      }
      const end = start + type.duration_minutes * minuteMs;
      const blocked: Interval = { from: start - type.buffer_before_minutes * minuteMs, to: end + type.buffer_after_minutes * minuteMs };
      // A visit still to come holds its provider's time as a booking does: no double booking, in the file or with the calendar.
      if (future && (holdingStatuses as readonly string[]).includes(status)) {
        const busy = [
          ...((await busyIntervals(run.db, [provider.id], blocked.from, blocked.to, current?.id)).get(provider.id) ?? []),
          ...(planned.get(provider.id) ?? []),
        ];
        if (busy.some((b) => b.from < blocked.to && blocked.from < b.to)) {
          plans.push({
            row: source.row,
            errors: [{ field: 'startsAt', message: `the provider already has an appointment at ${toIso(start)}–${toIso(end)} (buffers included)` }],
          });
          continue;
        }
        planned.set(provider.id, [...(planned.get(provider.id) ?? []), blocked]);
      }
      const at = run.at;
      const fields = {
        location_id: locationId,
        pet_id: pet.id,
        provider_id: provider.id,
        type: type.code,
        status,
        starts_at: toIso(start),
        ends_at: toIso(end),
        notes: v.notes ?? null,
        blocked_from: toIso(blocked.from),
        blocked_until: toIso(blocked.to),
      };
      const visit = status === 'completed' ? localDate(start, (await visibleLocation(run, locationId))?.timezone ?? 'UTC') : null;
      const recordVisit = async (trx: Executor) => {
        if (visit) await recordPetVisit(trx, run.access, pet.id, visit, at);
      };
      if (!current) {
        const row: Database['appointments'] = {
          id: newId('apt'),
          tenant_id: run.access.tenantId,
          ...fields,
          created_at: at,
          updated_at: at,
          calendar_token: run.seal(calendarTokenPrefix[run.env] + randomSecret(24)),
          sequence: 0,
          external_id: v.externalId as string,
        };
        plans.push({
          row: source.row,
          op: 'create',
          write: async (trx) => {
            await insertImported(trx, run.access, 'appointments', row);
            await recordVisit(trx);
          },
        });
        continue;
      }
      const changed = changes(current, fields);
      if (!changed) {
        plans.push({ row: source.row, op: 'skip' });
        continue;
      }
      plans.push({
        row: source.row,
        op: 'update',
        write: async (trx) => {
          await updateImported(trx, run.access, 'appointments', current.id, { ...changed, updated_at: at, sequence: current.sequence + 1 });
          await recordVisit(trx);
        },
      });
    }
    return plans;
  },
};

/** The import types built so far, by type; the others are refused at upload with a message. */
export const typeHandlers: Partial<Record<ImportType, TypeHandler>> = {
  'pet-parents': petParents,
  pets,
  vaccinations,
  'medical-records': medicalRecords,
  appointments,
  providers,
};

/** The columns of a type's CSV template, in order. */
export const templateColumns = (type: ImportType): readonly ColumnSpec[] => typeHandlers[type]?.columns ?? [];
