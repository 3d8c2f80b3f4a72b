/**
 * Turns the route schemas of /openapi.json into what code generators read well (issue 28 §2):
 * string enums as `enum` (TypeBox writes a union of literals as `anyOf` of `const`s), maps as
 * `additionalProperties` (TypeBox writes `Type.Record` as `patternProperties`), kind-dependent
 * bodies as `oneOf` + `discriminator`, and every object as a named, reusable `components.schemas`
 * entry `$ref`-ed where it is used. Names come from the operations: `getPet`'s answer is `Pet`,
 * `listPets`' items are `Pet` when they are the same shape (`PetPage` the page), a body is
 * `<OperationId>Request`, a nested object `<Parent><Property>`. The validator keeps the route's
 * own TypeBox schemas: this only rewrites the document's JSON copy.
 */

type Json = Record<string, unknown>;

import { documentedAsKeyword } from './schema-fields.js';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const pascal = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

export const singular = (s: string): string =>
  /ies$/.test(s) ? `${s.slice(0, -3)}y` : /(ss|us)$/.test(s) ? s : /(ches|shes|sses|xes)$/.test(s) ? s.slice(0, -2) : s.endsWith('s') ? s.slice(0, -1) : s;

/**
 * Enums, maps and documented shapes, everywhere in a schema (a new JSON value).
 * A union of literals of one type becomes `{type, enum}` keeping the union's own keywords.
 */
export function normalizeSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeSchema);
  if (!isObject(node)) return node;
  if (isObject(node[documentedAsKeyword])) return normalizeSchema(node[documentedAsKeyword]);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, normalizeSchema(v)]));
    } else if (key === 'examples' || key === 'example' || key === 'default' || key === 'const' || key === 'enum') {
      out[key] = value;
    } else {
      out[key] = normalizeSchema(value);
    }
  }
  const members = out.anyOf;
  if (Array.isArray(members) && members.length > 0 && members.every((m) => isObject(m) && 'const' in m)) {
    const values = (members as Json[]).map((m) => m.const);
    const types = new Set(values.map((v) => (v === null ? 'null' : typeof v)));
    if (types.size === 1 && !types.has('object')) {
      const { anyOf: _, ...rest } = out;
      const type = [...types][0] === 'number' ? (values.every((v) => Number.isInteger(v)) ? 'integer' : 'number') : [...types][0];
      return { type, enum: values, ...rest };
    }
  }
  const patterns = out.patternProperties;
  if (isObject(patterns) && Object.keys(patterns).length === 1 && !out.properties) {
    const [pattern, value] = Object.entries(patterns)[0] as [string, Json];
    const { patternProperties: _, ...rest } = out;
    return {
      ...rest,
      type: 'object',
      additionalProperties: value,
      ...(pattern === '^(.*)$' || pattern === '^.*$' ? {} : { propertyNames: { pattern } }),
    };
  }
  return out;
}

/** The key that names a union's member: one property every member requires, with a distinct string `const` (or one-value enum) in each. */
function discriminatorOf(members: Json[]): { property: string; values: string[] } | null {
  if (members.length < 2 || !members.every((m) => m.type === 'object' && isObject(m.properties))) return null;
  const first = members[0]!;
  for (const property of Object.keys(first.properties as Json)) {
    const values = members.map((m) => {
      const p = (m.properties as Json)[property];
      if (!isObject(p) || !((m.required as string[] | undefined) ?? []).includes(property)) return undefined;
      if (typeof p.const === 'string') return p.const;
      return Array.isArray(p.enum) && p.enum.length === 1 && typeof p.enum[0] === 'string' ? (p.enum[0] as string) : undefined;
    });
    if (values.every((v): v is string => v !== undefined) && new Set(values).size === values.length) return { property, values };
  }
  return null;
}

/** A union member's name: its title, else the first field it requires that no other member does (`…File`, `…Text`), else its place. */
function memberName(member: Json, members: Json[], index: number): string {
  if (typeof member.title === 'string') return pascal(member.title);
  const own = ((member.required as string[] | undefined) ?? []).find((field) =>
    members.every((m) => m === member || !((m.required as string[] | undefined) ?? []).includes(field)),
  );
  return own ? pascal(own) : `Option${index + 1}`;
}

