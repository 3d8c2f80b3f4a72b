import type { TSchema } from '@sinclair/typebox';
import { parseInstant } from '../calendar-dates.js';
import type { FieldError } from './errors.js';

/**
 * The rules every string a client sends must keep beyond its schema's shape, applied by the
 * validator to every request (src/http/validation.ts), so no route has to remember them:
 * free text (below), and instants in fields whose pattern starts with a date (a date-or-instant
 * filter), which follow the `date-time` format's rule (src/calendar-dates.ts).
 */

/**
 * What a client may write in a free-text string field (JSON bodies, query strings, path params).
 * A field's kind is its schema's `x-text` keyword when it has one, else read from its property name:
 * - `name` (`name`, `…Name`): one line, and no bidirectional embedding, override or isolate controls
 *   (U+202A–U+202E, U+2066–U+2069), which can make a name read as another in a list;
 * - `multiline` (notes, descriptions, comments, reasons, bodies…): tab, LF and CR allowed;
 * - `document` (`text`: a document's text): also form feed, the page break of a text upload;
 * - `line`: everything else, one line.
 * Every kind refuses the other C0 controls, DEL and C1 controls (U+007F–U+009F), and unpaired
 * surrogates (which no UTF-8 reader can store or show). Strings with a `format` (dates, instants,
 * binary parts of a multipart form), a `const`/`enum`, or a `contentEncoding` (base64 and other
 * opaque encodings) are not text and are left to their own rules.
 */
export type TextKind = 'name' | 'line' | 'multiline' | 'document';

export const textKeyword = 'x-text';

const multilineKeys = new Set([
  'notes',
  'note',
  'description',
  'comment',
  'comments',
  'reply',
  'reason',
  'bio',
  'body',
  'question',
  'instructions',
  'message',
  'summary',
]);
const multilineSuffix = /[a-z](?:Notes|Description|Comment|Reason)$/;

type Json = Record<string, unknown>;

/** Whether a string schema holds text a person wrote (the rules apply), rather than a value with rules of its own. */
export function isTextSchema(schema: Json): boolean {
  return (
    schema.type === 'string' && schema.format === undefined && schema.const === undefined && schema.enum === undefined && schema.contentEncoding === undefined
  );
}

/** The kind of a text field: its `x-text` keyword, else its property name (`key`, the array's name for its items). */
export function textKindOf(schema: Json, key: string | undefined): TextKind {
  const declared = schema[textKeyword];
  if (declared === 'name' || declared === 'line' || declared === 'multiline' || declared === 'document') return declared;
  if (key === undefined) return 'line';
  if (key === 'name' || /[a-z]Name$/.test(key)) return 'name';
  if (key === 'text') return 'document';
  if (multilineKeys.has(key) || multilineSuffix.test(key)) return 'multiline';
  return 'line';
}

// JS regular expressions without the u flag see UTF-16 code units, so a lone surrogate is matchable.
const unpairedSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const refused: Record<TextKind, RegExp> = {
  name: /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
  line: /[\u0000-\u001f\u007f-\u009f]/,
  multiline: /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/,
  document: /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/,
};
const allowedControls: Record<TextKind, string> = {
  name: 'no control characters (a name is one line)',
  line: 'no control characters (one line)',
  multiline: 'no control characters other than tab and line breaks',
  document: 'no control characters other than tab, line breaks and form feed',
};

/** One line for the OpenAPI description of a text field of this kind. */
export const textRuleOf = (kind: TextKind): string =>
  kind === 'name'
    ? 'Text: one line; no control characters, no bidirectional override/embedding/isolate controls (U+202A–U+202E, U+2066–U+2069), no unpaired surrogates.'
    : `Text: ${allowedControls[kind]}; no unpaired surrogates.`;

