import path from 'node:path';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { JobRunner } from '../../jobs/runner.js';
import { DocumentFiles } from '../documents/index.js';
import { presentKnowledgeDocument, presentService, presentStoredAnswer } from './ai.presenter.js';
import {
  AgentAnswerSchema,
  AgentQuerySchema,
  AnswerParams,
  CreateServiceSchema,
  KnowledgeAnswerSchema,
  KnowledgeDocumentSchema,
  KnowledgeQuerySchema,
  KnowledgeUploadSchema,
  ListQuery,
  ServiceDocumentParams,
  ServiceParams,
  ServiceSchema,
  StoredAnswerSchema,
} from './ai.schema.js';
import { askAgent, askService } from './ask.service.js';
import { getAnswer } from './answers.service.js';
import {
  createKnowledgeDocument,
  createService,
  getKnowledgeDocument,
  getService,
  listServiceDocuments,
  listVisibleServices,
  reindexService,
  serviceDocumentCount,
  stageKnowledgeUpload,
  vectorState,
  type KnowledgeFiles,
} from './knowledge.service.js';
import type { LlmClient } from './llm-client.js';
import type { AiAnswersTable } from './ai.table.js';
import type { Composed } from './answers.service.js';
import { businessNow } from '../business-clock/index.js';

const tags = ['AI'];

const scoping =
  'A service without locationIds is tenant-wide and visible to every caller of the tenant; a service bound to locations is visible to a caller ' +
  'that covers all of them (others get 404). ';

/** Where knowledge uploads are kept: beside pet documents, in their own folder. */
export const knowledgeFiles = (dataDir: string): KnowledgeFiles => ({
  knowledge: new DocumentFiles(path.join(dataDir, 'knowledge')),
  pets: new DocumentFiles(dataDir),
});

const answerBody = (row: AiAnswersTable, composed: Composed) => ({
  id: row.id,
  answer: composed.answer,
  abstained: composed.abstained,
  support: composed.support,
  citations: composed.citations,
  retrieval: row.retrieval,
  model: composed.model,
  fallback: composed.fallback,
});

export interface AiRouteDeps {
  config: Config;
  clock: Clock;
  stores: Stores;
  runner: JobRunner;
  llm: LlmClient;
  files: KnowledgeFiles;
}