/** Named schemas, deduplicated by shape: one name per shape and place (see the module's comment). */
export class SchemaNamer {
  readonly schemas: Record<string, Json>;
  /** Top-level shapes (answers, bodies) by their JSON: the same resource under one name wherever it is answered. */
  private readonly topLevel = new Map<string, string>();
  /** Nested shapes by their JSON and their property's name. */
  private readonly nested = new Map<string, string>();

  constructor(initial: Record<string, Json>) {
    this.schemas = { ...initial };
  }

  private unique(wanted: string, fallback?: string): string {
    if (fallback && wanted in this.schemas) return this.unique(fallback);
    let name = wanted || 'Schema';
    for (let i = 2; name in this.schemas; i++) name = `${wanted}${i}`;
    return name;
  }

  /**
   * A reference to a name for an object schema (nested objects named first), or the schema lifted
   * in place for anything else. `top`: an answer or a body (deduplicated by shape alone);
   * `fallback`: the name to use when `hint` is another shape's already.
   */
  name(schema: unknown, hint: string, leaf = hint, top = false, fallback?: string): unknown {
    if (!isObject(schema)) return schema;
    if (schema.type === 'object' && isObject(schema.properties) && Object.keys(schema.properties).length > 0) {
      const properties = Object.fromEntries(
        Object.entries(schema.properties).map(([key, value]) => [key, this.lift(value, `${hint}${pascal(key)}`, pascal(key), key)]),
      );
      const lifted: Json = { ...schema, properties };
      if (isObject(lifted.additionalProperties)) lifted.additionalProperties = this.lift(lifted.additionalProperties, `${hint}Value`, `${leaf}Value`);
      const json = JSON.stringify(lifted);
      // A nested shape keeps the name it got first, so a parent named twice comes out the same both times.
      const known = top ? this.topLevel.get(json) : (this.nested.get(`${leaf}|${json}`) ?? this.topLevel.get(json));
      if (known) return { $ref: `#/components/schemas/${known}` };
      const name = this.unique(hint, fallback);
      this.schemas[name] = lifted;
      if (top) this.topLevel.set(json, name);
      else this.nested.set(`${leaf}|${json}`, name);
      return { $ref: `#/components/schemas/${name}` };
    }
    return this.lift(schema, hint, leaf);
  }

  /** Names the objects inside a schema that is not itself a named object (arrays, unions, maps). */
  private lift(schema: unknown, hint: string, leaf: string, property?: string): unknown {
    if (!isObject(schema)) return schema;
    if (schema.type === 'object' && isObject(schema.properties) && Object.keys(schema.properties).length > 0) return this.name(schema, hint, leaf);
    const out: Json = { ...schema };
    if (isObject(out.items)) {
      const item = property ? pascal(singular(property)) : 'Item';
      out.items = this.lift(out.items, property ? `${hint.slice(0, hint.length - pascal(property).length)}${item}` : `${hint}Item`, item);
    }
    if (isObject(out.additionalProperties)) out.additionalProperties = this.lift(out.additionalProperties, `${hint}Value`, `${leaf}Value`);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const members = out[keyword];
      if (!Array.isArray(members)) continue;
      const objects = (members as Json[]).filter((m) => m.type !== 'null');
      const discriminator = discriminatorOf(objects);
      if (discriminator) {
        const refs = objects.map((m, i) => this.name(m, `${hint}${pascal(discriminator.values[i]!)}`, `${leaf}${pascal(discriminator.values[i]!)}`) as Json);
        const mapping = Object.fromEntries(discriminator.values.map((v, i) => [v, refs[i]!.$ref as string]));
        const union: Json = { oneOf: refs, discriminator: { propertyName: discriminator.property, mapping } };
        delete out[keyword];
        if (objects.length === members.length) Object.assign(out, union);
        else out.anyOf = [union, { type: 'null' }];
        continue;
      }
      const shapes = (members as Json[]).filter((m) => m.type === 'object');
      out[keyword] = (members as Json[]).map((m, i) =>
        shapes.length > 1 && m.type === 'object' ? this.lift(m, `${hint}${memberName(m, shapes, i)}`, leaf) : this.lift(m, hint, leaf),
      );
    }
    if (Array.isArray(out.allOf)) out.allOf = (out.allOf as Json[]).map((m, i) => this.lift(m, `${hint}Part${i + 1}`, leaf));
    return out;
  }
}
