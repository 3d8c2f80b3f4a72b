import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestApp } from '../helpers/test-app.js';

/** A real PDF with one line of text per page (pdf-lib, standard Helvetica). */
export async function makePdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const line of lines) doc.addPage().drawText(line, { x: 50, y: 700, font, size: 12 });
  return Buffer.from(await doc.save());
}

// Smallest valid files of each image type (1×1 pixel).
export const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const jpeg = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
export const webp = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
/** A Windows executable header (MZ, PE offset, NUL bytes): never a document. */
export const exe = Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00', 'latin1'), Buffer.alloc(200, 0)]);
/** A ZIP local file header. */
export const zip = Buffer.concat([
  Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]),
  Buffer.from('word/document.xml'),
  Buffer.alloc(64, 1),
]);

export interface UploadFile {
  bytes: Buffer | string;
  name?: string;
  /** The part's declared Content-Type ('' lets fetch send application/octet-stream). */
  type?: string;
}

export interface UploadOptions {
  token: string;
  file?: UploadFile;
  fields?: Record<string, string>;
  idempotencyKey?: string;
}

export interface UploadResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs a multipart form built with the global FormData/Blob, as a browser or fetch client would. */
export async function upload(t: TestApp, petId: string, options: UploadOptions): Promise<UploadResponse> {
  const form = new FormData();
  if (options.file) {
    const bytes = typeof options.file.bytes === 'string' ? Buffer.from(options.file.bytes) : options.file.bytes;
    form.append('file', new Blob([bytes], { type: options.file.type ?? '' }), options.file.name ?? 'file.bin');
  }
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const res = await fetch(`${t.url}/v1/pets/${petId}/documents`, { method: 'POST', headers, body: form });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** GETs raw bytes (downloads). */
export async function download(t: TestApp, documentId: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/v1/documents/${documentId}/content`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Every file in the environment's documents folder, temp files included. */
export function storedFiles(t: TestApp, env: 'live' | 'sandbox' = 'live'): string[] {
  const dir = path.join(t.dataDir, 'documents', env);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

export async function documentCount(t: TestApp, env: 'live' | 'sandbox' = 'live'): Promise<number> {
  const row = await t.stores
    .get(env)
    .db.selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
