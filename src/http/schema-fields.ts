import { Type } from '@sinclair/typebox';

/** A name-like text field: 1–`maxLength` characters, not only white space. */
export const NonBlankText = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S', description: 'Not blank.' });

/**
 * A reference to a record by its id: `prefix_` and 1–60 lower-case base32 characters or `_` (a new
 * id has 26, `newId`; the sandbox's demo ids are words). The one id field of every module's schemas.
 */
export const RecordId = (prefix: string, what: string) => Type.String({ pattern: `^${prefix}_[a-z0-9_]{1,60}$`, description: `${what} (${prefix}_…).` });
