import type { Generated } from 'kysely';

/** Tables of the AI platform (DESIGN §13; migration create_ai_knowledge). */
export interface AiServicesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  /** JSON array of location ids, sorted; null = tenant-wide. */
  location_ids: string | null;
  /** Pinned at creation when embeddings are configured; null = lexical only. */
  embedding_model: string | null;
  /** Pinned with the first embedding the service stores. */
  dimension: number | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type AiDocumentStatus = 'uploaded' | 'extracting' | 'indexed' | 'failed';
export type AiDocumentSource = 'file' | 'pet_document' | 'text';

export interface AiDocumentsTable {
  id: string;
  tenant_id: string;
  service_id: string;
  title: string;
  source: AiDocumentSource;
  /** application/pdf | text/plain | text/markdown, sniffed from the bytes. */
  content_type: string;
  filename: string | null;
  /** doc_… of the pet document it was taken from (source pet_document). */
  source_document_id: string | null;
  /** File under `<dataDir>/knowledge/documents/<env>/` (source file). */
  storage_key: string | null;
  /** The text as given (source text). */
  source_text: string | null;
  size_bytes: number;
  /** Of the file bytes, or of the UTF-8 text. */
  sha256: string;
  status: AiDocumentStatus;
  pages: number | null;
  /** Chunks indexed so far (progress while extracting). */
  chunks: number | null;
  /** Chunks the document splits into, once extracted. */
  chunks_total: number | null;
  error: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  indexed_at: string | null;
}

export interface AiChunksTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  service_id: string;
  document_id: string;
  position: number;
  page: number | null;
  text: string;
}

export interface AiChunkVectorsTable {
  chunk_seq: number;
  service_id: string;
  model: string;
  dimension: number;
  /** Float32 little-endian, `dimension` values. */
  embedding: Buffer;
}

export interface AiAnswersTable {
  id: string;
  tenant_id: string;
  kind: 'knowledge' | 'agent';
  service_id: string | null;
  scope: string | null;
  /** JSON array of the locations the answer drew from (who may read it); null = the whole tenant. */
  location_ids: string | null;
  question: string;
  answer: string;
  abstained: number;
  support: number;
  citations: string;
  live_counts: string;
  retrieval: 'lexical' | 'hybrid';
  model: string;
  fallback: string | null;
  created_by: string;
  created_at: string;
}

/** One row (id 1): moved by triggers on every chunk write, so term statistics are reused while it stands still. */
export interface AiIndexVersionTable {
  id: number;
  version: number;
}

export interface AiTables {
  ai_index_version: AiIndexVersionTable;
  ai_services: AiServicesTable;
  ai_documents: AiDocumentsTable;
  ai_chunks: AiChunksTable;
  ai_chunk_vectors: AiChunkVectorsTable;
  ai_answers: AiAnswersTable;
}
