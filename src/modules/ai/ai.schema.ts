import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText, RecordId as Id } from '../../http/schema-fields.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const questionMaxLength = 2000;
export const knowledgeTextMaxLength = 1_000_000;

export const CreateServiceSchema = Type.Object(
  {
    name: NonBlankText(200),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    locationIds: Type.Optional(
      Type.Array(Id('loc', 'A location'), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'Locations whose staff may use it; omit for a tenant-wide service (tenant-wide callers only).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateServiceInput = Static<typeof CreateServiceSchema>;

export const ServiceSchema = Type.Object(
  {
    id: Type.String({ description: 'Knowledge service id (ais_…).' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    locationIds: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: tenant-wide.' }),
    retrieval: Type.Object(
      {
        lexical: Type.Literal(true),
        vector: Type.Boolean({ description: 'Vectors are searched too (an embedding model is pinned and sqlite-vec is loaded).' }),
        embeddingModel: Nullable(Type.String({ description: 'Pinned embedding model.' })),
        dimension: Nullable(Type.Integer({ description: 'Pinned dimension (set by the first embedding stored).' })),
        reason: Nullable(Type.String({ description: 'Why vectors are off, when they are.' })),
      },
      { additionalProperties: false },
    ),
    documentCount: Type.Integer({ minimum: 0 }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ServiceParams = Type.Object({ id: Id('ais', 'The knowledge service') }, { additionalProperties: false });
export const ServiceDocumentParams = Type.Object(
  { id: Id('ais', 'The knowledge service'), docId: Id('kdoc', 'The knowledge document') },
  { additionalProperties: false },
);
export const AnswerParams = Type.Object({ id: Id('ans', 'The answer') }, { additionalProperties: false });
export const ListQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });

export const DocumentStatusSchema = Type.Union([Type.Literal('uploaded'), Type.Literal('extracting'), Type.Literal('indexed'), Type.Literal('failed')]);

export const KnowledgeDocumentSchema = Type.Object(
  {
    id: Type.String({ description: 'Knowledge document id (kdoc_…).' }),
    serviceId: Type.String(),
    title: Type.String(),
    source: Type.Union([Type.Literal('file'), Type.Literal('pet_document'), Type.Literal('text')]),
    contentType: Type.String({ description: 'application/pdf, text/plain or text/markdown (from the content).' }),
    sourceDocumentId: Nullable(Type.String({ description: 'The pet document it was taken from (doc_…).' })),
    status: DocumentStatusSchema,
    sha256: Type.String({ description: 'Of the file bytes, or of the UTF-8 text.' }),
    sizeBytes: Type.Integer({ minimum: 0 }),
    pages: Nullable(Type.Integer()),
    chunks: Nullable(Type.Integer({ description: 'Chunks indexed (while extracting: so far).' })),
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the chunks indexed (1 when indexed).' }),
    error: Nullable(Type.String({ description: 'Why it failed (e.g. encrypted PDF, embedding_mismatch).' })),
    createdAt: Type.String({ format: 'date-time' }),
    indexedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const TextUploadSchema = Type.Object(
  {
    title: NonBlankText(300),
    text: Type.String({
      minLength: 1,
      maxLength: knowledgeTextMaxLength,
      pattern: '\\S',
      description: 'The document text; a form feed (\\f) starts a new page.',
    }),
    contentType: Type.Optional(Type.Union([Type.Literal('text/plain'), Type.Literal('text/markdown')])),
  },
  { additionalProperties: false },
);
export const PetDocumentUploadSchema = Type.Object(
  { documentId: Id('doc', "A pet document (PDF, text or Markdown) of a pet at one of the service's locations"), title: Type.Optional(NonBlankText(300)) },
  { additionalProperties: false },
);
export const UploadFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'PDF, text or Markdown; the type is decided from the content.' }),
    title: Type.Optional(NonBlankText(300)),
  },
  { additionalProperties: false },
);
export const UploadFieldsSchema = Type.Object({ title: Type.Optional(NonBlankText(300)) }, { additionalProperties: false });
export const KnowledgeUploadSchema = Type.Union([UploadFormSchema, PetDocumentUploadSchema, TextUploadSchema]);
export const JsonUploadSchema = Type.Union([PetDocumentUploadSchema, TextUploadSchema]);
export type JsonUpload = Static<typeof JsonUploadSchema>;

// Printable text: no control characters other than tab and line breaks.
const questionField = Type.String({
  minLength: 1,
  maxLength: questionMaxLength,
  pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$',
  description: `A question in words: 1–${questionMaxLength} characters, with at least one letter and no control characters.`,
});

export const KnowledgeQuerySchema = Type.Object(
  { question: questionField, topK: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })) },
  { additionalProperties: false },
);
export const AgentQuerySchema = Type.Object(
  {
    question: questionField,
    scope: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^(tenant|loc_[a-z0-9_]{1,80})$',
      description: 'A location id, or `tenant`: every location the caller may see.',
    }),
  },
  { additionalProperties: false },
);

export const CitationSchema = Type.Object(
  {
    documentId: Type.String(),
    chunkId: Type.String(),
    title: Type.String(),
    page: Nullable(Type.Integer()),
    snippet: Type.String(),
    score: Type.Number({ description: 'Lexical: -bm25 (higher is better); hybrid: the reciprocal-rank fusion score.' }),
  },
  { additionalProperties: false },
);
export type Citation = Static<typeof CitationSchema>;

export const LiveCountSchema = Type.Object(
  {
    metric: Type.String({ description: 'pets_total, appointments_today, boarded_tonight (point in time), or a §14 analytics metric.' }),
    value: Type.Number(),
    unit: Type.Union([Type.Literal('count'), Type.Literal('ratio'), Type.Literal('minor')]),
    currency: Type.Optional(Type.String({ description: 'ISO 4217, for unit minor.' })),
    from: Type.Optional(Type.String({ format: 'date', description: 'Analytics metrics: first local date of the window.' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'Analytics metrics: last local date of the window.' })),
    asOf: Type.String({ format: 'date-time' }),
    locationIds: Type.Array(Type.String()),
    basis: Type.Object({ date: Type.String(), formula: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: false },
);
export type LiveCount = Static<typeof LiveCountSchema>;

const answerFields = {
  id: Type.String({ description: 'Stored answer id (ans_…), readable at GET /v1/ai/answers/{id}.' }),
  answer: Type.String(),
  abstained: Type.Boolean({ description: 'True when the documents do not support an answer (support below the measured threshold).' }),
  support: Type.Number({ minimum: 0, maximum: 1, description: "Share of the question's content words found in the best passage." }),
  citations: Type.Array(CitationSchema),
  retrieval: Type.Union([Type.Literal('lexical'), Type.Literal('hybrid')]),
  model: Type.String({ description: 'The chat model that phrased it, or `extractive`.' }),
  fallback: Nullable(Type.String({ description: 'Why the answer is extractive or lexical although a model server is configured (down, slow, uncited).' })),
};

export const KnowledgeAnswerSchema = Type.Object(answerFields, { additionalProperties: false });
export const AgentAnswerSchema = Type.Object(
  { ...answerFields, scope: Type.String(), liveCounts: Type.Array(LiveCountSchema) },
  { additionalProperties: false },
);
export const StoredAnswerSchema = Type.Object(
  {
    ...answerFields,
    kind: Type.Union([Type.Literal('knowledge'), Type.Literal('agent')]),
    question: Type.String(),
    serviceId: Nullable(Type.String()),
    scope: Nullable(Type.String()),
    liveCounts: Type.Array(LiveCountSchema),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
