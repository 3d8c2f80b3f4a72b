import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../http/errors.js';
import { receiveMultipartUpload, type UploadInspector } from '../../http/multipart-upload.js';
import { sniffBinary, sniffLength, Utf8TextCheck, type DocumentContentType } from './content-sniffing.js';
import { receiveOnUploadThread, uploadThread } from './upload-thread.js';

export interface ReceiveOptions {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** Characters of a text file's content kept for the search index. */
  maxTextChars: number;
  /** Name of the one file part. */
  fileField: string;
  /** Text fields the form may carry besides the file. */
  fieldNames: readonly string[];
  /** Checks a text field as it arrives (throws an AppError to refuse the upload at once). */
  checkField(name: string, value: string): void;
  /** The temp file the content is written to. */
  out: FileHandle;
}

export interface ReceivedFile {
  /** As sent (busboy keeps only the last path segment); sanitize before keeping. */
  filename: string | undefined;
  /** The part's Content-Type essence as sent; busboy reports text/plain when the part has none. */
  declaredType: string;
  /** 'text' is a valid UTF-8 text file; whether it is Markdown is decided from its name and declared type. */
  sniffed: Exclude<DocumentContentType, 'text/plain' | 'text/markdown'> | 'text';
  sizeBytes: number;
  sha256: string;
  /** The decoded text of a text file (capped), null for binary types. */
  text: { text: string; truncated: boolean } | null;
}

export interface ReceivedUpload {
  fields: Record<string, string>;
  file: ReceivedFile;
}

export const tooLarge = (maxBytes: number): AppError => new AppError('payload_too_large', `The file is larger than the ${maxBytes}-byte limit.`);

const unsupported = (): AppError =>
  new AppError(
    'unsupported_media_type',
    'The file is not a PDF, PNG, JPEG, WebP or UTF-8 text/Markdown document (decided from its content, not from its name or declared type).',
  );

/**
 * Follows the bytes of the file as they stream: counts and hashes them, decides the type from the
 * first bytes and, for text, checks every byte is UTF-8 text. Refuses (throws) as soon as the size
 * limit is passed or the content is known to be of no accepted type.
 */
export class ContentInspector implements UploadInspector<Omit<ReceivedFile, 'filename' | 'declaredType'>> {
  private readonly hash = createHash('sha256');
  private head: Buffer = Buffer.alloc(0);
  private type: ReceivedFile['sniffed'] | undefined;
  private textCheck: Utf8TextCheck | null = null;
  size = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxTextChars: number,
  ) {}

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw tooLarge(this.maxBytes);
    this.hash.update(chunk);
    if (this.type === undefined) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length >= sniffLength) this.decide();
    } else if (this.textCheck && !this.textCheck.push(chunk)) {
      throw unsupported();
    }
  }

  finish(): Omit<ReceivedFile, 'filename' | 'declaredType'> {
    if (this.type === undefined) this.decide();
    if (this.textCheck && !this.textCheck.end()) throw unsupported();
    return {
      sniffed: this.type as ReceivedFile['sniffed'],
      sizeBytes: this.size,
      sha256: this.hash.digest('hex'),
      text: this.textCheck ? this.textCheck.result() : null,
    };
  }

  private decide(): void {
    const head = this.head;
    this.head = Buffer.alloc(0);
    const binary = sniffBinary(head);
    if (binary) {
      this.type = binary;
      return;
    }
    this.type = 'text';
    this.textCheck = new Utf8TextCheck(this.maxTextChars);
    if (!this.textCheck.push(head)) throw unsupported();
  }
}

/**
 * Streams a multipart/form-data upload (receiveMultipartUpload): the one file part goes through the
 * inspector into `out` (with backpressure), text fields are checked as they arrive. Parts, fields,
 * field sizes and the file size are limited; on any refusal the request is unpiped at once, so the
 * rest of the body is not read. The caller owns `out` and removes the temp file when this rejects.
 * The parsing, hashing, checks and writes run on the upload thread (upload-thread.ts), the event
 * loop only forwards the body; inline in a build without the thread's module.
 */
export async function receiveUpload(req: IncomingMessage, options: ReceiveOptions): Promise<ReceivedUpload> {
  const shared = {
    maxBytes: options.maxBytes,
    fileField: options.fileField,
    fieldNames: options.fieldNames,
    fieldSize: 4096,
    checkField: (name: string, value: string) => options.checkField(name, value),
    out: options.out,
  };
  type Inspected = Omit<ReceivedFile, 'filename' | 'declaredType'>;
  const { fields, file, info } = uploadThread.available
    ? await receiveOnUploadThread<Inspected>(req, { ...shared, maxTextChars: options.maxTextChars, tooLarge: () => tooLarge(options.maxBytes) })
    : await receiveMultipartUpload(req, {
        ...shared,
        tooLarge: () => tooLarge(options.maxBytes),
        inspector: () => new ContentInspector(options.maxBytes, options.maxTextChars),
      });
  return { fields, file: { ...file, filename: info.filename, declaredType: info.mimeType.toLowerCase() } };
}
