import type { Static } from '@sinclair/typebox';
import type { AiAnswersTable, AiDocumentsTable, AiServicesTable } from './ai.table.js';
import type { Citation, KnowledgeDocumentSchema, LiveCount, ServiceSchema, StoredAnswerSchema } from './ai.schema.js';

export interface VectorState {
  /** Vector retrieval runs for this service. */
  vector: boolean;
  reason: string | null;
}

export function presentService(row: AiServicesTable, documentCount: number, vectors: VectorState): Static<typeof ServiceSchema> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    locationIds: row.location_ids === null ? null : (JSON.parse(row.location_ids) as string[]),
    retrieval: { lexical: true, vector: vectors.vector, embeddingModel: row.embedding_model, dimension: row.dimension, reason: vectors.reason },
    documentCount,
    createdAt: row.created_at,
  };
}

export function presentKnowledgeDocument(row: AiDocumentsTable): Static<typeof KnowledgeDocumentSchema> {
  const total = row.chunks_total ?? 0;
  const progress = row.status === 'indexed' ? 1 : total > 0 ? Math.min(1, (row.chunks ?? 0) / total) : 0;
  return {
    id: row.id,
    serviceId: row.service_id,
    title: row.title,
    source: row.source,
    contentType: row.content_type,
    sourceDocumentId: row.source_document_id,
    status: row.status,
    sha256: row.sha256,
    sizeBytes: row.size_bytes,
    pages: row.pages,
    chunks: row.chunks,
    progress: Math.round(progress * 1000) / 1000,
    error: row.error,
    createdAt: row.created_at,
    indexedAt: row.indexed_at,
  };
}

export function presentStoredAnswer(row: AiAnswersTable): Static<typeof StoredAnswerSchema> {
  return {
    id: row.id,
    kind: row.kind,
    question: row.question,
    serviceId: row.service_id,
    scope: row.scope,
    answer: row.answer,
    abstained: row.abstained === 1,
    support: row.support,
    citations: JSON.parse(row.citations) as Citation[],
    liveCounts: JSON.parse(row.live_counts) as LiveCount[],
    retrieval: row.retrieval,
    model: row.model,
    fallback: row.fallback,
    createdAt: row.created_at,
  };
}
