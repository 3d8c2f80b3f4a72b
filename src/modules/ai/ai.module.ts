import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { ModuleManifest } from '../../module-manifest.js';
import type { AiTables } from './ai.table.js';
import type { RecallTables } from './recall.table.js';
import { deleteTenantKnowledge } from './ai.repository.js';
import { aiRouteList, knowledgeFiles } from './ai.routes.js';
import { careCoordinatorRoutes } from './care-coordinator.routes.js';
import { aiIndexingJob } from './knowledge-indexing.js';
import { LlmClient } from './llm-client.js';
import { deleteTenantCampaigns } from './recall.repository.js';
import { recallRoutes } from './recall.routes.js';
import { aiErrorCodes } from './ai.errors.js';
import { aiEvents } from './ai.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends AiTables, RecallTables {}
}

/** The AI platform (DESIGN §13): knowledge services, their index, answers with citations, the agent query; the care coordinator and recall campaigns. */
export const aiModule: ModuleManifest<{ config: Config; clock: Clock; stores: Stores; runner: JobRunner }> = {
  name: 'ai',
  events: aiEvents,
  errors: aiErrorCodes,
  sdk: {
    ai: {
      services: {
        create: 'createKnowledgeService',
        list: 'listKnowledgeServices',
        get: 'getKnowledgeService',
        reindex: 'reindexKnowledgeService',
      },
      knowledge: {
        add: 'uploadKnowledgeDocument',
        list: 'listKnowledgeDocuments',
        get: 'getKnowledgeDocument',
        query: 'queryKnowledge',
      },
      agent: {
        query: 'agentQuery',
      },
      answers: {
        get: 'getAnswer',
      },
      careCoordinator: 'getCareCoordinatorSummary',
      recalls: {
        create: 'createRecall',
        list: 'listRecalls',
        get: 'getRecall',
      },
    },
  },
  routes: (deps) => [
    ...aiRouteList({ ...deps, llm: new LlmClient(deps.config), files: knowledgeFiles(deps.config.dataDir) }),
    ...careCoordinatorRoutes(deps),
    ...recallRoutes(deps),
  ],
  // `ai-indexing`: extracts, chunks and indexes uploaded knowledge documents.
  jobs: (deps) => [aiIndexingJob({ llm: new LlmClient(deps.config), files: knowledgeFiles(deps.config.dataDir) })],
  tags: {
    AI: 'Knowledge services (ais_ ids) and their documents (kdoc_ ids), indexed for lexical (FTS5) and optional vector retrieval; answers with citations or an abstention, and the agent query with live counts from SQL (stored as ans_ ids).',
    'AI agents':
      "The care coordinator (a pet's care summary and rule-based next actions, computed from the database) and vaccination recall campaigns (rcl_ ids) sent through the notifications outbox.",
  },
  tables: [
    'ai_services',
    'ai_documents',
    'ai_chunks',
    'ai_chunks_fts',
    'ai_chunk_vectors',
    'ai_answers',
    'ai_index_version',
    'ai_recall_campaigns',
    'ai_recall_recipients',
  ],
  access: {
    ai_services: { location: null, why: 'a knowledge service names the locations it answers for in location_ids; the ai module checks them' },
    ai_documents: { parent: 'ai_services', key: 'service_id' },
    ai_chunks: { parent: 'ai_documents', key: 'document_id' },
    ai_chunks_fts: { system: 'the full-text index of ai_chunks, joined by rowid' },
    ai_chunk_vectors: { system: 'the vector index of ai_chunks, joined by rowid' },
    ai_answers: { location: null, why: 'an answer records the locations it drew on in location_ids; the ai module checks them' },
    ai_index_version: { system: 'a counter of index changes' },
    ai_recall_campaigns: {
      location: null,
      why: 'a campaign names the locations it covered in scope_location_ids (location_id, the one asked for, may be null); the ai module checks them',
    },
    ai_recall_recipients: { parent: 'ai_recall_campaigns', key: 'campaign_id' },
  },
  reset: {
    // The reminder ledger and notifications a campaign wrote go with the notifications module's rows.
    erase: {
      tables: ['ai_recall_recipients', 'ai_recall_campaigns', 'ai_answers', 'ai_chunk_vectors', 'ai_chunks', 'ai_documents', 'ai_services'],
      run: async (db, tenantId) => {
        await deleteTenantCampaigns(db, tenantId);
        await deleteTenantKnowledge(db, tenantId);
      },
    },
    // Every uploaded knowledge file of the environment (pet documents are the documents module's).
    files: (dataDir, env) => knowledgeFiles(dataDir).knowledge.removeAllStored(env),
  },
};
