import { Type } from '@sinclair/typebox';

/** A name-like text field: 1–`maxLength` characters, not only white space. */
export const NonBlankText = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S', description: 'Not blank.' });
