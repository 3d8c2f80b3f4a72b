import type { Static } from '@sinclair/typebox';
import type { DocumentContentType } from './content-sniffing.js';
import { declaredTypeMismatch } from './content-sniffing.js';
import type { DocumentRow } from './documents.repository.js';
import type { DocumentKind, DocumentSchema, TextStatus } from './documents.schema.js';

/** `baseUrl` is the public origin (PETCARE_PUBLIC_URL, else the request's own). */
export function presentDocument(row: DocumentRow, baseUrl: string): Static<typeof DocumentSchema> {
  const contentType = row.content_type as DocumentContentType;
  const textStatus = row.text_status as TextStatus;
  return {
    id: row.id,
    petId: row.pet_id,
    title: row.title,
    kind: row.kind as DocumentKind,
    contentType,
    declaredContentType: row.declared_content_type,
    contentTypeMismatch: declaredTypeMismatch(row.declared_content_type, contentType),
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    filename: row.filename,
    textStatus,
    textExtracted: textStatus === 'extracted' || textStatus === 'truncated',
    textLength: row.text_length,
    pageCount: row.page_count,
    createdAt: row.created_at,
    contentUrl: `${baseUrl}/v1/documents/${row.id}/content`,
  };
}
