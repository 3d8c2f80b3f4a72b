import { Type } from '@sinclair/typebox';

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
