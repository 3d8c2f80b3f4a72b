import { Type, type Static } from '@sinclair/typebox';
import { textKeyword } from '../../http/input-strings.js';
import { pageQueryFields } from '../../http/paging.js';
import { LocationId } from '../locations/index.js';
import { importStatuses, importTypes } from './imports.table.js';

export const ImportTypeSchema = Type.Union(
  importTypes.map((t) => Type.Literal(t)),
  { description: 'What the file holds: pet-parents, pets, vaccinations, medical-records (notes), appointments or providers.' },
);

/** Errors kept per import (the counts go on past it). */
export const maxReportedErrors = 1000;

const RowError = Type.Object(
  {
    row: Type.Integer({ description: 'CSV: the row number with the header as row 1 (as a spreadsheet shows it); NDJSON: the line number.' }),
    field: Type.String({ description: 'The column (after the mapping), or `row` for a row that could not be read.' }),
    message: Type.String({ description: "The API's own validation message." }),
  },
  { additionalProperties: false },
);

export const ImportSchema = Type.Object(
  {
    id: Type.String({ description: 'Import id (imp_…).' }),
    type: ImportTypeSchema,
    status: Type.Union(
      importStatuses.map((s) => Type.Literal(s)),
      { description: 'queued → validating (reads the file once: counts rows, finds duplicate externalIds) → importing → done; or failed, or cancelled.' },
    ),
    dryRun: Type.Boolean({ description: 'true: every row is checked, nothing is written; the counts say what a real run would do.' }),
    format: Type.Union([Type.Literal('csv'), Type.Literal('ndjson')]),
    locationId: Type.Union([Type.String(), Type.Null()], { description: 'Where rows without their own locationId go.' }),
    mapping: Type.Record(Type.String(), Type.String(), { description: 'Source column → column name, as given.' }),
    filename: Type.Union([Type.String(), Type.Null()]),
    sizeBytes: Type.Integer(),
    sha256: Type.String(),
    total: Type.Union([Type.Integer(), Type.Null()], { description: 'Data rows in the file; null until validation has read it.' }),
    processed: Type.Integer({ description: 'Rows done (committed in batches).' }),
    created: Type.Integer(),
    updated: Type.Integer(),
    skipped: Type.Integer({ description: 'Rows with nothing to change (a re-run of the same row), or a medical record imported before.' }),
    failed: Type.Integer({ description: 'Rows refused; the first 1,000 reasons are in errors.' }),
    errors: Type.Array(RowError, { maxItems: maxReportedErrors }),
    failure: Type.Union([Type.String(), Type.Null()], { description: 'Why the whole import failed (status failed).' }),
    createdAt: Type.String({ format: 'date-time' }),
    startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

/**
 * The mapping is JSON text: JSON's whitespace (tab, line breaks) may lay it out, as a mapping file
 * pretty-printed or ending in a newline does; its parsed keys and values are one-line text.
 */
const mappingDescription =
  'A JSON object renaming source columns: {"Client ID": "externalId", …}. It may be pretty-printed (tabs and line breaks between tokens); each column name is one line of text.';

/** The form's text fields, each checked as it arrives (the file part is `file`). */
export const ImportFieldsSchema = Type.Object(
  {
    type: ImportTypeSchema,
    dryRun: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true or false (default false).' })),
    mapping: Type.Optional(Type.String({ maxLength: 16_000, [textKeyword]: 'multiline', description: mappingDescription })),
    locationId: Type.Optional(LocationId),
  },
  { additionalProperties: false },
);

/** The multipart form, as OpenAPI documents it. */
export const ImportFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The CSV (header row first) or NDJSON file, UTF-8 (a byte order mark is fine).' }),
    type: ImportTypeSchema,
    dryRun: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
    mapping: Type.Optional(Type.String({ maxLength: 16_000, [textKeyword]: 'multiline', description: mappingDescription })),
    locationId: Type.Optional(LocationId),
  },
  { additionalProperties: false },
);

export const ImportParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Import id (imp_…).' }) });
export const TemplateParams = Type.Object({ type: ImportTypeSchema });
export const ListImportsQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });

export type ImportOut = Static<typeof ImportSchema>;
export type ImportFields = Static<typeof ImportFieldsSchema>;