export function aiRouteList(deps: AiRouteDeps): AnyRoute[] {
  const { llm, files } = deps;
  const now = () => deps.clock.now();
  const askDeps = (env: 'live' | 'sandbox') => ({ llm, writes: deps.stores.get(env).writes });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/ai/services',
      operationId: 'createKnowledgeService',
      summary: 'Create a knowledge service',
      description:
        'Needs `ai`. A searchable set of documents. ' +
        scoping +
        'A caller confined to locations must bind it to some of its own (422 `locations_required`; an unknown or unseen location is 400 `resource_missing`). ' +
        'The embedding model configured now (PETCARE_EMBEDDINGS_MODEL) is pinned to it; its dimension is pinned by the first vectors stored. Emits no event.',
      tags,
      access: { scope: 'ai' },
      body: CreateServiceSchema,
      response: { status: 201, description: 'The new knowledge service', schema: ServiceSchema },
      errors: ['locations_required', 'resource_missing'],
      handler: async ({ db, actor, body }) => {
        const row = await createService(db, actor, body, llm, now());
        return { body: presentService(row, 0, vectorState(row, llm)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/services',
      operationId: 'listKnowledgeServices',
      summary: 'List knowledge services',
      description: 'Needs `ai.read`. Newest first. ' + scoping,
      tags,
      access: { scope: 'ai.read' },
      query: ListQuery,
      response: { status: 200, description: 'A page of knowledge services', schema: pageSchema(ServiceSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const { rows, counts } = await listVisibleServices(db, actor, page);
        return { body: toPage(rows, page, (row) => presentService(row, counts.get(row.id) ?? 0, vectorState(row, llm))) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/services/:id',
      operationId: 'getKnowledgeService',
      summary: 'Get a knowledge service',
      description: 'Needs `ai.read`. ' + scoping + '`retrieval.vector` says whether vectors are searched, and `retrieval.reason` why not.',
      tags,
      access: { scope: 'ai.read' },
      params: ServiceParams,
      response: { status: 200, description: 'The knowledge service', schema: ServiceSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => {
        const row = await getService(db, actor, params.id);
        return { body: presentService(row, await serviceDocumentCount(db, actor, row.id), vectorState(row, llm)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/ai/services/:id/reindex',
      operationId: 'reindexKnowledgeService',
      summary: 'Re-index a knowledge service',
      description:
        'Needs `ai`. Pins the embedding model configured now (or none), drops the old vectors and queues every document of the service for the ' +
        '`ai-indexing` job again: the way out of `embedding_mismatch`. Lexical retrieval of a document resumes once it is indexed again. ' +
        scoping,
      tags,
      access: { scope: 'ai' },
      params: ServiceParams,
      response: { status: 202, description: 'The service, re-pinned; its documents are queued', schema: ServiceSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, afterCommit }) => {
        const { service } = await reindexService(db, actor, params.id, llm, now());
        afterCommit(() => void deps.runner.enqueueNow(actor.env, 'ai-indexing', 'code').catch(() => undefined));
        return { body: presentService(service, await serviceDocumentCount(db, actor, service.id), vectorState(service, llm)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/ai/services/:id/documents',
      operationId: 'uploadKnowledgeDocument',
      summary: 'Add a document to a knowledge service',
      description:
        'Needs `ai`. Three forms: multipart/form-data with one `file` part (PDF, UTF-8 text or Markdown, decided from the content; anything else 415) ' +
        'and an optional `title`, streamed to disk (over PETCARE_DOCUMENT_MAX_BYTES → 413, nothing kept); JSON `{documentId}` of a pet document ' +
        "(visible to the caller, of a pet at one of the service's locations, else 422 `document_outside_service`); or JSON `{title, text}` " +
        '(a form feed starts a new page). Answers 202 with the document `uploaded`; the `ai-indexing` job extracts (PDF text per page), chunks ' +
        'and indexes it (`extracting` → `indexed`, or `failed` with the reason: corrupt or encrypted PDF, no text layer, embedding_mismatch). ' +
        'sha256 is of the file bytes (of the UTF-8 text for JSON text): the same sha256 already in the service answers 200 with that document, ' +
        'indexed once, also under parallel uploads. ' +
        scoping,
      tags,
      access: { scope: 'ai' },
      params: ServiceParams,
      body: KnowledgeUploadSchema,
      bodyTypes: ['multipart/form-data', 'application/json'],
      response: {
        status: 202,
        description: 'The document, queued for indexing',
        schema: KnowledgeDocumentSchema,
        also: [{ status: 200, description: 'The same bytes are already in the service: that document, unchanged' }],
      },
      errors: ['not_found', 'payload_too_large', 'unsupported_media_type', 'document_outside_service'],
      stage: async ({ params, actor, db, ctx }) =>
        stageKnowledgeUpload(files, {
          actor,
          db,
          serviceId: params.id,
          ctx,
          maxBytes: deps.config.documentMaxBytes,
          jsonLimit: deps.config.jsonBodyLimitBytes * 2,
          now: now(),
        }),
      handler: async ({ db, actor, params, staged, afterCommit }) => {
        const { row, created } = await createKnowledgeDocument(db, actor, params.id, staged, now());
        if (created) afterCommit(() => void deps.runner.enqueueNow(actor.env, 'ai-indexing', 'code').catch(() => undefined));
        return { status: created ? 202 : 200, body: presentKnowledgeDocument(row), resourceId: row.id };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/services/:id/documents',
      operationId: 'listKnowledgeDocuments',
      summary: "List a knowledge service's documents",
      description: 'Needs `ai.read`. Newest first, with status, pages, chunks and progress. ' + scoping,
      tags,
      access: { scope: 'ai.read' },
      params: ServiceParams,
      query: ListQuery,
      response: { status: 200, description: 'A page of documents', schema: pageSchema(KnowledgeDocumentSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listServiceDocuments(db, actor, params.id, page), page, presentKnowledgeDocument) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/services/:id/documents/:docId',
      operationId: 'getKnowledgeDocument',
      summary: 'Get a knowledge document',
      description: 'Needs `ai.read`. Its indexing status, pages, chunks, progress and the reason of a failure. ' + scoping,
      tags,
      access: { scope: 'ai.read' },
      params: ServiceDocumentParams,
      response: { status: 200, description: 'The document', schema: KnowledgeDocumentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentKnowledgeDocument(await getKnowledgeDocument(db, actor, params.id, params.docId)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/ai/services/:id/query',
      operationId: 'queryKnowledge',
      summary: 'Ask a knowledge service a question',
      description:
        "Needs `ai` or `ai.read` (a read: answers 200). Retrieval is FTS5 bm25 over the service's indexed chunks; with an embedding model " +
        'configured and pinned, also sqlite-vec cosine distance, fused by reciprocal rank 1/(60+rank) (`retrieval: hybrid`). The answer quotes the ' +
        'best supporting sentences with citations `[n]` (document, chunk, page, snippet, score), or is phrased by the configured chat model from ' +
        'the retrieved passages only, citing them; a model that is down, slow or cites nothing gives the extractive answer with `fallback` set, never ' +
        'an error. `abstained: true` ("I don\'t know") when the support is below the threshold measured on the eval set. A question that is empty, ' +
        'over 2,000 characters, not a string or without words → 400. A service pinned to another embedding model than the configured one, or to ' +
        'vectors of another length than the model answers for the question (pinnedDimension, dimension) → 409 `embedding_mismatch` until re-indexed. ' +
        'The answer is stored (`id`, GET /v1/ai/answers/{id}). ' +
        scoping,
      tags,
      access: { scope: 'ai.read' },
      params: ServiceParams,
      body: KnowledgeQuerySchema,
      transactional: false,
      response: { status: 200, description: 'The answer with its citations', schema: KnowledgeAnswerSchema },
      errors: ['not_found', 'embedding_mismatch'],
      handler: async ({ db, actor, params, body }) => {
        const { row, composed } = await askService(db, actor, params.id, body, askDeps(actor.env), now());
        return { body: answerBody(row, composed) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/ai/agent/query',
      operationId: 'agentQuery',
      summary: 'Ask the clinic agent (documents and live counts)',
      description:
        'Needs `ai` or `ai.read` (answers 200). `scope` is a location id (one the caller may see, else 404) or `tenant` (every location the caller ' +
        'may see). Searches every knowledge service visible to the caller that is tenant-wide or bound to a location of the scope, as the service ' +
        'query does, and answers a count question ("how many dogs are boarded at Downtown tonight?") with `liveCounts` computed in SQL at that ' +
        "moment — pets_total, appointments_today, boarded_tonight (each location's own time zone; species and location names in the question " +
        'narrow it) — or a §14 analytics metric through the analytics module (revenue, no-show rate, occupancy…; window from the question, default this month; ' +
        'a money metric once per currency of the locations covered, never a 400 for want of one; only with `analytics.read`, else the answer says so and gives no figure) — chosen by a deterministic intent matcher; a model may phrase ' +
        'the rest, never the number. A service whose pinned embedding model or dimension the model server no longer matches is searched lexically, ' +
        'with `fallback` saying so (`embedding_mismatch: …`). In the sandbox, counts follow the sandbox clock. Every answer is stored (ans_). ',
      tags,
      access: { scope: 'ai.read' },
      body: AgentQuerySchema,
      transactional: false,
      response: { status: 200, description: 'The answer, its citations and live counts', schema: AgentAnswerSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, body }) => {
        // Live counts read the business clock (the sandbox's test clock in the sandbox), as boarding and reminders do.
        const { row, composed, liveCounts } = await askAgent(db, actor, body, askDeps(actor.env), now(), await businessNow(db, actor.env, deps.clock));
        return { body: { ...answerBody(row, composed), scope: body.scope, liveCounts } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/answers/:id',
      operationId: 'getAnswer',
      summary: 'Get a stored answer',
      description:
        'Needs `ai.read`. Any answer of the knowledge or agent query, with its question, citations and live counts. Readable by a caller that covers ' +
        'every location the answer drew from (the scope, the services cited, the counts); others get 404.',
      tags,
      access: { scope: 'ai.read' },
      params: AnswerParams,
      response: { status: 200, description: 'The stored answer', schema: StoredAnswerSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentStoredAnswer(await getAnswer(db, actor, params.id)) }),
    }),
  ];
}
