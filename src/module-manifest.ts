import type { TSchema } from '@sinclair/typebox';
import type { Environment } from './config.js';
import type { TablePolicy } from './db/access-policy.js';
import type { Executor } from './db/database.js';
import type { ErrorCodeInfo } from './http/errors.js';
import type { AnyRoute } from './http/route.js';
import type { HousekeepingTask } from './jobs/housekeeping.js';
import type { JobDefinition } from './jobs/job-definition.js';

/**
 * What a module brings to the app, described once (its `index.ts` exports it): `src/app.ts` mounts
 * the routes and registers the jobs and housekeeping of one ordered list of these, OpenAPI takes the
 * tags from it and the sandbox reset erases through it. Like Outline's `PluginManager.register`, the
 * core never lists a feature's parts by hand.
 *
 * `Deps` is what the module's factories need from the app's shared services (`{ config; clock }`…);
 * the app's list checks it provides them. This file imports no module, so `http/` and `jobs/` never do.
 */
export interface ModuleManifest<Deps = never> {
  /** The module's folder name, e.g. `vaccinations`. */
  readonly name: string;
  /** Its routes, in the order they match and appear in /openapi.json. */
  readonly routes?: (deps: Deps) => AnyRoute[];
  /** Its background jobs (names unique across the app). */
  readonly jobs?: (deps: Deps) => JobDefinition[];
  /** Its share of the `housekeeping` job. */
  readonly housekeeping?: (deps: Deps) => HousekeepingTask[];
  /** Each OpenAPI tag its routes use, with the description /openapi.json gives it. */
  readonly tags?: Readonly<Record<string, string>>;
  /** Every table its migrations create (a virtual table stands for its shadow tables); each table has one owner. */
  readonly tables?: readonly string[];
  /**
   * How each of those tables is confined to a caller (`src/db/access-policy.ts`): `scoped(db, actor)`
   * reads it. Tested: every table of `tables` has one.
   */
  readonly access?: Readonly<Record<string, TablePolicy>>;
  /** How the sandbox reset erases a tenant's rows of those tables (tested: every table with `tenant_id` is named here). */
  readonly reset?: ModuleReset;
  /**
   * The event types it emits, with their data schemas: GET /v1/event-types lists them. The module also
   * adds them to `EventCatalogue` (`src/event-catalogue.ts`), so `emit` checks each payload against its type's schema.
   */
  readonly events?: Readonly<Record<string, EventTypeInfo>>;
  /** Its own error codes (a code several modules answer stays in `src/http/errors.ts`); it adds them to `ModuleErrorCodes` too. */
  readonly errors?: Readonly<Record<string, ErrorCodeInfo>>;
  /**
   * Its SDK methods: resource → method name → the operationId of one of its routes, nested for
   * sub-resources (`{ pets: { vaccinations: { create: 'createVaccination' } } }`; modules may add to
   * one resource). `npm run sdk:types` generates the SDK's resource table from these and the routes.
   */
  readonly sdk?: SdkResources;
}

/** SDK method names and the operations they call (see `ModuleManifest.sdk`). */
export interface SdkResources {
  readonly [name: string]: string | SdkResources;
}

/** An event type as GET /v1/event-types describes it. */
export interface EventTypeInfo {
  readonly description: string;
  /** The operation that emits it. */
  readonly emittedBy: string;
  /** JSON Schema of the envelope's `data`. */
  readonly data: TSchema;
  /** Other names a client may subscribe by (DESIGN §6). */
  readonly aliases?: readonly string[];
}

/**
 * A tenant's rows go in two passes: first each module's own `erase` (latest module in the app's list
 * first: a module's rows point at modules listed before it), then each module's plain `rows`, again
 * latest module first. So a table someone else's rows point at goes in `rows`.
 */
export interface ModuleReset {
  /** The module's own erasure (append-only tables, rows others' plain rows are pointed at by), and the tables it empties. */
  readonly erase?: { readonly tables: readonly string[]; readonly run: (db: Executor, tenantId: string) => Promise<void> };
  /** Tables emptied by `DELETE … WHERE tenant_id = ?` in this order (children first), after every module's `erase`. */
  readonly rows?: readonly string[];
  /** Tables whose rows an `ON DELETE CASCADE` removes with their parent's: table → parent table. */
  readonly cascades?: Readonly<Record<string, string>>;
  /** Tables with tenant rows the reset keeps: table → why. */
  readonly keeps?: Readonly<Record<string, string>>;
  /** Removes the environment's stored files of the erased rows; run after the reset commits, in the modules' order. */
  readonly files?: (dataDir: string, env: Environment) => unknown;
}

/** The manifests' OpenAPI tag descriptions; a tag described twice is a mistake. */
export function tagDescriptionsOf(manifests: readonly ModuleManifest<never>[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const manifest of manifests) {
    for (const [tag, description] of Object.entries(manifest.tags ?? {})) {
      if (tag in tags) throw new Error(`OpenAPI tag ${tag} is described by two modules (${manifest.name})`);
      tags[tag] = description;
    }
  }
  return tags;
}

/** One step of the sandbox reset, in the order it runs. */
export type ResetStep =
  | { readonly module: string; readonly kind: 'erase'; readonly tables: readonly string[]; readonly run: (db: Executor, tenantId: string) => Promise<void> }
  | { readonly module: string; readonly kind: 'rows'; readonly tables: readonly string[] };

/** The sandbox reset's steps (see `ModuleReset`): own erasures latest module first, then plain rows latest module first. */
export function resetSteps(manifests: readonly ModuleManifest<never>[]): ResetStep[] {
  const latestFirst = [...manifests].reverse();
  return [
    ...latestFirst.flatMap((m): ResetStep[] => (m.reset?.erase ? [{ module: m.name, kind: 'erase', ...m.reset.erase }] : [])),
    ...latestFirst.flatMap((m): ResetStep[] => (m.reset?.rows?.length ? [{ module: m.name, kind: 'rows', tables: m.reset.rows }] : [])),
  ];
}
