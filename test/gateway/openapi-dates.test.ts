import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Issue 28 §1: every date or time a client sends or reads is `format: date` or `format: date-time`
 * in /openapi.json (a `local-date-time` where a location's clock reads it), and the validator
 * refuses an impossible one with the usual 400 problem naming the field.
 */
const t = useTestApp(test, { jobs: false });

type Json = Record<string, any>;

/** Names that hold a date or an instant in this API. */
const dateName = /(?:At|On|Date|Visit|Day|Until|Since)$|^(?:date|from|to|since|until|day|birthDate|nextFrom)$/;
const looksDated = (v: unknown) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v);
/** Fields whose name reads like a date but hold something else (each says why). */
const notDates: Record<string, RegExp> = {
  // A notification's recipient: an email address.
  to: /email address/,
  // A metric's basis: a sentence naming which date counts.
  date: /^(?:Which date|$)/,
  // The event stream resumes after an event id (as Last-Event-ID does).
  since: /event id/,
};
const formats = new Set(['date', 'date-time', 'local-date-time']);

/** Whether a schema (after $ref, through unions) only takes formatted strings (or null). */
function formatted(doc: Json, schema: Json): boolean {
  if (typeof schema.$ref === 'string') return formatted(doc, deref(doc, schema.$ref));
  const members = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(members)) return members.every((m: Json) => m.type === 'null' || formatted(doc, m));
  if (Array.isArray(schema.type)) return schema.type.every((x: string) => x === 'null' || x === 'string') && formats.has(schema.format);
  return schema.type === 'string' && formats.has(schema.format);
}
const deref = (doc: Json, ref: string): Json =>
  ref
    .slice(2)
    .split('/')
    .reduce((n: Json, k) => n[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
const isStringy = (doc: Json, s: Json): boolean =>
  s.type === 'string' ||
  (Array.isArray(s.type) && s.type.includes('string')) ||
  (typeof s.$ref === 'string' && isStringy(doc, deref(doc, s.$ref))) ||
  (Array.isArray(s.anyOf ?? s.oneOf) && (s.anyOf ?? s.oneOf).some((m: Json) => isStringy(doc, m)));

function unformattedDates(doc: Json): string[] {
  const found = new Set<string>();
  const check = (name: string, schema: Json, where: string) => {
    if (!isStringy(doc, schema)) return;
    const dated = dateName.test(name) || looksDated(schema.example) || (Array.isArray(schema.examples) && schema.examples.some(looksDated));
    if (!dated || formatted(doc, schema)) return;
    if (notDates[name]?.test(String(schema.description ?? (schema.$ref ? deref(doc, schema.$ref).description : '') ?? ''))) return;
    found.add(`${where}: ${name}`);
  };
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}/${i}`));
    if (!node || typeof node !== 'object') return;
    const n = node as Json;
    if (n.properties) for (const [k, v] of Object.entries(n.properties as Record<string, Json>)) check(k, v, where);
    if ((n.in === 'query' || n.in === 'path') && n.schema) check(n.name, { description: n.description, ...n.schema }, where);
    for (const [k, v] of Object.entries(n)) if (k !== 'examples' && k !== 'example') visit(v, `${where}/${k}`);
  };
  visit(doc.paths, '#/paths');
  visit(doc.components.schemas, '#/components/schemas');
  return [...found];
}

test('the document has no date or date-time field without its format', async (a) => {
  for (const version of [undefined, '2025-06-01']) {
    const res = await t.request('GET', version ? `/openapi.json?version=${version}` : '/openapi.json');
    a.is(res.status, 200);
    a.deepEqual(unformattedDates(res.body), [], version ?? 'current');
  }
});

test('the checker itself finds a bare date string', (a) => {
  const doc = {
    paths: { '/x': { get: { parameters: [{ in: 'query', name: 'from', schema: { type: 'string', pattern: '^\\d{4}' } }] } } },
    components: { schemas: {} },
  };
  a.deepEqual(unformattedDates(doc), ['#/paths//x/get/parameters/0: from']);
});

const fieldsOf = (res: { body: { errors?: Array<{ field: string }> } }) => (res.body.errors ?? []).map((e) => e.field);

test('impossible dates and instants are a 400 problem on the field: payments, grooming, analytics, ledger', async (a) => {
  const token = await t.adminToken();
  const cases: Array<[string, string, unknown, string]> = [
    ['GET', `/v1/payments?from=${encodeURIComponent('9664-68-08T70Z')}`, undefined, 'from'],
    ['GET', `/v1/payments?to=${encodeURIComponent('2026-02-30')}`, undefined, 'to'],
    ['GET', `/v1/ledger/entries?from=${encodeURIComponent('2026-11-01T25:00Z')}`, undefined, 'from'],
    ['GET', '/v1/analytics/summary?from=0000-00-00&to=2026-11-30', undefined, 'from'],
    ['GET', '/v1/analytics/summary?from=2026-11-01&to=2026-11-31', undefined, 'to'],
    ['GET', `/v1/grooming/appointments?from=${encodeURIComponent('2026-11-01T09:00')}`, undefined, 'from'],
    ['GET', '/v1/providers?availableOn=2026-13-01', undefined, 'availableOn'],
    ['POST', '/v1/grooming/appointments', { petId: 'pet_x', packageId: 'pkg_x', locationId: 'loc_x', startsAt: 'tomorrow at nine' }, 'startsAt'],
    ['POST', '/v1/grooming/appointments', { petId: 'pet_x', packageId: 'pkg_x', locationId: 'loc_x', startsAt: '2026-12-01T09:00+15:00' }, 'startsAt'],
  ];
  for (const [method, url, body, field] of cases) {
    const res = await t.request(method, url, { token, ...(body ? { body } : {}) });
    a.is(res.status, 400, `${method} ${url}`);
    a.is(res.body.code, 'validation_failed', `${method} ${url}`);
    a.true(fieldsOf(res).includes(field), `${method} ${url}: ${JSON.stringify(res.body.errors)}`);
    a.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  }
});

test('real dates, instants and local date-times still pass the same fields', async (a) => {
  const token = await t.adminToken();
  for (const url of [
    `/v1/payments?from=2026-11-01&to=${encodeURIComponent('2026-11-30T23:59:59+01:00')}`,
    '/v1/analytics/summary?from=2026-11-01&to=2026-11-30',
    '/v1/providers?availableOn=2028-02-29',
  ]) {
    const res = await t.request('GET', url, { token });
    a.is(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  }
});
