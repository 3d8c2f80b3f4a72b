import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { vectorExtensionStatus, type Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import type { PageRequest } from '../../http/paging.js';
import type { Staged } from '../../http/route.js';
import { validateBody } from '../../http/validation.js';
import { DocumentFiles, extensionOf, getDocument, receiveUpload, sanitizeFilename } from '../documents/index.js';
import { missingLocations } from '../locations/index.js';
import { findPet } from '../pets/index.js';
import type { VectorState } from './ai.presenter.js';
import {
  documentCounts,
  findDocumentBySha,
  findKnowledgeDocument,
  findService,
  insertKnowledgeDocument,
  insertService,
  listKnowledgeDocuments,
  listServices,
  requeueServiceDocuments,
  deleteServiceVectors,
  updateService,
} from './ai.repository.js';
import { JsonUploadSchema, UploadFieldsSchema, type CreateServiceInput, type JsonUpload } from './ai.schema.js';
import type { AiDocumentsTable, AiServicesTable } from './ai.table.js';
import type { LlmClient } from './llm-client.js';

/** The files of knowledge uploads: `<dataDir>/knowledge/documents/<env>/<kdoc id>.<ext>`; pet documents stay where they are. */
export interface KnowledgeFiles {
  knowledge: DocumentFiles;
  pets: DocumentFiles;
}

/** Whether a service's vectors are searched, and why not. */
export function vectorState(service: Pick<AiServicesTable, 'embedding_model'>, llm: LlmClient): VectorState {
  const extension = vectorExtensionStatus();
  if (!extension.loaded) return { vector: false, reason: extension.reason };
  if (!service.embedding_model)
    return { vector: false, reason: 'no embedding model pinned (PETCARE_EMBEDDINGS_MODEL was unset when it was created); re-index to add one' };
  if (llm.embeddingModel === null) return { vector: false, reason: 'no embedding model configured now (PETCARE_EMBEDDINGS_MODEL); lexical only' };
  if (llm.embeddingModel !== service.embedding_model) {
    return { vector: false, reason: `embedding_mismatch: pinned ${service.embedding_model}, configured ${llm.embeddingModel}; re-index the service` };
  }
  return { vector: true, reason: null };
}

/** Sorted, de-duplicated, JSON text; null for a tenant-wide service. */
const locationList = (ids: readonly string[] | undefined): string | null => (ids ? JSON.stringify([...new Set(ids)].sort()) : null);

export async function createService(db: Executor, actor: Actor, input: CreateServiceInput, llm: LlmClient, now: number): Promise<AiServicesTable> {
  if (actor.locationIds !== null && input.locationIds === undefined) {
    throw new AppError('locations_required', 'A client confined to locations creates services bound to some of them: send locationIds.');
  }
  const ids = input.locationIds ?? [];
  const missing = await missingLocations(db, actor, ids);
  const first = missing[0];
  if (first !== undefined) throw missingReference(`locationIds[${ids.indexOf(first)}]`, 'location', first);
  const at = new Date(now).toISOString();
  const row: AiServicesTable = {
    id: newId('ais'),
    tenant_id: actor.tenantId,
    name: input.name.trim(),
    description: input.description?.trim() || null,
    location_ids: locationList(input.locationIds),
    embedding_model: llm.embeddingModel,
    dimension: null,
    created_by: actor.clientId,
    created_at: at,
    updated_at: at,
  };
  await insertService(db, actor, row);
  return row;
}

export async function getService(db: Executor, actor: Actor, id: string): Promise<AiServicesTable> {
  return foundOr404(await findService(db, actor, id), 'knowledge service', id);
}

export async function listVisibleServices(db: Executor, actor: Actor, page: PageRequest): Promise<{ rows: AiServicesTable[]; counts: Map<string, number> }> {
  const rows = await listServices(db, actor, page);
  return {
    rows,
    counts: await documentCounts(
      db,
      actor,
      rows.map((r) => r.id),
    ),
  };
}

/** Documents of a service the caller has already been shown to see. */
export async function serviceDocumentCount(db: Executor, actor: Actor, serviceId: string): Promise<number> {
  return (await documentCounts(db, actor, [serviceId])).get(serviceId) ?? 0;
}

/**
 * Pins the configured embedding model (or none) anew and queues every document for indexing
 * again: the way out of `embedding_mismatch`. The vectors of the old model go at once.
 */
export async function reindexService(
  db: Executor,
  actor: Actor,
  id: string,
  llm: LlmClient,
  now: number,
): Promise<{ service: AiServicesTable; queued: number }> {
  const service = await getService(db, actor, id);
  const at = new Date(now).toISOString();
  await deleteServiceVectors(db, actor, service.id);
  await updateService(db, actor, service.id, { embedding_model: llm.embeddingModel, dimension: null, updated_at: at });
  const queued = await requeueServiceDocuments(db, wholeTenant(actor), service.id, at);
  return { service: { ...service, embedding_model: llm.embeddingModel, dimension: null, updated_at: at }, queued };
}

/** An upload read and set aside before the transaction: a file in a temp file, or a JSON body. */
export type StagedKnowledge =
  | {
      kind: 'file';
      id: string;
      title: string;
      contentType: 'application/pdf' | 'text/plain' | 'text/markdown';
      filename: string | null;
      sizeBytes: number;
      sha256: string;
      storageKey: string;
      /** Set by the handler when the service already holds these bytes: the temp file is dropped. */
      duplicate: boolean;
    }
  | { kind: 'json'; body: JsonUpload };

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new AppError('payload_too_large', `The JSON body is larger than the ${limit}-byte limit.`);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new AppError('payload_too_large', `The JSON body is larger than the ${limit}-byte limit.`);
    parts.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new AppError('malformed_json', 'The body is not valid JSON.');
  }
}

