import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { sameConnection } from '../db/database.js';
import type { EnvironmentStore } from '../db/stores.js';

/** How long a job's queries run back to back before the job gives the event loop a turn. */
export const jobSliceMs = 8;

/**
 * Slices a job's work so it never holds the event loop for long. better-sqlite3 runs each query
 * synchronously and Kysely hands results on through promises (microtasks), so a job looping over
 * thousands of rows (a day of reminders caught up after downtime, a webhook backlog) would never
 * let a request in until it ends. After each query, once `sliceMs` have passed since the last turn,
 * this waits for the next turn of the event loop (setImmediate: after the I/O the requests wait on).
 * Inside a transaction the turn is taken too: requests then run up to their first query, which
 * queues behind the transaction like any other, so the wait is bounded by the rest of it.
 */
export class SliceYieldPlugin implements KyselyPlugin {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = jobSliceMs) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (performance.now() - this.sliceStart >= this.sliceMs) {
      await nextTurn();
      this.sliceStart = performance.now();
    }
    return args.result;
  }
}

const sliced = new WeakMap<EnvironmentStore, EnvironmentStore>();

/**
 * The store as jobs see it: the same connection, write batches and identity (per-database caches,
 * raw statements), with a database whose queries yield between slices (SliceYieldPlugin). One per
 * store, so the slice is shared by every job of the environment.
 */
export function slicedStore(store: EnvironmentStore): EnvironmentStore {
  let view = sliced.get(store);
  if (!view) {
    view = { ...store, db: sameConnection(store.db.withPlugin(new SliceYieldPlugin()), store.db) };
    sliced.set(store, view);
  }
  return view;
}
