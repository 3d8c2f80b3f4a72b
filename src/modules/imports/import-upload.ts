import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../http/errors.js';
import { receiveMultipartUpload, type UploadInspector } from '../../http/multipart-upload.js';

export const importFormFields = ['type', 'dryRun', 'mapping', 'locationId'] as const;

export const importTooLarge = (maxBytes: number): AppError =>
  new AppError('payload_too_large', `The file is larger than the ${maxBytes}-byte import limit (PETCARE_IMPORT_MAX_BYTES).`);

const notUtf8 = (what: string): AppError =>
  new AppError(
    'import_encoding_unsupported',
    `The file is ${what}. Imports read UTF-8 only (a UTF-8 byte order mark is fine): save or export the file as UTF-8 (CSV UTF-8) and upload it again.`,
    { errors: [{ field: 'file', message: `is ${what}, not UTF-8` }] },
  );

/**
 * Follows the file's bytes as they stream: counts and hashes them, and refuses what is not UTF-8
 * text as soon as it shows: a UTF-16 byte order mark or NUL bytes (UTF-16 without a mark, or a
 * binary file), or a byte sequence that is not UTF-8 (Latin-1 / Windows-1252 exports). A Latin-1
 * file is refused rather than transcoded: the same bytes are valid in several single-byte
 * encodings, and guessing wrong would import names with the wrong letters without a word.
 */
export class TextInspector implements UploadInspector<{ sizeBytes: number; sha256: string; head: Buffer }> {
  private readonly hash = createHash('sha256');
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  size = 0;
  /** The first bytes, for the format (CSV or NDJSON) and the header check. */
  head = Buffer.alloc(0);

  constructor(
    private readonly maxBytes: number,
    private readonly headBytes: number,
  ) {}

  push(chunk: Buffer): void {
    const first = this.size === 0;
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw importTooLarge(this.maxBytes);
    this.hash.update(chunk);
    if (first && chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
      throw notUtf8('UTF-16 (it starts with a UTF-16 byte order mark)');
    }
    if (chunk.includes(0)) throw notUtf8('UTF-16 or binary (it contains NUL bytes)');
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      throw notUtf8('not valid UTF-8 (perhaps Latin-1 or Windows-1252)');
    }
    if (this.head.length < this.headBytes) this.head = Buffer.concat([this.head, chunk.subarray(0, this.headBytes - this.head.length)]);
  }

  finish(): { sizeBytes: number; sha256: string; head: Buffer } {
    try {
      this.decoder.decode();
    } catch {
      throw notUtf8('not valid UTF-8 (it ends inside a character)');
    }
    return { sizeBytes: this.size, sha256: this.hash.digest('hex'), head: this.head };
  }
}

export interface ReceivedImport {
  fields: Record<string, string>;
  filename: string | undefined;
  sizeBytes: number;
  sha256: string;
  /** The first bytes of the file (up to 64 KiB): enough for the header row. */
  head: Buffer;
}

/**
 * Streams a multipart/form-data import (receiveMultipartUpload): the `file` part through the
 * inspector into `out` (with backpressure), never whole in memory; the text fields are checked as
 * they arrive. The caller owns `out` and removes the temp file.
 */
export async function receiveImport(
  req: IncomingMessage,
  options: { maxBytes: number; out: FileHandle; checkField(name: string, value: string): void },
): Promise<ReceivedImport> {
  const { fields, file, info } = await receiveMultipartUpload(req, {
    maxBytes: options.maxBytes,
    tooLarge: () => importTooLarge(options.maxBytes),
    fileField: 'file',
    fieldNames: importFormFields,
    fieldSize: 16 * 1024,
    checkField: (name, value) => options.checkField(name, value),
    inspector: () => new TextInspector(options.maxBytes, 64 * 1024),
    out: options.out,
  });
  return { fields, ...file, filename: info.filename };
}
