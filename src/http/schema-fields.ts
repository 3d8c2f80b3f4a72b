import { Type, type TSchema } from '@sinclair/typebox';

/** A name-like text field: 1–`maxLength` characters, not only white space. */
export const NonBlankText = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S', description: 'Not blank.' });

/**
 * A reference to a record by its id: `prefix_` and 1–60 lower-case base32 characters or `_` (a new
 * id has 26, `newId`; the sandbox's demo ids are words). The one id field of every module's schemas.
 */
export const RecordId = (prefix: string, what: string) => Type.String({ pattern: `^${prefix}_[a-z0-9_]{1,60}$`, description: `${what} (${prefix}_…).` });

/** Longest `externalId` (the source system's id of an imported record; the column's CHECK says the same). */
export const externalIdMaxLength = 100;

/** `externalId` on a resource: the source system's id kept by an import (DESIGN §17), null for records made through the API. */
export const ExternalIdOut = Type.Union([Type.String(), Type.Null()], {
  description: "The source system's id of an imported record (POST /v1/imports), unique per type; null for records created through the API.",
});

/** The `?externalId=` filter of a list: the one record imported with that id. */
export const ExternalIdFilter = Type.Optional(
  Type.String({ minLength: 1, maxLength: externalIdMaxLength, description: 'Only the record imported with this externalId (exact).' }),
);

/**
 * The one date field: `format: date` (src/http/validation.ts reads it as src/calendar-dates.ts does:
 * a real calendar day, years 0001–9999; 2026-02-30 and 0000-00-00 are 400 on the field).
 */
export const DateOnly = (description = 'A date (YYYY-MM-DD).', example = '2026-11-02') =>
  Type.String({ format: 'date', maxLength: 10, description, examples: [example] });

/** The one instant field: `format: date-time` with Z or an offset within ±14:00 (read by `parseInstant`; answered in UTC). */
export const Instant = (description = 'ISO 8601 date-time with Z or a numeric offset (answered in UTC).', example = '2026-12-01T09:30:00-05:00') =>
  Type.String({ format: 'date-time', maxLength: 40, description, examples: [example] });

/**
 * A local date-time without offset (`2026-12-24T13:00`), read in a location's time zone: the
 * `local-date-time` format (src/http/validation.ts), a real day and a time below 24:00.
 */
export const LocalDateTime = (description = "A local date-time without offset (YYYY-MM-DDTHH:MM[:SS]), read in the location's time zone.") =>
  Type.String({ format: 'local-date-time', maxLength: 29, description, examples: ['2026-12-24T13:00'] });

/** A window boundary that takes a whole day or an instant: `anyOf` a date and a date-time, each checked by its format. */
export const DateOrInstant = (description: string) => Type.Union([DateOnly(), Instant()], { description });

/** A window boundary that also takes a local date-time (schedules' time off). */
export const DateOrLocalOrInstant = (description: string) => Type.Union([DateOnly(), LocalDateTime(), Instant()], { description });

/**
 * The schema option naming what /openapi.json shows instead of a schema, when the validator reads
 * a flatter shape than clients should see (a medical record's body: one object whose fields depend
 * on `kind`, checked per kind by the service; documented as `oneOf` with a `discriminator`).
 */
export const documentedAsKeyword = 'x-documented-as';

/** A schema the validator uses as it is and OpenAPI documents as `shown` (src/http/openapi-components.ts). */
export const documentedAs = <T extends TSchema>(schema: T, shown: TSchema): T => ({ ...schema, [documentedAsKeyword]: shown });
