import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { documentedAs, ExternalIdFilter, ExternalIdOut, NonBlankText } from '../../http/schema-fields.js';

export const medicalRecordKinds = ['note', 'diagnosis', 'prescription', 'weight', 'allergy'] as const;
export const allergySeverities = ['mild', 'moderate', 'severe'] as const;
export type MedicalRecordKind = (typeof medicalRecordKinds)[number];

const Kind = Type.Union(
  medicalRecordKinds.map((k) => Type.Literal(k)),
  { description: 'What the record is; decides which other fields apply.' },
);
const Severity = Type.Union(
  allergySeverities.map((s) => Type.Literal(s)),
  { description: 'allergy: mild, moderate or severe.' },
);

/** Field schemas shared by the create body, the amendment body and the per-kind checks. */
const fields = {
  text: NonBlankText(10_000),
  code: NonBlankText(50),
  medication: NonBlankText(200),
  dosage: NonBlankText(200),
  frequency: NonBlankText(200),
  durationDays: Type.Integer({ minimum: 1, maximum: 3650, description: 'prescription: days of treatment.' }),
  weightKg: Type.Number({ exclusiveMinimum: 0, maximum: 2000, description: 'weight: kilograms, > 0.' }),
  allergen: NonBlankText(200),
  severity: Severity,
};

/** Every kind-specific field, optional: the documented shape of a body before its kind is applied. */
const kindFields = {
  text: Type.Optional({ ...fields.text, description: 'Free text, up to 10,000 characters. Required for note and diagnosis; a comment for the other kinds.' }),
  code: Type.Optional({ ...fields.code, description: 'diagnosis: a code from your coding system (e.g. VeNom, SNOMED CT).' }),
  medication: Type.Optional({ ...fields.medication, description: 'prescription (required): the medication.' }),
  dosage: Type.Optional({ ...fields.dosage, description: 'prescription (required): e.g. "250 mg".' }),
  frequency: Type.Optional({ ...fields.frequency, description: 'prescription: e.g. "twice daily".' }),
  durationDays: Type.Optional(fields.durationDays),
  weightKg: Type.Optional({ ...fields.weightKg, description: 'weight (required): kilograms, > 0.' }),
  allergen: Type.Optional({ ...fields.allergen, description: 'allergy (required): what the pet reacts to.' }),
  severity: Type.Optional({ ...fields.severity, description: 'allergy (required): mild, moderate or severe.' }),
};

const kindRules =
  'Fields by kind: note {text}; diagnosis {text, code?}; prescription {medication, dosage, frequency?, durationDays?, text?}; ' +
  'weight {weightKg, text?}; allergy {allergen, severity, text?}. A field of another kind is rejected.';

/**
 * The exact shape of each kind, checked after the route's schema (whose flat shape lets a wrong
 * kind field be reported by name instead of an opaque "no union member matched").
 */
export const kindSchemas: Record<MedicalRecordKind, TSchema> = {
  note: Type.Object({ kind: Type.Literal('note'), text: fields.text }, { additionalProperties: false }),
  diagnosis: Type.Object({ kind: Type.Literal('diagnosis'), text: fields.text, code: Type.Optional(fields.code) }, { additionalProperties: false }),
  prescription: Type.Object(
    {
      kind: Type.Literal('prescription'),
      medication: fields.medication,
      dosage: fields.dosage,
      frequency: Type.Optional(fields.frequency),
      durationDays: Type.Optional(fields.durationDays),
      text: Type.Optional(fields.text),
    },
    { additionalProperties: false },
  ),
  weight: Type.Object({ kind: Type.Literal('weight'), weightKg: fields.weightKg, text: Type.Optional(fields.text) }, { additionalProperties: false }),
  allergy: Type.Object(
    { kind: Type.Literal('allergy'), allergen: fields.allergen, severity: fields.severity, text: Type.Optional(fields.text) },
    { additionalProperties: false },
  ),
};

/** Validated flat (a wrong kind's field is named in the 400); documented as one shape per kind, told apart by `kind`. */
export const CreateMedicalRecordSchema = documentedAs(
  Type.Object({ kind: Kind, ...kindFields }, { additionalProperties: false, description: kindRules }),
  Type.Union(Object.values(kindSchemas), { description: kindRules }),
);

export const AmendMedicalRecordSchema = Type.Object(
  { reason: { ...NonBlankText(1000), description: 'Why the record is corrected (up to 1,000 characters).' }, ...kindFields },
  {
    additionalProperties: false,
    description: `The corrected record in full, of the original's kind (kind is not sent). ${kindRules}`,
  },
);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const MedicalRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'Medical record id (med_…).' }),
    petId: Type.String(),
    kind: Kind,
    text: Nullable(Type.String()),
    code: Nullable(Type.String({ description: 'diagnosis only.' })),
    medication: Nullable(Type.String({ description: 'prescription only.' })),
    dosage: Nullable(Type.String({ description: 'prescription only.' })),
    frequency: Nullable(Type.String({ description: 'prescription only.' })),
    durationDays: Nullable(Type.Integer({ description: 'prescription only.' })),
    weightKg: Nullable(Type.Number({ description: 'weight only.' })),
    allergen: Nullable(Type.String({ description: 'allergy only.' })),
    severity: Nullable(Severity),
    amends: Nullable(Type.String({ description: 'The record this one corrects (med_…); null for an original.' })),
    amendmentReason: Nullable(Type.String({ description: 'Why, when this is an amendment.' })),
    supersededBy: Nullable(Type.String({ description: 'The amendment that corrects this record (med_…); null for the current version.' })),
    locationId: Type.String({ description: "The pet's location when this was recorded." }),
    recordedBy: Type.Object(
      { clientId: Type.String({ description: 'API client (cli_…).' }), role: Type.String() },
      { additionalProperties: false, description: 'The API client that wrote the record and its role at the time.' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const PetMedicalParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Pet id (pet_…).' }) });
export const AmendmentParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'Pet id (pet_…).' }),
  recordId: Type.String({ maxLength: 100, description: 'The record to correct (med_…): the current version.' }),
});
export const MedicalRecordParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Medical record id (med_…).' }) });

export const ListMedicalRecordsQuery = Type.Object(
  {
    ...pageQueryFields,
    kind: Type.Optional(
      Type.Union(
        medicalRecordKinds.map((k) => Type.Literal(k)),
        { description: 'Only records of this kind.' },
      ),
    ),
    current: Type.Optional(Type.Boolean({ description: 'true: leave out records an amendment supersedes (only current versions).' })),
    externalId: ExternalIdFilter,
  },
  { additionalProperties: false },
);

export type CreateMedicalRecordInput = Static<typeof CreateMedicalRecordSchema>;
export type AmendMedicalRecordInput = Static<typeof AmendMedicalRecordSchema>;
export type ListMedicalRecordsFilters = Static<typeof ListMedicalRecordsQuery>;
/** The kind-specific content of a record once its kind's schema has accepted it. */
export type MedicalRecordContent = Omit<CreateMedicalRecordInput, 'kind'>;
