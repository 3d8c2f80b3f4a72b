/**
 * Bench cases of the modules built on the platform, each measured against (b) GET /v1/pets/:id in
 * the same run. A module adds its case as one file beside this one (`<module>-bench.ts`, seeding
 * its fixtures by direct SQL inserts where the API would be too slow) and one line in `moduleCases`;
 * run-bench.ts runs every case after (i), or only the named ones with `npm run bench -- --only j,k`.
 */
import type autocannon from 'autocannon';
import type { BenchFixtures, GatewayServer } from './bench-servers.js';
import { analyticsCase } from './analytics-bench.js';
import { marketplaceDirectoryCase } from './marketplace-bench.js';
import { aiKnowledgeCase } from './ai-bench.js';

export interface PreparedCase {
  /** autocannon options, built anew for the warm-up and for the measured run. */
  options: () => autocannon.Options;
  /** Called after the warm-up, e.g. to count rows written by the measured run only. */
  afterWarmup?: () => void;
  /** One line printed under the table once the run is done: what the answer covered, rows written. */
  report?: () => string;
}

export interface ModuleBenchCase {
  /** A letter after (i): j, k, l… */
  key: string;
  /** The row's name, e.g. `GET /v1/providers (2,000 providers, category + minRating)`. */
  label: string;
  /** The issue's target as a share of (b)'s throughput. */
  targetOverGet: number;
  /** Seeds what the case reads (the gateway is running; its database is in `gateway.dataDir`). */
  prepare(gateway: GatewayServer, fx: BenchFixtures): Promise<PreparedCase>;
}

export const moduleCases: readonly ModuleBenchCase[] = [
  // One line per module case, in key order.
  marketplaceDirectoryCase,
  analyticsCase,
  aiKnowledgeCase,
];
