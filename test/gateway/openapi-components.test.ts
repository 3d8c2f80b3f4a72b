import test from 'ava';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { FormatRegistry } from '@sinclair/typebox';
import { apiVersions, currentApiVersion } from '../../src/http/api-versions.js';
import { buildOpenApi } from '../../src/http/openapi.js';
import { routeKey } from '../../src/http/router.js';
import { isPublic, type AnyRoute } from '../../src/http/route.js';
import '../../src/http/validation.js'; // registers the formats (date, date-time, local-date-time) Value.Check reads
import { useTestApp } from '../helpers/test-app.js';

/**
 * Issue 28 §2: the document is one code generators read well: named, reusable schemas `$ref`-ed
 * from the operations, string enums as `enum`, maps as `additionalProperties`, a kind-dependent
 * body as `oneOf` + `discriminator`, and a request and a response example per operation that
 * its route's own schema accepts.
 */
const t = useTestApp(test, { jobs: false });
// A multipart body's file part: any bytes (the route's stage step reads it; its schema only documents the form).
if (!FormatRegistry.Has('binary')) FormatRegistry.Set('binary', () => true);

type Json = Record<string, any>;
const docs = new Map<string, Json>();

test.before(async () => {
  for (const version of apiVersions) {
    const res = await t.request('GET', `/openapi.json?version=${version}`);
    if (res.status !== 200) throw new Error(`openapi.json?version=${version}: ${res.status}`);
    docs.set(version, res.body);
  }
});

const current = () => docs.get(currentApiVersion)!;
const deref = (doc: Json, node: Json): Json =>
  typeof node?.$ref === 'string'
    ? deref(
        doc,
        node.$ref
          .slice(2)
          .split('/')
          .reduce((n: Json, k: string) => n[k], doc),
      )
    : node;

