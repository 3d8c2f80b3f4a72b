/**
 * An example value for a schema, for /openapi.json's request and response examples (issue 28 §2):
 * deterministic (the same document on every build), taken from the schema's own `examples`,
 * `default`, `const` or `enum` where it has them, else made up from its type, format and pattern.
 * test/gateway/openapi-components.test.ts checks every example against its route's schema.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const formatExamples: Record<string, string> = {
  date: '2026-11-02',
  'date-time': '2026-11-02T09:30:00Z',
  'local-date-time': '2026-11-02T09:30',
  email: 'alex@example.com',
  uri: 'https://example.com/',
  uuid: '0b5c7e1e-8c1a-4d5e-9a55-3f1f2b7c9d10',
};

/** Candidates for a string with a pattern, tried in order against the pattern and the length limits. */
const stringCandidates = ['Example', 'example', '09:00', '08:00', 'USD', 'GBP', 'en', 'a', 'A1', '1', 'dog', 'example.com', 'https://example.com/hook'];

/**
 * One string a simple pattern matches: literals, escapes (\\d, \\w, \\S…), classes, groups (the
 * first alternative) and quantifiers (their least count, at least one). Undefined when the pattern
 * uses anything else; the caller checks the result against the pattern either way.
 */
export function sampleOfPattern(pattern: string): string | undefined {
  let i = 0;
  const escapes: Record<string, string> = { d: '1', w: 'a', s: ' ', S: 'a', D: 'a', W: '-' };
  const atom = (): string | undefined => {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1]!;
      i += 2;
      if (e === 'x') {
        const hex = pattern.slice(i, i + 2);
        i += 2;
        return String.fromCharCode(parseInt(hex, 16));
      }
      if (e === 'u') {
        const hex = pattern.slice(i, i + 4);
        i += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      return escapes[e] ?? e;
    }
    if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return undefined;
      const body = pattern.slice(i + 1, end);
      i = end + 1;
      if (body.startsWith('^')) {
        // A negated class: the first of a few harmless characters it does not exclude.
        const re = new RegExp(`[${body}]`);
        return ['a', 'A', '1', '-', ' '].find((x) => re.test(x));
      }
      if (body[0] === '\\') return escapes[body[1]!] ?? body[1];
      return body[0];
    }
    if (c === '(') {
      i++;
      if (pattern.startsWith('?:', i)) i += 2;
      const inner = sequence();
      // Skip the other alternatives.
      let depth = 0;
      while (i < pattern.length && !(pattern[i] === ')' && depth === 0)) {
        if (pattern[i] === '\\') i++;
        else if (pattern[i] === '(') depth++;
        else if (pattern[i] === ')') depth--;
        i++;
      }
      i++;
      return inner;
    }
    if (c === '.') {
      i++;
      return 'a';
    }
    i++;
    return c;
  };
  const sequence = (): string | undefined => {
    let out = '';
    while (i < pattern.length && pattern[i] !== '|' && pattern[i] !== ')') {
      if (pattern[i] === '^' || pattern[i] === '$') {
        i++;
        continue;
      }
      const piece = atom();
      if (piece === undefined) return undefined;
      let count = 1;
      const q = pattern[i];
      if (q === '*' || q === '?') {
        count = 0;
        i++;
      } else if (q === '+') i++;
      else if (q === '{') {
        const end = pattern.indexOf('}', i);
        count = Math.max(Number(pattern.slice(i + 1, end).split(',')[0]), 0);
        i = end + 1;
      }
      if (pattern[i] === '?') i++;
      out += piece.repeat(count);
    }
    return out;
  };
  try {
    return sequence();
  } catch {
    return undefined;
  }
}

function exampleString(schema: Json, key: string | undefined): string | undefined {
  if (typeof schema.format === 'string') {
    if (schema.format === 'binary') return '';
    if (schema.format in formatExamples) return formatExamples[schema.format];
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    const id = /^\^([a-z]+)_\[a-z0-9_\]/.exec(schema.pattern);
    const sampled = sampleOfPattern(schema.pattern);
    const candidates = [...(id ? [`${id[1]}_01jexample0000000000000000`, `${id[1]}_example`] : []), ...stringCandidates, key ?? '', sampled ?? ''];
    const found = candidates.find((c) => pattern.test(c) && fits(c));
    if (found !== undefined) return found;
    // A pattern that only asks for something somewhere (`\\S`): pad the sample to the least length.
    const padded = (sampled || 'a').padEnd(min, 'a');
    return pattern.test(padded) && fits(padded) ? padded : undefined;
  }
  const word = key ? key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : 'example';
  const text = word.charAt(0).toUpperCase() + word.slice(1);
  if (fits(text)) return text;
  return fits('x'.repeat(min)) ? 'x'.repeat(Math.max(min, 1)).slice(0, Math.max(min, Math.min(1, max))) : undefined;
}

/** Whether a schema holds a file part somewhere (a multipart form's `format: binary`). */
const holdsFile = (schema: unknown): boolean => JSON.stringify(schema ?? null).includes('"format":"binary"');

/**
 * An example for `schema` (a JSON copy of a route's TypeBox schema), or undefined when none can be
 * made. `json`: for a JSON body, so a union prefers a member without a file part (a form's).
 */
export function exampleOf(schema: unknown, key?: string, depth = 0, json = false): unknown {
  if (!isObject(schema) || depth > 12) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (!Array.isArray(members)) continue;
    // A value over null: a nullable field shows what it holds when it holds something.
    const values = (members as Json[]).filter((m) => m.type !== 'null');
    const preferred = json ? [...values.filter((m) => !holdsFile(m)), ...values.filter(holdsFile)] : values;
    const ordered = [...preferred, ...(members as Json[]).filter((m) => m.type === 'null')];
    for (const member of ordered) {
      const value = exampleOf(member, key, depth + 1, json);
      if (value !== undefined || member.type === 'null') return value === undefined ? null : value;
    }
    return undefined;
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Json[]).map((m) => exampleOf(m, key, depth + 1, json));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts[0];
  }
  switch (schema.type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      let value = min ?? (max !== undefined && max < 1 ? max : 1);
      if (typeof schema.multipleOf === 'number') value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
      return schema.type === 'integer' ? Math.ceil(value) : value;
    }
    case 'string':
      return exampleString(schema, key);
    case 'array': {
      const item = exampleOf(schema.items, key, depth + 1, json);
      if (item === undefined) return [];
      const count = typeof schema.minItems === 'number' ? Math.max(schema.minItems, 1) : 1;
      return Array.from({ length: count }, () => item);
    }
    case 'object':
    default: {
      if (schema.type !== 'object' && !isObject(schema.properties)) return undefined;
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      // Required fields; a body of optional fields only (a PATCH) shows them all.
      const shown = Object.keys(properties).filter((k) => required.has(k) || required.size === 0);
      const out: Json = {};
      for (const name of shown) {
        const value = exampleOf(properties[name], name, depth + 1, json);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
  }
}
