import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { apiVersions, currentApiVersion } from '../../src/http/api-versions.js';
import { buildOpenApiDocument } from '../../scripts/generate-sdk-types.js';

/**
 * Issue 28 §2: two independent generators from npm make a TypeScript client of /openapi.json that
 * compiles: openapi-typescript (types by path and component) and @hey-api/openapi-ts (types and a
 * fetch SDK per operation). Each gets a small program that uses the generated names (Pet, PetPage,
 * Settlement's byMethod map, the medical record's oneOf by kind) and assigns every operation's
 * request and response example to its generated type; `tsc --noEmit` must pass, and a wrong enum
 * value or a body of the wrong kind must not. Redocly lints each version's document clean (no
 * errors, no warnings: its example check included). No network: the generators are node_modules'.
 */

type Json = Record<string, any>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
const run = promisify(execFile);
const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

let dir: string;
const documents = new Map<string, Json>();

test.before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'petcare-generators-'));
  for (const version of apiVersions) {
    const doc = await buildOpenApiDocument(version);
    documents.set(version, doc);
    writeFileSync(path.join(dir, `openapi-${version}.json`), JSON.stringify(doc, null, 2));
  }
});
test.after.always(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const current = () => documents.get(currentApiVersion)!;

/** Each operation's JSON examples: `[path, method, status or 'body', example]`. */
function examples(doc: Json): Array<[string, string, string, unknown]> {
  const out: Array<[string, string, string, unknown]> = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) out.push([p, method, 'body', body.example]);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = response.content?.['application/json'];
        if (Number(status) < 400 && media?.example !== undefined) out.push([p, method, status, media.example]);
      }
    }
  }
  return out;
}

const literal = (value: unknown) => JSON.stringify(value);

/** Compiles `files` (already in `project`) with the repository's TypeScript, strict. */
async function compile(project: string, files: string[]): Promise<string> {
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2022', 'dom', 'dom.iterable'],
        types: [],
        skipLibCheck: true,
      },
      files,
    }),
  );
  try {
    await run(bin('tsc'), ['-p', path.join(project, 'tsconfig.json')], { cwd: project, maxBuffer: 32 * 1024 * 1024, timeout: 120_000 });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err).slice(0, 4000);
  }
}

test('openapi-typescript: the generated types take every example and the named schemas', async (a) => {
  const project = path.join(dir, 'openapi-typescript');
  mkdirSync(project);
  // As the SDK's own types are made (scripts/generate-sdk-types.ts): with its defaultNonNullable, openapi-typescript
  // would make every field with a default required to send too (a named request schema's `reminderConsent`).
  const ast = await openapiTS(current() as unknown as OpenAPI3, { silent: true, defaultNonNullable: false });
  writeFileSync(path.join(project, 'schema.ts'), astToString(ast));
  const lines = [
    "import type { components, operations, paths } from './schema.js';",
    "type Schemas = components['schemas'];",
    "export const species: Schemas['Pet']['species'] = 'dog';",
    "export const byMethod: Schemas['Settlement']['byMethod'] = { card: 1200, cash: -300 };",
    "export const note: operations['createMedicalRecord']['requestBody']['content']['application/json'] = { kind: 'note', text: 'Ate well.' };",
    "export const weight: NonNullable<operations['createMedicalRecord']['requestBody']>['content']['application/json'] = { kind: 'weight', weightKg: 4.2 };",
    "export const page = (pet: Schemas['Pet']): Schemas['PetPage'] => ({ data: [pet], nextCursor: null, hasMore: false });",
    "export const answer = (pet: paths['/v1/pets/{id}']['get']['responses'][200]['content']['application/json']): Schemas['Pet'] => pet;",
    '// @ts-expect-error: a species outside the enum does not compile',
    "export const dragon: Schemas['Pet']['species'] = 'dragon';",
    '// @ts-expect-error: a weight record needs weightKg, not a note’s text',
    "export const wrong: operations['createMedicalRecord']['requestBody']['content']['application/json'] = { kind: 'weight', text: 'x' };",
  ];
  examples(current()).forEach(([p, method, status, example], i) => {
    const type =
      status === 'body'
        ? `NonNullable<paths[${literal(p)}][${literal(method)}]['requestBody']>['content']['application/json']`
        : `paths[${literal(p)}][${literal(method)}]['responses'][${status}]['content']['application/json']`;
    lines.push(`export const example${i}: ${type} = ${literal(example)};`);
  });
  writeFileSync(path.join(project, 'program.ts'), `${lines.join('\n')}\n`);
  a.is(await compile(project, ['schema.ts', 'program.ts']), '');
});

test('@hey-api/openapi-ts: the generated SDK and types compile with a program calling it', async (a) => {
  const project = path.join(dir, 'hey-api');
  mkdirSync(project);
  await run(bin('openapi-ts'), ['-i', path.join(dir, `openapi-${currentApiVersion}.json`), '-o', path.join(project, 'client')], {
    cwd: project,
    env: quiet,
    maxBuffer: 32 * 1024 * 1024,
    timeout: 120_000,
  });
  const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
  const lines = [
    "import { createMedicalRecord, getPet, listPets } from './client/index.js';",
    "import type { CreateMedicalRecordData, Pet, PetPage, Settlement } from './client/index.js';",
    "import type * as Types from './client/types.gen.js';",
    'export async function program(): Promise<string> {',
    "  const one = await getPet({ path: { id: 'pet_01jexample' }, throwOnError: true });",
    '  const pet: Pet = one.data;',
    '  const page = await listPets({ query: { limit: 10 }, throwOnError: true });',
    '  const pets: PetPage = page.data;',
    "  await createMedicalRecord({ path: { id: pet.id }, body: { kind: 'note', text: 'Ate well.' } });",
    "  const byMethod: Settlement['byMethod'] = { card: 1200 };",
    '  return `${pets.data.length} ${byMethod.card}`;',
    '}',
    '// @ts-expect-error: a species outside the enum does not compile',
    "export const dragon: Pet['species'] = 'dragon';",
    '// @ts-expect-error: a weight record needs weightKg',
    "export const wrong: CreateMedicalRecordData['body'] = { kind: 'weight', text: 'x' };",
  ];
  const ids = new Map<string, string>();
  for (const [p, item] of Object.entries(current().paths as Record<string, Json>))
    for (const [m, op] of Object.entries(item)) ids.set(`${m} ${p}`, op.operationId);
  examples(current()).forEach(([p, method, status, example], i) => {
    const id = pascal(ids.get(`${method} ${p}`)!);
    const type = status === 'body' ? `Types.${id}Data['body']` : `Types.${id}Responses[${status}]`;
    lines.push(`export const example${i}: ${type} = ${literal(example)};`);
  });
  writeFileSync(path.join(project, 'program.ts'), `${lines.join('\n')}\n`);
  a.is(await compile(project, ['program.ts']), '');
});

test('redocly lints each version’s document without an error or a warning', async (a) => {
  for (const version of apiVersions) {
    const file = path.join(dir, `openapi-${version}.json`);
    let stdout = '';
    try {
      ({ stdout } = await run(bin('redocly'), ['lint', '--config', path.join(root, 'redocly.yaml'), '--format', 'json', file], {
        cwd: root,
        env: quiet,
        maxBuffer: 32 * 1024 * 1024,
        timeout: 60_000,
      }));
    } catch (err) {
      stdout = String((err as { stdout?: string }).stdout ?? '');
    }
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      problems: Array<{ ruleId: string; message: string; location: Array<{ pointer?: string }> }>;
    };
    a.deepEqual(
      report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`),
      [],
      version,
    );
  }
});