const codePoint = (unit: number): string => `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a text value is refused, or null when it is fine. */
export function textProblem(value: string, kind: TextKind): string | null {
  const surrogate = unpairedSurrogate.exec(value);
  const control = refused[kind].exec(value);
  if (!surrogate && !control) return null;
  if (surrogate && (!control || surrogate.index < control.index)) {
    return `must not contain an unpaired surrogate (${codePoint(value.charCodeAt(surrogate.index))} at character ${surrogate.index + 1}); send well-formed Unicode`;
  }
  const unit = value.charCodeAt(control!.index);
  const where = `${codePoint(unit)} at character ${control!.index + 1}`;
  if (unit >= 0x202a) return `must not contain a bidirectional control (${where}): a name may hold none of U+202A–U+202E, U+2066–U+2069`;
  return `must not contain a control character (${where}): ${allowedControls[kind]}`;
}

/** Whether `value` matches `schema` (the validator's compiled check): picks the member of a union a value took. */
export type SchemaMatch = (schema: TSchema, value: unknown) => boolean;

const holdsText = new WeakMap<object, boolean>();

/** Whether any text field is reachable in a schema: most are walked once and skipped after. */
function mayHoldText(schema: Json): boolean {
  let known = holdsText.get(schema);
  if (known === undefined) {
    holdsText.set(schema, false); // a recursive schema is not followed twice
    known = isTextSchema(schema) || children(schema).some(mayHoldText);
    holdsText.set(schema, known);
  }
  return known;
}

function children(schema: Json): Json[] {
  const out: Json[] = [];
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[keyword])) out.push(...(schema[keyword] as Json[]));
  if (schema.properties && typeof schema.properties === 'object') out.push(...(Object.values(schema.properties) as Json[]));
  if (schema.patternProperties && typeof schema.patternProperties === 'object') out.push(...(Object.values(schema.patternProperties) as Json[]));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.push(schema.additionalProperties as Json);
  if (schema.items && typeof schema.items === 'object') out.push(schema.items as Json);
  return out;
}

const fieldOf = (path: ReadonlyArray<string | number>, location: string): string =>
  path.length === 0 ? location : path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');

// A pattern that starts with a date (`^\d{4}-\d{2}-\d{2}`…): a date, or a date-time in a date-or-instant filter.
const datedPattern = /^\^\\d\{4\}-\\d\{2\}-\\d\{2\}/;
const zoned = /(?:Z|[+-]\d{2}:\d{2})$/i;

/** Why a string of a string schema is refused beyond its shape, or null. */
function stringProblem(schema: Json, key: string | undefined, value: string): string | null {
  if (typeof schema.pattern === 'string' && datedPattern.test(schema.pattern) && value.length > 10 && zoned.test(value) && parseInstant(value) === null) {
    return 'is not a real instant: a date in years 0001–9999, a time below 24:00, and Z or an offset within −14:00…+14:00 (minutes below 60)';
  }
  return textProblem(value, textKindOf(schema, key));
}

/** patternProperties keys compiled once, not once per property of every request. */
const propertyPatterns = new Map<string, RegExp>();
const propertyPattern = (source: string): RegExp => {
  let compiled = propertyPatterns.get(source);
  if (compiled === undefined) {
    compiled = new RegExp(source);
    propertyPatterns.set(source, compiled);
  }
  return compiled;
};

/**
 * The input rules over a value its schema already accepted: one error per refused field, named as
 * validation names fields (`lines[0].description`). Runs on requests only: answers and stored
 * webhook response bodies may quote anything.
 */
export function inputStringErrors(schema: TSchema, value: unknown, location: string, matches: SchemaMatch): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: Json, item: unknown, key: string | undefined, path: Array<string | number>): void => {
    if (errors.length >= 20 || !mayHoldText(node)) return;
    if (typeof item === 'string' && isTextSchema(node)) {
      const problem = stringProblem(node, key, item);
      if (problem) errors.push({ field: fieldOf(path, location), message: problem });
      return;
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const members = node[keyword];
      if (Array.isArray(members)) {
        const member = (members as Json[]).find((m) => matches(m as TSchema, item));
        if (member) visit(member, item, key, path);
      }
    }
    if (Array.isArray(node.allOf)) for (const member of node.allOf as Json[]) visit(member, item, key, path);
    if (Array.isArray(item)) {
      if (node.items && typeof node.items === 'object') item.forEach((v, i) => visit(node.items as Json, v, key, [...path, i]));
      return;
    }
    if (item === null || typeof item !== 'object') return;
    const properties = (node.properties ?? {}) as Record<string, Json>;
    const patterns = node.patternProperties as Record<string, Json> | undefined;
    const rest = node.additionalProperties && typeof node.additionalProperties === 'object' ? (node.additionalProperties as Json) : undefined;
    for (const [name, v] of Object.entries(item as Record<string, unknown>)) {
      const own = Object.hasOwn(properties, name) ? properties[name] : undefined;
      const patterned = own ?? (patterns ? Object.entries(patterns).find(([p]) => propertyPattern(p).test(name))?.[1] : undefined);
      const child = patterned ?? rest;
      if (child) visit(child, v, own ? name : key, [...path, name]);
    }
  };
  visit(schema as unknown as Json, value, undefined, []);
  return errors;
}

const instantRule = 'Offsets within −14:00…+14:00 (minutes below 60); years 0001–9999.';
const dateRule = 'Years 0001–9999.';

const appendRule = (schema: Json, rule: string): void => {
  schema.description = schema.description ? `${String(schema.description)} ${rule}` : rule;
};

/**
 * Writes the rules on strings into a request schema for OpenAPI (a JSON copy, changed in place):
 * each text field gets `x-text` with its kind and the rule in its description; date-times and
 * dates say their range. A string whose whole value an anchored pattern spells out (ids, codes)
 * already says what it takes, unless the pattern starts with a date.
 */
export function documentInputRules(schema: Json, key?: string): void {
  if (schema.type === 'string' && schema.format === 'date-time') return appendRule(schema, instantRule);
  if (schema.type === 'string' && schema.format === 'date') return appendRule(schema, dateRule);
  if (isTextSchema(schema)) {
    const pattern = typeof schema.pattern === 'string' ? schema.pattern : '';
    if (datedPattern.test(pattern)) return appendRule(schema, pattern.includes('T') ? `Dates and date-times: ${instantRule}` : dateRule);
    if (pattern.startsWith('^') && pattern.endsWith('$')) return;
    const kind = textKindOf(schema, key);
    schema[textKeyword] = kind;
    return appendRule(schema, textRuleOf(kind));
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(schema[keyword])) for (const m of schema[keyword] as Json[]) documentInputRules(m, key);
  if (schema.properties && typeof schema.properties === 'object')
    for (const [name, p] of Object.entries(schema.properties as Record<string, Json>)) documentInputRules(p, name);
  if (schema.patternProperties && typeof schema.patternProperties === 'object')
    for (const p of Object.values(schema.patternProperties as Record<string, Json>)) documentInputRules(p, key);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') documentInputRules(schema.additionalProperties as Json, key);
  if (schema.items && typeof schema.items === 'object') documentInputRules(schema.items as Json, key);
}