export interface StageInput {
  actor: Actor;
  db: Executor;
  serviceId: string;
  ctx: Context;
  maxBytes: number;
  jsonLimit: number;
  now: number;
}

/**
 * Reads a knowledge upload before any transaction: the service must be visible (404 before a byte
 * is read). A multipart file streams to a temp file while it is hashed and sniffed (PDF or UTF-8
 * text only; over the limit 413); a JSON body is parsed and validated.
 */
export async function stageKnowledgeUpload(files: KnowledgeFiles, input: StageInput): Promise<Staged<StagedKnowledge>> {
  const service = foundOr404(await findService(input.db, input.actor, input.serviceId), 'knowledge service', input.serviceId);
  const { ctx } = input;
  if (!ctx.is('multipart/form-data')) {
    const body = validateBody<JsonUpload>(JsonUploadSchema, await readJson(ctx.req, input.jsonLimit));
    return { value: { kind: 'json', body }, fingerprint: { serviceId: service.id, body }, discard: async () => undefined };
  }
  const env = input.actor.env;
  const id = newId('kdoc');
  await files.knowledge.ensureDirectory(env);
  const tempPath = files.knowledge.tempPathOf(env, id);
  let out: FileHandle | null = await fs.open(tempPath, 'wx', 0o640);
  try {
    const { fields, file } = await receiveUpload(ctx.req, {
      maxBytes: input.maxBytes,
      // Nothing of the text is kept here: the extraction worker reads the file; the bytes are only checked.
      maxTextChars: 0,
      fileField: 'file',
      fieldNames: ['title'],
      checkField: (name, value) => validateBody(UploadFieldsSchema, { [name]: value }),
      out,
    });
    await out.sync();
    await out.close();
    out = null;
    if (file.sniffed !== 'application/pdf' && file.sniffed !== 'text') {
      throw new AppError('unsupported_media_type', 'A knowledge document is a PDF, a UTF-8 text or a Markdown file (decided from its content).');
    }
    const filename = sanitizeFilename(file.filename);
    const ext = filename ? extensionOf(filename) : '';
    const contentType =
      file.sniffed === 'application/pdf'
        ? 'application/pdf'
        : file.declaredType.includes('markdown') || ext === 'md' || ext === 'markdown'
          ? 'text/markdown'
          : 'text/plain';
    const storageKey = `${id}.${contentType === 'application/pdf' ? 'pdf' : contentType === 'text/markdown' ? 'md' : 'txt'}`;
    const finalPath = files.knowledge.pathOf(env, storageKey);
    const value: StagedKnowledge = {
      kind: 'file',
      id,
      title: fields.title?.trim() ?? filename ?? 'Untitled document',
      contentType,
      filename,
      sizeBytes: file.sizeBytes,
      sha256: file.sha256,
      storageKey,
      duplicate: false,
    };
    return {
      value,
      fingerprint: { serviceId: service.id, sha256: file.sha256, sizeBytes: file.sizeBytes, filename: file.filename ?? null, fields },
      persist: async () => {
        if (value.duplicate) await files.knowledge.remove(tempPath);
        else await fs.rename(tempPath, finalPath);
      },
      discard: async () => {
        await files.knowledge.remove(tempPath);
        await files.knowledge.remove(finalPath);
      },
    };
  } catch (err) {
    await out?.close().catch(() => undefined);
    await files.knowledge.remove(tempPath);
    throw err;
  }
}

