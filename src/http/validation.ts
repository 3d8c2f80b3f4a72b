import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { validationFailed, type FieldError } from './errors.js';

// TypeBox checks only the formats it is told about; these are the ones our schemas use.
FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)));
FormatRegistry.Set('date', (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)));

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** JSON pointer `/owner/0/name` → `owner[0].name`, the form clients see in `errors[].field`. */
function fieldName(pointer: string, location: string): string {
  const parts = pointer.split('/').slice(1);
  if (parts.length === 0) return location;
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function collectErrors(check: TypeCheck<TSchema>, value: unknown, location: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of check.Errors(value)) {
    const field = fieldName(e.path, location);
    if (seen.has(field)) continue; // the first error per field is the useful one (unions repeat themselves)
    seen.add(field);
    const message =
      e.message === 'Unexpected property' ? 'is not a recognised field' : e.message === 'Expected required property' ? 'is required' : e.message;
    errors.push({ field, message });
    if (errors.length >= 20) break;
  }
  return errors;
}

/** Validates a parsed JSON body; unknown fields are errors because body schemas forbid them. */
export function validateBody<T>(schema: TSchema, value: unknown): T {
  const check = checker(schema);
  if (check.Check(value)) return value as T;
  throw validationFailed(collectErrors(check, value, 'body'));
}

/** Query strings and path params arrive as strings: convert to the schema's types, then check. */
export function validateStrings<T>(schema: TSchema, value: Record<string, unknown>, location: 'query' | 'params'): T {
  const check = checker(schema);
  const converted = Value.Convert(schema, Value.Default(schema, { ...value }));
  if (check.Check(converted)) return converted as T;
  throw validationFailed(collectErrors(check, converted, location));
}
