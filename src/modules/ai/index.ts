import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import type { AnyRoute } from '../../http/route.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import type { JobRunner } from '../../jobs/runner.js';
import { aiRouteList, knowledgeFiles } from './ai.routes.js';
import { aiIndexingJob } from './knowledge-indexing.js';
import { LlmClient } from './llm-client.js';

/** The AI platform (DESIGN §13): knowledge services, documents and their index, answers with citations, the agent query. */
export function aiRoutes(deps: { config: Config; clock: Clock; stores: Stores; runner: JobRunner }): AnyRoute[] {
  return aiRouteList({ ...deps, llm: new LlmClient(deps.config), files: knowledgeFiles(deps.config.dataDir) });
}

/** `ai-indexing`: extracts, chunks and indexes uploaded knowledge documents. */
export function aiJobs(deps: { config: Config }): JobDefinition[] {
  return [aiIndexingJob({ llm: new LlmClient(deps.config), files: knowledgeFiles(deps.config.dataDir) })];
}

export { LlmClient, LlmUnavailable } from './llm-client.js';
/** Sandbox reset: the tenant's knowledge services, documents, chunks and answers. */
export { deleteTenantKnowledge as eraseKnowledgeRecords } from './ai.repository.js';
/** Sandbox reset, after its transaction: removes every uploaded knowledge file of the environment (pet documents are not touched). */
export const removeStoredKnowledgeFiles = (dataDir: string, env: 'live' | 'sandbox'): number => knowledgeFiles(dataDir).knowledge.removeAllStored(env);

// AI-C's part (care coordinator and recall), mounted by app.ts as aiAgentRoutes.
import { careCoordinatorRoutes } from './care-coordinator.routes.js';
import { recallRoutes } from './recall.routes.js';
export function aiAgentRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  return [...careCoordinatorRoutes(deps), ...recallRoutes(deps)];
}
/** Sandbox reset: the tenant's recall campaigns (the reminder ledger and notifications they wrote are reset with the sandbox's own tables). */
export { deleteTenantCampaigns as eraseRecallCampaigns } from './recall.repository.js';
export { aiModule } from './ai.module.js';
