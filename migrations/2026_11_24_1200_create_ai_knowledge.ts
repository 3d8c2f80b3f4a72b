import { sql, type Kysely } from 'kysely';

/**
 * The AI platform's knowledge (DESIGN §13): services (a searchable set of documents, tenant-wide
 * or bound to locations), their documents (one per sha256 per service), page-aware chunks with an
 * FTS5 index kept in step by triggers, optional embeddings per chunk (searched with sqlite-vec's
 * distance functions when the extension loads), and every answer given.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ai_services (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      description TEXT,
      location_ids TEXT CHECK (location_ids IS NULL OR json_valid(location_ids)),
      embedding_model TEXT,
      dimension INTEGER CHECK (dimension IS NULL OR dimension BETWEEN 1 AND 8192),
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX ai_services_tenant_idx ON ai_services (tenant_id, id)`.execute(db);

  await sql`
    CREATE TABLE ai_documents (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      service_id TEXT NOT NULL REFERENCES ai_services(id),
      title TEXT NOT NULL,
      source TEXT NOT NULL CHECK (source IN ('file', 'pet_document', 'text')),
      content_type TEXT NOT NULL,
      filename TEXT,
      source_document_id TEXT,
      storage_key TEXT,
      source_text TEXT,
      size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
      sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
      status TEXT NOT NULL CHECK (status IN ('uploaded', 'extracting', 'indexed', 'failed')),
      pages INTEGER,
      chunks INTEGER,
      chunks_total INTEGER,
      error TEXT,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      indexed_at TEXT,
      UNIQUE (service_id, sha256)
    )`.execute(db);
  await sql`CREATE INDEX ai_documents_service_idx ON ai_documents (service_id, id)`.execute(db);
  await sql`CREATE INDEX ai_documents_pending_idx ON ai_documents (status) WHERE status IN ('uploaded', 'extracting')`.execute(db);

  await sql`
    CREATE TABLE ai_chunks (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      tenant_id TEXT NOT NULL,
      service_id TEXT NOT NULL REFERENCES ai_services(id),
      document_id TEXT NOT NULL REFERENCES ai_documents(id),
      position INTEGER NOT NULL CHECK (position >= 0),
      page INTEGER CHECK (page IS NULL OR page >= 1),
      text TEXT NOT NULL,
      UNIQUE (document_id, position)
    )`.execute(db);
  await sql`CREATE INDEX ai_chunks_service_idx ON ai_chunks (service_id, seq)`.execute(db);
  await sql`CREATE VIRTUAL TABLE ai_chunks_fts USING fts5(text, content='ai_chunks', content_rowid='seq', tokenize='porter unicode61')`.execute(db);
  await sql`
    CREATE TRIGGER ai_chunks_fts_insert AFTER INSERT ON ai_chunks BEGIN
      INSERT INTO ai_chunks_fts(rowid, text) VALUES (new.seq, new.text);
    END`.execute(db);
  await sql`
    CREATE TRIGGER ai_chunks_fts_delete AFTER DELETE ON ai_chunks BEGIN
      INSERT INTO ai_chunks_fts(ai_chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    END`.execute(db);

  await sql`
    CREATE TABLE ai_chunk_vectors (
      chunk_seq INTEGER PRIMARY KEY REFERENCES ai_chunks(seq) ON DELETE CASCADE,
      service_id TEXT NOT NULL,
      model TEXT NOT NULL,
      dimension INTEGER NOT NULL CHECK (dimension BETWEEN 1 AND 8192),
      embedding BLOB NOT NULL CHECK (length(embedding) = 4 * dimension)
    )`.execute(db);
  await sql`CREATE INDEX ai_chunk_vectors_service_idx ON ai_chunk_vectors (service_id)`.execute(db);

  await sql`
    CREATE TABLE ai_answers (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      kind TEXT NOT NULL CHECK (kind IN ('knowledge', 'agent')),
      service_id TEXT,
      scope TEXT,
      location_ids TEXT CHECK (location_ids IS NULL OR json_valid(location_ids)),
      question TEXT NOT NULL,
      answer TEXT NOT NULL,
      abstained INTEGER NOT NULL CHECK (abstained IN (0, 1)),
      support REAL NOT NULL,
      citations TEXT NOT NULL CHECK (json_valid(citations)),
      live_counts TEXT NOT NULL CHECK (json_valid(live_counts)),
      retrieval TEXT NOT NULL CHECK (retrieval IN ('lexical', 'hybrid')),
      model TEXT NOT NULL,
      fallback TEXT,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX ai_answers_tenant_idx ON ai_answers (tenant_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['ai_answers', 'ai_chunk_vectors']) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
  await sql`DROP TABLE ai_chunks_fts`.execute(db);
  for (const table of ['ai_chunks', 'ai_documents', 'ai_services']) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
}
