import { documentContentTypes } from './content-sniffing.js';
import { publicBaseUrl } from '../../http/public-url.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { AppError } from '../../http/errors.js';
import type { DocumentContentType } from './content-sniffing.js';
import { parseByteRange } from './byte-range.js';
import { contentDisposition, DocumentFiles, downloadName } from './document-files.js';
import { presentDocument } from './documents.presenter.js';
import {
  DeletedDocumentSchema,
  DocumentContentSchema,
  DocumentParams,
  DocumentSchema,
  ListDocumentsQuery,
  PetDocumentsParams,
  UploadFormSchema,
} from './documents.schema.js';
import { createDocument, deleteDocument, getDocument, listDocuments, stageUpload } from './documents.service.js';

const tags = ['Documents'];

const baseUrlOf = publicBaseUrl;

/** An If-None-Match list matches a strong ETag (RFC 9110 §13.1.2; weak comparison is fine for GET). */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function documentRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  const files = new DocumentFiles(deps.config.dataDir);
  const max = deps.config.documentMaxBytes;
  const limit = max >= 1024 * 1024 ? `${Math.round((max / (1024 * 1024)) * 10) / 10} MB` : `${max} bytes`;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/pets/:id/documents',
      operationId: 'uploadPetDocument',
      summary: "Upload a document to a pet's record",
      description:
        'multipart/form-data with one file part `file` and optional `title` and `kind`. The body is streamed to disk, never buffered, and only ' +
        `after the pet is found visible. Limit: ${limit} (PETCARE_DOCUMENT_MAX_BYTES), else 413 and nothing is kept. The type is decided from the ` +
        'content (magic bytes): PDF, PNG, JPEG, WebP, or UTF-8 text (Markdown when named .md or sent as text/markdown); anything else answers 415. ' +
        'A file whose declared Content-Type differs from its content is stored as what it is, with `contentTypeMismatch: true`. ' +
        "The client's file name is kept as sanitized metadata only; the file is stored under the document id. SHA-256 and size are recorded; " +
        'text is extracted from PDFs (text layer) and text files for search (see textStatus). With an Idempotency-Key, a retry of the same file and ' +
        'fields answers the first document without storing a second copy.',
      tags,
      access: { scope: 'pets' },
      params: PetDocumentsParams,
      body: UploadFormSchema,
      bodyTypes: ['multipart/form-data'],
      response: { status: 201, description: 'The stored document', schema: DocumentSchema },
      errors: ['not_found', 'payload_too_large', 'unsupported_media_type'],
      stage: async ({ params, actor, db, ctx }) =>
        stageUpload(files, { env: actor.env, actor, db, petId: params.id, req: ctx.req, maxBytes: deps.config.documentMaxBytes, now: deps.clock.now() }),
      handler: async ({ db, actor, staged, ctx }) => {
        const row = await createDocument(db, actor, staged, deps.clock.now());
        // The audit trail names the new document, not the pet of the path.
        return { body: presentDocument(row, baseUrlOf(deps.config, ctx)), resourceId: row.id };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/pets/:id/documents',
      operationId: 'listPetDocuments',
      summary: "List a pet's documents",
      description: 'Newest first; filter by kind. The pet must be visible to the caller (404 otherwise).',
      tags,
      access: { scope: 'pets.read' },
      params: PetDocumentsParams,
      query: ListDocumentsQuery,
      response: { status: 200, description: 'A page of documents', schema: pageSchema(DocumentSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query, ctx }) => {
        const page = pageRequest(query);
        const rows = await listDocuments(db, actor, params.id, page, query);
        const baseUrl = baseUrlOf(deps.config, ctx);
        return { body: toPage(rows, page, (row) => presentDocument(row, baseUrl)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/documents/:id',
      operationId: 'getDocument',
      summary: "Get a document's metadata",
      description: "Visible when its pet is (the pet's location for location-scoped clients). The bytes are at contentUrl.",
      tags,
      access: { scope: 'pets.read' },
      params: DocumentParams,
      response: { status: 200, description: 'The document metadata', schema: DocumentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, ctx }) => ({ body: presentDocument(await getDocument(db, actor, params.id), baseUrlOf(deps.config, ctx)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/documents/:id/content',
      operationId: 'getDocumentContent',
      summary: "Download a document's bytes",
      description:
        'Streams the stored bytes, byte-identical to the upload, with Content-Type set to the sniffed type (application/pdf, image/png, image/jpeg, ' +
        'image/webp, text/plain or text/markdown; charset=utf-8), Content-Length, `ETag: "<sha256>"` (If-None-Match answers 304), ' +
        '`Content-Disposition: attachment` with the sanitized file name (RFC 6266, ASCII `filename` and UTF-8 `filename*`; its extension always ' +
        'matches the content), `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy, so a browser never runs an uploaded file. ' +
        'Resumable: `Accept-Ranges: bytes`; one `Range: bytes=a-b` (or `a-`, or `-n`) answers 206 with `Content-Range`, a range starting past the end ' +
        'answers 416 with `Content-Range: bytes */<size>`; `If-Range` with a stale ETag, several ranges or another unit answer the whole file (200).',
      tags,
      access: { scope: 'pets.read' },
      params: DocumentParams,
      response: {
        status: 200,
        description: 'The document bytes, as the type they were stored as',
        schema: DocumentContentSchema,
        contentType: 'application/octet-stream',
        contentTypes: [...documentContentTypes],
        also: [
          { status: 206, description: 'The byte range asked for (`Range`), with `Content-Range`' },
          { status: 304, description: 'Not modified: `If-None-Match` names the current ETag (no body)' },
        ],
      },
      errors: ['not_found', 'range_not_satisfiable'],
      handler: async ({ db, actor, params, ctx }) => {
        const row = await getDocument(db, actor, params.id);
        const type = row.content_type as DocumentContentType;
        const etag = `"${row.sha256}"`;
        const headers: Record<string, string> = {
          ETag: etag,
          'Cache-Control': 'private, no-cache',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
          'Accept-Ranges': 'bytes',
        };
        const ifNoneMatch = ctx.get('If-None-Match');
        if (ifNoneMatch && etagMatches(ifNoneMatch, etag)) return { status: 304, body: null, headers };
        // The stored bytes never change (the ETag is their sha256), so the row's size is the file's.
        const ifRange = ctx.get('If-Range');
        const range = ctx.get('Range') && (!ifRange || ifRange === etag) ? parseByteRange(ctx.get('Range'), row.size_bytes) : null;
        if (range === 'unsatisfiable') {
          throw new AppError('range_not_satisfiable', `The document has ${row.size_bytes} bytes; ask for a range that starts inside it.`, {
            headers: { 'Content-Range': `bytes */${row.size_bytes}`, 'Accept-Ranges': 'bytes' },
          });
        }
        const opened = await files.open(actor.env, row.storage_key, range ?? undefined);
        // The row exists, so a missing file is our fault (a lost volume), not the caller's: a logged 500.
        if (!opened) throw new Error(`document file missing: ${row.storage_key}`);
        const common = {
          ...headers,
          'Content-Type': type.startsWith('text/') ? `${type}; charset=utf-8` : type,
          'Content-Disposition': contentDisposition(downloadName(row.filename, row.id, type)),
        };
        if (range) {
          return {
            status: 206,
            body: opened.stream,
            headers: { ...common, 'Content-Range': `bytes ${range.start}-${range.end}/${opened.size}`, 'Content-Length': String(range.end - range.start + 1) },
          };
        }
        return { body: opened.stream, headers: { ...common, 'Content-Length': String(opened.size) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/documents/:id',
      operationId: 'deleteDocument',
      summary: 'Delete a document',
      description: 'Removes the document and its stored file (the file once the deletion has committed). Answers `{id, deleted: true}`.',
      tags,
      access: { scope: 'pets' },
      params: DocumentParams,
      response: { status: 200, description: 'The document was deleted', schema: DeletedDocumentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, afterCommit }) => {
        const row = await deleteDocument(db, actor, params.id);
        const file = files.pathOf(actor.env, row.storage_key);
        afterCommit(() => files.removeNow(file));
        return { body: { id: row.id, deleted: true as const } };
      },
    }),
  ];
}
