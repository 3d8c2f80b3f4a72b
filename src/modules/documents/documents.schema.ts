import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { documentContentTypes } from './content-sniffing.js';

export const documentKinds = ['lab_result', 'xray', 'referral', 'consent', 'invoice', 'prescription', 'vaccination_certificate', 'other'] as const;
export const textStatuses = ['extracted', 'truncated', 'empty', 'failed', 'not_applicable'] as const;

const Kind = Type.Union(
  documentKinds.map((k) => Type.Literal(k)),
  { description: 'What the document is; default `other`.' },
);

/** The text fields of the upload form (the file part is handled by the upload stream). */
export const UploadFieldsSchema = Type.Object(
  {
    title: Type.Optional({ ...NonBlankText(200), description: 'Default: the file name, else "Untitled document".' }),
    kind: Type.Optional(Kind),
  },
  { additionalProperties: false },
);

/** The whole multipart form, for the API description (the route's `stage` step reads it). */
export const UploadFormSchema = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: 'The document: PDF, PNG, JPEG, WebP or UTF-8 text/Markdown, decided from its bytes. Up to PETCARE_DOCUMENT_MAX_BYTES (25 MB by default).',
    }),
    ...UploadFieldsSchema.properties,
  },
  { additionalProperties: false },
);

export const DocumentSchema = Type.Object(
  {
    id: Type.String({ description: 'Document id (doc_…).' }),
    petId: Type.String(),
    title: Type.String(),
    kind: Kind,
    contentType: Type.Union(
      documentContentTypes.map((t) => Type.Literal(t)),
      { description: 'Decided from the content (magic bytes / UTF-8 check), never from what the client declared.' },
    ),
    declaredContentType: Type.Union([Type.String(), Type.Null()], { description: 'The Content-Type the client sent with the file part, as sent.' }),
    contentTypeMismatch: Type.Boolean({
      description: 'True when declaredContentType names another type than the content has (e.g. a PNG sent as application/pdf).',
    }),
    sizeBytes: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the content, hex; also the download ETag.' }),
    filename: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: "The client's file name, sanitized (metadata only; the file is stored under the document id).",
    }),
    textStatus: Type.Union(
      textStatuses.map((s) => Type.Literal(s)),
      {
        description:
          'Text extraction for the search index: `extracted`; `truncated` (cut at 1,000,000 characters or 500 pages); `empty` (a PDF without a text layer, e.g. a scan); ' +
          '`failed` (the PDF could not be read: damaged, encrypted or over the time limit; the file is still stored); `not_applicable` (images).',
      },
    ),
    textExtracted: Type.Boolean({ description: 'True when some text was extracted (textStatus extracted or truncated).' }),
    textLength: Type.Integer({ minimum: 0, description: 'Characters of extracted text stored.' }),
    pageCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Pages of a PDF; null for other types or an unreadable PDF.' }),
    createdAt: Type.String({ format: 'date-time' }),
    contentUrl: Type.String({ description: 'Where to download the bytes (GET, same bearer token).' }),
  },
  { additionalProperties: false },
);

export const PetDocumentsParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Pet id (pet_…).' }) }, { additionalProperties: false });
export const DocumentParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Document id (doc_…).' }) }, { additionalProperties: false });

export const ListDocumentsQuery = Type.Object(
  {
    ...pageQueryFields,
    kind: Type.Optional(Kind),
  },
  { additionalProperties: false },
);

export const DeletedDocumentSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false });

/** The download: the stored bytes under their sniffed Content-Type. */
export const DocumentContentSchema = Type.Any({
  type: 'string',
  format: 'binary',
  description: 'The document bytes, byte-identical to the upload.',
});

export type UploadFields = Static<typeof UploadFieldsSchema>;
export type DocumentKind = (typeof documentKinds)[number];
export type TextStatus = (typeof textStatuses)[number];
export type ListDocumentsFilters = Static<typeof ListDocumentsQuery>;