const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const knowledgeTypes = new Set(['application/pdf', 'text/plain', 'text/markdown']);

/**
 * Writes the document row (inside the route's transaction, so the sha256 check and the insert are
 * one step: parallel uploads of the same bytes make one document). Same sha256 already in the
 * service: that document, `created: false`.
 */
export async function createKnowledgeDocument(
  db: Executor,
  actor: Actor,
  serviceId: string,
  staged: StagedKnowledge,
  now: number,
): Promise<{ row: AiDocumentsTable; created: boolean }> {
  const service = await getService(db, actor, serviceId);
  const at = new Date(now).toISOString();
  const base = {
    tenant_id: actor.tenantId,
    service_id: service.id,
    status: 'uploaded' as const,
    pages: null,
    chunks: 0,
    chunks_total: null,
    error: null,
    created_by: actor.clientId,
    created_at: at,
    updated_at: at,
    indexed_at: null,
  };
  let row: AiDocumentsTable;
  if (staged.kind === 'file') {
    row = {
      ...base,
      id: staged.id,
      title: staged.title,
      source: 'file',
      content_type: staged.contentType,
      filename: staged.filename,
      source_document_id: null,
      storage_key: staged.storageKey,
      source_text: null,
      size_bytes: staged.sizeBytes,
      sha256: staged.sha256,
    };
  } else if ('documentId' in staged.body) {
    const doc = await getDocument(db, actor, staged.body.documentId);
    const pet = foundOr404(await findPet(db, actor, doc.pet_id), 'document', doc.id);
    const serviceLocations = service.location_ids === null ? null : (JSON.parse(service.location_ids) as string[]);
    // A pet document belongs to its pet's location: it may only join a service bound to that location.
    if (serviceLocations === null || !serviceLocations.includes(pet.location_id)) {
      throw new AppError(
        'document_outside_service',
        "The pet's location is not one of the service's locations, so its staff could read a record they may not see.",
      );
    }
    if (!knowledgeTypes.has(doc.content_type)) {
      throw new AppError('unsupported_media_type', `The pet document is ${doc.content_type}; a knowledge document is a PDF, text or Markdown file.`);
    }
    row = {
      ...base,
      id: newId('kdoc'),
      title: staged.body.title?.trim() ?? doc.title,
      source: 'pet_document',
      content_type: doc.content_type,
      filename: doc.filename,
      source_document_id: doc.id,
      storage_key: doc.storage_key,
      source_text: null,
      size_bytes: doc.size_bytes,
      sha256: doc.sha256,
    };
  } else {
    const text = staged.body.text;
    if (!/[\p{L}\p{N}]/u.test(text)) throw validationFailed([{ field: 'text', message: 'has no words to index' }]);
    row = {
      ...base,
      id: newId('kdoc'),
      title: staged.body.title.trim(),
      source: 'text',
      content_type: staged.body.contentType ?? 'text/plain',
      filename: null,
      source_document_id: null,
      storage_key: null,
      source_text: text,
      size_bytes: Buffer.byteLength(text, 'utf8'),
      sha256: sha256Of(text),
    };
  }
  const existing = await findDocumentBySha(db, wholeTenant(actor), service.id, row.sha256);
  if (existing) {
    if (staged.kind === 'file') staged.duplicate = true;
    return { row: existing, created: false };
  }
  await insertKnowledgeDocument(db, actor, row);
  return { row, created: true };
}

export async function getKnowledgeDocument(db: Executor, actor: Actor, serviceId: string, docId: string): Promise<AiDocumentsTable> {
  const service = await getService(db, actor, serviceId);
  // The caller's own access: a document made from a pet document is read only by those who see the pet.
  return foundOr404(await findKnowledgeDocument(db, actor, service.id, docId), 'knowledge document', docId);
}

export async function listServiceDocuments(db: Executor, actor: Actor, serviceId: string, page: PageRequest): Promise<AiDocumentsTable[]> {
  const service = await getService(db, actor, serviceId);
  return listKnowledgeDocuments(db, actor, service.id, page);
}
