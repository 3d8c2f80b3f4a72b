import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Environment } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, wholeTenant } from '../../http/actor.js';
import { foundOr404 } from '../../http/errors.js';
import type { PageRequest } from '../../http/paging.js';
import type { Staged } from '../../http/route.js';
import { validateBody } from '../../http/validation.js';
import { findPet } from '../pets/index.js';
import type { DocumentContentType } from './content-sniffing.js';
import { DocumentFiles, extensionOf, sanitizeFilename, storedExtension } from './document-files.js';
import { receiveUpload, type ReceivedFile } from './document-upload.js';
import { deleteDocumentRow, findDocument, insertDocument, listPetDocuments, type DocumentRow } from './documents.repository.js';
import { UploadFieldsSchema, type DocumentKind, type ListDocumentsFilters, type TextStatus, type UploadFields } from './documents.schema.js';
import type { DocumentsTable } from './documents.table.js';
import { extractPdfText, type PdfTextLimits } from './pdf-text.js';

/** Text kept per document for the search index, and the guards of PDF extraction. */
export const textLimits = {
  maxChars: 1_000_000,
  pdf: { maxPages: 500, maxChars: 1_000_000, timeoutMs: 20_000, maxHeapMb: 256 } satisfies PdfTextLimits,
} as const;

/** An upload read, checked and written to a temp file, waiting for its row to commit. */
export interface StagedDocument {
  id: string;
  petId: string;
  title: string;
  kind: DocumentKind;
  contentType: DocumentContentType;
  declaredContentType: string | null;
  filename: string | null;
  sizeBytes: number;
  sha256: string;
  storageKey: string;
  textStatus: TextStatus;
  text: string | null;
  pageCount: number | null;
}

export interface StageUploadInput {
  env: Environment;
  actor: Actor;
  db: Executor;
  petId: string;
  req: IncomingMessage;
  maxBytes: number;
  now: number;
}

const markdownTypes = new Set(['text/markdown', 'text/x-markdown']);

function textType(file: ReceivedFile, filename: string | null): DocumentContentType {
  const ext = filename ? extensionOf(filename) : '';
  return markdownTypes.has(file.declaredType) || ext === 'md' || ext === 'markdown' ? 'text/markdown' : 'text/plain';
}

/** Text for the future search index: from the text layer of a PDF or the content of a text file. */
async function extractText(file: ReceivedFile, tempPath: string): Promise<Pick<StagedDocument, 'textStatus' | 'text' | 'pageCount'>> {
  if (file.text) {
    const { text, truncated } = file.text;
    if (text.trim() === '') return { textStatus: 'empty', text: null, pageCount: null };
    return { textStatus: truncated ? 'truncated' : 'extracted', text, pageCount: null };
  }
  if (file.sniffed !== 'application/pdf') return { textStatus: 'not_applicable', text: null, pageCount: null };
  // A PDF that cannot be read (damaged, encrypted, too slow) is still the clinic's record: stored, marked failed.
  const result = await extractPdfText(tempPath, textLimits.pdf);
  if (!result.ok) return { textStatus: 'failed', text: null, pageCount: null };
  const textStatus: TextStatus = result.truncated ? 'truncated' : result.text === '' ? 'empty' : 'extracted';
  return { textStatus, text: result.text === '' ? null : result.text, pageCount: result.pageCount };
}

/**
 * Reads an upload for a pet, before any transaction: checks the pet is visible (404 before a byte
 * of the body is read), streams the file to a hidden temp file in the documents folder while hashing
 * and sniffing it, then extracts its text. Whatever fails on the way removes the temp file. The
 * result's persist() renames it to `<id>.<ext>`; discard() removes whichever of the two exists.
 */
export async function stageUpload(files: DocumentFiles, input: StageUploadInput): Promise<Staged<StagedDocument>> {
  const pet = foundOr404(await findPet(input.db, input.actor, input.petId), 'pet', input.petId);

  const id = newId('doc');
  await files.ensureDirectory(input.env);
  const tempPath = files.tempPathOf(input.env, id);
  let out: FileHandle | null = await fs.open(tempPath, 'wx', 0o640);
  try {
    const { fields, file } = await receiveUpload(input.req, {
      maxBytes: input.maxBytes,
      maxTextChars: textLimits.maxChars,
      fileField: 'file',
      fieldNames: ['title', 'kind'],
      checkField: (name, value) => validateBody(UploadFieldsSchema, { [name]: value }),
      out,
    });
    await out.sync(); // on disk before the row that points at it commits
    await out.close();
    out = null;

    const form = fields as UploadFields;
    const filename = sanitizeFilename(file.filename);
    const contentType = file.sniffed === 'text' ? textType(file, filename) : file.sniffed;
    const storageKey = `${id}.${storedExtension[contentType]}`;
    const finalPath = files.pathOf(input.env, storageKey);
    const extracted = await extractText(file, tempPath);
    const value: StagedDocument = {
      id,
      petId: pet.id,
      title: form.title?.trim() ?? filename ?? 'Untitled document',
      kind: form.kind ?? 'other',
      contentType,
      declaredContentType: file.declaredType.slice(0, 100) || null,
      filename,
      sizeBytes: file.sizeBytes,
      sha256: file.sha256,
      storageKey,
      ...extracted,
    };
    return {
      value,
      // What makes a retry "the same request": the content and every form field, not the bytes on the wire.
      fingerprint: { petId: pet.id, sha256: file.sha256, sizeBytes: file.sizeBytes, filename: file.filename ?? null, declaredType: file.declaredType, fields },
      persist: () => fs.rename(tempPath, finalPath),
      discard: async () => {
        await files.remove(tempPath);
        await files.remove(finalPath);
      },
    };
  } catch (err) {
    await out?.close().catch(() => undefined);
    await files.remove(tempPath);
    throw err;
  }
}

/** Writes the row of a staged upload (inside the route's transaction); the pet is checked again under the lock. */
export async function createDocument(db: Executor, actor: Actor, staged: StagedDocument, now: number): Promise<DocumentRow> {
  const pet = foundOr404(await findPet(db, actor, staged.petId), 'pet', staged.petId);
  const row: DocumentsTable = {
    id: staged.id,
    tenant_id: actor.tenantId,
    pet_id: staged.petId,
    title: staged.title,
    kind: staged.kind,
    content_type: staged.contentType,
    declared_content_type: staged.declaredContentType,
    filename: staged.filename,
    size_bytes: staged.sizeBytes,
    sha256: staged.sha256,
    storage_key: staged.storageKey,
    text_status: staged.textStatus,
    extracted_text: staged.text,
    text_length: staged.text?.length ?? 0,
    page_count: staged.pageCount,
    created_by: actor.clientId,
    created_at: new Date(now).toISOString(),
  };
  await insertDocument(db, actor, row);
  const { extracted_text: _text, ...metadata } = row;
  return metadata;
}

export async function getDocument(db: Executor, actor: Actor, id: string): Promise<DocumentRow> {
  return foundOr404(await findDocument(db, actor, id), 'document', id);
}

export async function listDocuments(db: Executor, actor: Actor, petId: string, page: PageRequest, filters: ListDocumentsFilters): Promise<DocumentRow[]> {
  const pet = foundOr404(await findPet(db, actor, petId), 'pet', petId);
  return listPetDocuments(db, wholeTenant(actor), pet.id, page, filters);
}

/** Deletes the row; the caller removes the file once the deletion has committed. */
export async function deleteDocument(db: Executor, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await getDocument(db, actor, id);
  await deleteDocumentRow(db, actor, row.id);
  return row;
}
