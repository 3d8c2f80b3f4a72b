import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { validationFailed, type FieldError } from './errors.js';
import { inputStringErrors } from './input-strings.js';
import { isCalendarDate, isLocalDateTime, parseInstant } from '../calendar-dates.js';

// TypeBox checks only the formats it is told about; these are the ones our schemas use. Both read
// values the way the services do (src/calendar-dates.ts), so a field the schema accepts is one the
// service can read: no 24:00, no 2026-02-30, years 0001–9999, offsets within ±14:00 with minutes
// below 60; never silently rolled over.
FormatRegistry.Set('date-time', (value) => parseInstant(value) !== null);
FormatRegistry.Set('date', isCalendarDate);
FormatRegistry.Set('local-date-time', isLocalDateTime);

/** How a refused value of each format is named in the 400's message. */
const formatNames: Record<string, string> = {
  date: 'a calendar date',
  'date-time': 'a real instant (ISO 8601 date-time with Z or an offset within ±14:00, years 0001–9999)',
  'local-date-time': 'a local date-time (YYYY-MM-DDTHH:MM[:SS], a real day, a time below 24:00)',
};

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

/** "Expected union value" helps no one: for a union of literals (an enum) name the allowed values. */
function messageOf(e: { message: string; schema: TSchema; value: unknown }): string {
  if (e.message === 'Unexpected property') return 'is not a recognised field';
  if (e.message === 'Expected required property') return 'is required';
  const format = (e.schema as { format?: unknown }).format;
  if (typeof format === 'string' && typeof e.value === 'string' && format in formatNames) return `'${e.value}' is not ${formatNames[format]}`;
  const members = (e.schema as { anyOf?: unknown }).anyOf;
  const formats = Array.isArray(members)
    ? members.map((m) => (m as { format?: unknown }).format).filter((f): f is string => typeof f === 'string' && f in formatNames)
    : [];
  if (Array.isArray(members) && formats.length > 0 && typeof e.value === 'string') {
    const others = members.length - formats.length === 1 && members.some((m) => (m as { type?: unknown }).type === 'null') ? ' (or null)' : '';
    return `'${e.value}' is not ${formats.map((f) => formatNames[f]).join(', nor ')}${others}`;
  }
  if (Array.isArray(members) && members.length > 0 && members.every((m) => m && typeof m === 'object' && 'const' in m)) {
    return `must be one of: ${members.map((m) => String((m as { const: unknown }).const)).join(', ')}`;
  }
  return e.message;
}

function collectErrors(check: TypeCheck<TSchema>, value: unknown, location: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of check.Errors(value)) {
    const field = fieldName(e.path, location);
    if (seen.has(field)) continue; // the first error per field is the useful one (unions repeat themselves)
    seen.add(field);
    errors.push({ field, message: messageOf(e) });
    if (errors.length >= 20) break;
  }
  return errors;
}

const matches = (schema: TSchema, value: unknown): boolean => checker(schema).Check(value);

/** Checks a value against its schema's shape only: answers (in tests), which may quote any text. */
export function validateShape<T>(schema: TSchema, value: unknown): T {
  const check = checker(schema);
  if (check.Check(value)) return value as T;
  throw validationFailed(collectErrors(check, value, 'body'));
}

/**
 * Validates a parsed request body (JSON, or a form's fields); unknown fields are errors because
 * body schemas forbid them. Then the rules on strings (src/http/input-strings.ts): free text, instants.
 */
export function validateBody<T>(schema: TSchema, value: unknown): T {
  const body = validateShape<T>(schema, value);
  const refused = inputStringErrors(schema, body, 'body', matches);
  if (refused.length > 0) throw validationFailed(refused);
  return body;
}

const integerText = /^-?(?:0|[1-9]\d*)$/;
const numberText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Converts one query/path string to the type its schema wants, strictly. TypeBox's Value.Convert
 * is lenient ("2.5" → 2, "1e3" → 1, "true" → 1, "0x10" → 16), which would quietly turn a wrong
 * `?limit=` into another page size; anything not written plainly stays a string and fails the check.
 */
function convertText(schema: TSchema, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const members = (schema as { anyOf?: TSchema[] }).anyOf;
  if (Array.isArray(members)) {
    for (const member of members) {
      const converted = convertText(member, value);
      if (Value.Check(member, converted)) return converted;
    }
    return value;
  }
  switch ((schema as { type?: unknown }).type) {
    case 'integer':
      return integerText.test(value) ? Number(value) : value;
    case 'number':
      return numberText.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

/** Query strings and path params arrive as strings: convert to the schema's types, then check. */
export function validateStrings<T>(schema: TSchema, value: Record<string, unknown>, location: 'query' | 'params'): T {
  const check = checker(schema);
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const converted: Record<string, unknown> = Value.Default(schema, { ...value }) as Record<string, unknown>;
  for (const [name, raw] of Object.entries(converted)) {
    const property = properties[name];
    if (property) converted[name] = convertText(property, raw);
  }
  if (!check.Check(converted)) throw validationFailed(collectErrors(check, converted, location));
  const refused = inputStringErrors(schema, converted, location, matches);
  if (refused.length > 0) throw validationFailed(refused);
  return converted as T;
}
