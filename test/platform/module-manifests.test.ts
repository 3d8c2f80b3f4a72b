import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import pino from 'pino';
import { createApp, type PetCareApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { SecretBox } from '../../src/db/secret-box.js';
import { Stores } from '../../src/db/stores.js';
import { resetSteps, type ModuleManifest } from '../../src/module-manifest.js';
import { SigningKeys } from '../../src/modules/oauth/signing-keys.js';

/**
 * The module manifests against a real, migrated data dir: every table has one owner, and the sandbox
 * reset erases every table with a `tenant_id` (or a manifest says why it keeps it), children first.
 */
interface Schema {
  /** Tables the migrations created (a virtual table's shadow tables folded into it). */
  tables: string[];
  tenantTables: Set<string>;
  /** child → its foreign keys. */
  foreignKeys: Map<string, Array<{ parent: string; onDelete: string }>>;
}

function readSchema(sqlite: SQLite.Database): Schema {
  const rows = sqlite
    .prepare("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name not like 'kysely\\_%' escape '\\'")
    .all() as Array<{ name: string; sql: string | null }>;
  const virtual = rows.filter((r) => /^create virtual table/i.test(r.sql ?? '')).map((r) => r.name);
  const shadow = (name: string) =>
    virtual.some((v) => name.startsWith(`${v}_`) && ['config', 'content', 'data', 'docsize', 'idx'].includes(name.slice(v.length + 1)));
  const tables = rows.map((r) => r.name).filter((name) => !shadow(name));
  const columns = (table: string) => (sqlite.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((c) => c.name);
  const foreignKeys = new Map(
    tables.map((table) => [
      table,
      sqlite.prepare('select "table" as parent, on_delete as onDelete from pragma_foreign_key_list(?)').all(table) as Array<{
        parent: string;
        onDelete: string;
      }>,
    ]),
  );
  return { tables, tenantTables: new Set(tables.filter((t) => columns(t).includes('tenant_id'))), foreignKeys };
}

/** How the manifests' `reset` claims each table (`erase`, `rows`, `cascades`, `keeps`), with the claiming module. */
function resetClaims(modules: readonly ModuleManifest[]): Map<string, string[]> {
  const claims = new Map<string, string[]>();
  const claim = (table: string, how: string) => claims.set(table, [...(claims.get(table) ?? []), how]);
  for (const m of modules) {
    for (const table of m.reset?.erase?.tables ?? []) claim(table, `${m.name}.erase`);
    for (const table of m.reset?.rows ?? []) claim(table, `${m.name}.rows`);
    for (const table of Object.keys(m.reset?.cascades ?? {})) claim(table, `${m.name}.cascades`);
    for (const table of Object.keys(m.reset?.keeps ?? {})) claim(table, `${m.name}.keeps`);
  }
  return claims;
}

/** What is wrong with the manifests' reset against the schema (empty: nothing). */
function resetProblems(modules: readonly ModuleManifest[], schema: Schema): string[] {
  const problems: string[] = [];
  const claims = resetClaims(modules);
  const owner = new Map(modules.flatMap((m) => (m.tables ?? []).map((t) => [t, m.name] as const)));
  for (const table of schema.tenantTables) {
    const how = claims.get(table) ?? [];
    if (how.length === 0) problems.push(`${table} has tenant_id but no manifest's reset erases or keeps it`);
    if (how.length > 1) problems.push(`${table} is claimed ${how.length} times: ${how.join(', ')}`);
  }
  for (const [table, how] of claims) {
    for (const h of how) if (owner.get(table) !== h.split('.')[0]) problems.push(`${h} claims ${table}, owned by ${owner.get(table) ?? 'nobody'}`);
  }
  // The order the reset deletes in; a cascaded table goes with its parent.
  const order: string[] = resetSteps(modules).flatMap((step) => step.tables);
  const kept = new Set(modules.flatMap((m) => Object.keys(m.reset?.keeps ?? {})));
  const cascades = new Map(modules.flatMap((m) => Object.entries(m.reset?.cascades ?? {})));
  for (const [child, parent] of cascades) {
    if (!schema.foreignKeys.get(child)?.some((fk) => fk.parent === parent && fk.onDelete === 'CASCADE'))
      problems.push(`${child} has no ON DELETE CASCADE to ${parent}`);
    if (!order.includes(parent)) problems.push(`${child} cascades from ${parent}, which the reset does not erase`);
  }
  for (const [child, fks] of schema.foreignKeys) {
    for (const { parent, onDelete } of fks) {
      if (!order.includes(parent) || child === parent || onDelete === 'CASCADE') continue;
      if (kept.has(child)) problems.push(`${child} is kept but points at ${parent}, which the reset erases`);
      else if (order.includes(child) && order.indexOf(child) > order.indexOf(parent)) problems.push(`${child} is erased after ${parent}, which it points at`);
    }
  }
  return problems;
}

let dataDir: string;
let stores: Stores;
let app: PetCareApp;
let schema: Schema;

test.before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'petcare-manifests-'));
  const config = loadConfig({}, { dataDir, logLevel: 'silent' });
  stores = await Stores.open(dataDir, ['sandbox']);
  app = createApp({ config, clock: systemClock, logger: pino({ level: 'silent' }), stores, keys: new SigningKeys(dataDir), secretBox: SecretBox.ephemeral() });
  schema = readSchema(stores.get('sandbox').sqlite);
});

test.after.always(async () => {
  await app.audit.flush();
  await stores.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('every table of a migrated data dir is owned by exactly one module, and every owned table exists', (t) => {
  const owners = new Map<string, string[]>();
  for (const m of app.modules) for (const table of m.tables ?? []) owners.set(table, [...(owners.get(table) ?? []), m.name]);
  t.deepEqual(
    schema.tables.filter((table) => owners.get(table)?.length !== 1).map((table) => `${table}: ${owners.get(table)?.join(', ') ?? 'no owner'}`),
    [],
  );
  t.deepEqual(
    [...owners.keys()].filter((table) => !schema.tables.includes(table)),
    [],
  );
  t.true(schema.tenantTables.size > 50, 'the schema was read');
});

test('the sandbox reset erases every table with tenant_id, children before the tables they point at (or a manifest says why it keeps one)', (t) => {
  t.deepEqual(resetProblems(app.modules, schema), []);
});

test('a module whose tables the reset forgets fails the check above', (t) => {
  const forgetful = app.modules.map((m) => (m.name === 'vaccinations' ? { ...m, reset: {} } : m));
  t.deepEqual(resetProblems(forgetful, schema), ["vaccinations has tenant_id but no manifest's reset erases or keeps it"]);
  // A table a new migration adds, claimed by nobody.
  t.deepEqual(resetProblems(app.modules, { ...schema, tenantTables: new Set([...schema.tenantTables, 'grooming_new_table']) }), [
    "grooming_new_table has tenant_id but no manifest's reset erases or keeps it",
  ]);
  // Erasing a parent before its child.
  const reordered = [...app.modules.filter((m) => m.name !== 'pets'), app.modules.find((m) => m.name === 'pets')!];
  t.true(resetProblems(reordered, schema).some((p) => p.endsWith('is erased after pets, which it points at')));
});

test('every OpenAPI tag a route uses has a description from a manifest, and every described tag is used', (t) => {
  const routeTags = new Set(app.routes.flatMap((r) => r.tags));
  t.deepEqual([...routeTags].filter((tag) => !(tag in app.tags)).sort(), []);
  t.deepEqual(
    Object.keys(app.tags)
      .filter((tag) => !routeTags.has(tag))
      .sort(),
    [],
  );
});