/** What generators choke on or name badly, counted over a document. */
function shapeCounts(doc: Json) {
  const counts = { inlineObjects: [] as string[], anyOfConst: [] as string[], patternProperties: [] as string[] };
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}/${i}`));
    if (!node || typeof node !== 'object') return;
    const n = node as Json;
    const named = /^#\/components\/schemas\/[^/]+$/.test(where);
    if (n.type === 'object' && n.properties && Object.keys(n.properties).length > 0 && !named) counts.inlineObjects.push(where);
    if (Array.isArray(n.anyOf) && n.anyOf.length > 0 && n.anyOf.every((m: Json) => m && 'const' in m)) counts.anyOfConst.push(where);
    if (n.patternProperties) counts.patternProperties.push(where);
    for (const [k, v] of Object.entries(n)) if (k !== 'example' && k !== 'examples') visit(v, `${where}/${k}`);
  };
  visit(doc.paths, '#/paths');
  visit(doc.components.schemas, '#/components/schemas');
  return counts;
}

test('no inline object, no anyOf of consts, no patternProperties: in every version', (a) => {
  for (const [version, doc] of docs) {
    const counts = shapeCounts(doc);
    a.deepEqual(counts, { inlineObjects: [], anyOfConst: [], patternProperties: [] }, version);
    a.true(Object.keys(doc.components.schemas).length > 200, `${version}: named schemas`);
  }
});

test('resources are named once and $ref-ed wherever they are answered or listed', (a) => {
  const doc = current();
  const schemaOf = (path: string, method: string, status = '200') => doc.paths[path][method].responses[status].content['application/json'].schema;
  for (const name of ['Pet', 'PetParent', 'Appointment', 'Invoice', 'Payment', 'MedicalRecord', 'Order', 'Settlement', 'Job', 'Location', 'Client'])
    a.truthy(doc.components.schemas[name], name);
  a.deepEqual(schemaOf('/v1/pets/{id}', 'get'), { $ref: '#/components/schemas/Pet' });
  a.deepEqual(schemaOf('/v1/pets', 'post', '201'), { $ref: '#/components/schemas/Pet' });
  a.deepEqual(schemaOf('/v1/pets/{id}', 'patch'), { $ref: '#/components/schemas/Pet' });
  a.deepEqual(schemaOf('/v1/pets', 'get'), { $ref: '#/components/schemas/PetPage' });
  a.deepEqual(doc.components.schemas.PetPage.properties.data.items, { $ref: '#/components/schemas/Pet' });
  a.deepEqual(doc.paths['/v1/pets'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/CreatePetRequest' });
  a.deepEqual(schemaOf('/v1/invoices/{id}', 'get'), { $ref: '#/components/schemas/Invoice' });
  // Every JSON body and JSON answer of an object is a reference (or a oneOf of references).
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const media = [
        ...Object.values((op.requestBody?.content ?? {}) as Record<string, Json>),
        ...Object.entries(op.responses as Record<string, Json>)
          .filter(([status]) => Number(status) < 400)
          .flatMap(([, r]) => Object.values((r.content ?? {}) as Record<string, Json>)),
      ];
      for (const { schema } of media) {
        if (schema.type === 'object' && Object.keys(schema.properties ?? {}).length > 0) a.fail(`${method} ${path}: inline object`);
      }
    }
  }
});

test('string enums are enum, maps are additionalProperties, medical records are a oneOf by kind', (a) => {
  const doc = current();
  const pet = doc.components.schemas.Pet;
  a.is(pet.properties.species.type, 'string');
  a.true(pet.properties.species.enum.includes('dog'));
  a.deepEqual(doc.components.schemas.Settlement.properties.byMethod.additionalProperties, { type: 'integer' });
  const result = deref(doc, doc.components.schemas.JobLastRun.properties.result).anyOf[0];
  a.is(result.type, 'object');
  a.truthy(result.additionalProperties.anyOf);
  const body = doc.paths['/v1/pets/{id}/medical'].post.requestBody.content['application/json'].schema;
  a.is(body.discriminator.propertyName, 'kind');
  a.deepEqual(Object.keys(body.discriminator.mapping).sort(), ['allergy', 'diagnosis', 'note', 'prescription', 'weight']);
  for (const [kind, ref] of Object.entries(body.discriminator.mapping as Record<string, string>)) {
    const member = deref(doc, { $ref: ref });
    a.true(member.required.includes('kind'), kind);
    a.is(member.properties.kind.const ?? member.properties.kind.enum?.[0], kind);
  }
  a.deepEqual(
    body.oneOf.map((m: Json) => m.$ref),
    Object.values(body.discriminator.mapping),
  );
});

/** The route of each operation, its deprecated twins included (they answer the same). */
function operations(doc: Json, routes: readonly AnyRoute[]): Array<{ where: string; op: Json; route: AnyRoute }> {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  const out: Array<{ where: string; op: Json; route: AnyRoute }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const route = byId.get(op.operationId) ?? routes.find((r) => op.operationId.startsWith(r.operationId) && r.method === method);
      if (route) out.push({ where: `${method} ${path}`, op, route });
    }
  }
  return out;
}

test('every operation has a request example (when it takes a body) and a response example, each accepted by its route’s schema', (a) => {
  const routes = t.app.routes.filter((r) => !(isPublic(r) && r.hidden));
  for (const [version, doc] of docs) {
    const listed = operations(doc, routes);
    a.is(
      listed.length,
      Object.values(doc.paths as Record<string, Json>).reduce((n, item) => n + Object.keys(item).length, 0),
      version,
    );
    for (const { where, op, route } of listed) {
      const at = `${version} ${where} (${routeKey(route)})`;
      if (route.body) {
        for (const [type, media] of Object.entries(op.requestBody.content as Record<string, Json>)) {
          a.not(media.example, undefined, `${at} ${type} request example`);
          a.true(
            Value.Check(route.body as TSchema, media.example),
            `${at} ${type} request example: ${JSON.stringify([...Value.Errors(route.body as TSchema, media.example)].slice(0, 3).map((e) => `${e.path} ${e.message}`))}`,
          );
        }
      }
      const success = op.responses[String(route.response.status)];
      const mediaType = route.response.contentType?.split(';')[0] ?? 'application/json';
      const media = success.content[mediaType];
      a.not(media.example, undefined, `${at} response example`);
      const change = (route.versions as Record<string, { schema: TSchema }> | undefined)?.[version];
      const schema = change?.schema ?? (route.response.schema as TSchema);
      if (mediaType === 'application/json') {
        a.true(
          Value.Check(schema, media.example),
          `${at} response example: ${JSON.stringify([...Value.Errors(schema, media.example)].slice(0, 3).map((e) => `${e.path} ${e.message}`))}`,
        );
      }
    }
  }
});

test('a second build is the same document, names and examples included (deterministic)', (a) => {
  const again = JSON.parse(JSON.stringify(buildOpenApi(t.app.routes, current().info.version, t.app.tags)));
  a.deepEqual(again, current());
});
