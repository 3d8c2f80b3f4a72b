import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError, validationFailed } from '../../http/errors.js';
import { sniffBinary, sniffLength, Utf8TextCheck, type DocumentContentType } from './content-sniffing.js';

/** Room for the form around the file (boundaries, part headers, title and kind) in the early Content-Length check. */
const formOverheadBytes = 64 * 1024;

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

// The unread rest of a refused body is the gateway's: it answers with Connection: close and drains
// a bounded amount so the client can read the answer (lingeringClose).
export const tooLarge = (maxBytes: number): AppError => new AppError('payload_too_large', `The file is larger than the ${maxBytes}-byte limit.`);

const unsupported = (): AppError =>
  new AppError(
    'unsupported_media_type',
    'The file is not a PDF, PNG, JPEG, WebP or UTF-8 text/Markdown document (decided from its content, not from its name or declared type).',
  );

const malformed = (message: string): AppError => validationFailed([{ field: 'body', message }], 'The multipart/form-data body is not valid.');

/**
 * Follows the bytes of the file as they stream: counts and hashes them, decides the type from the
 * first bytes and, for text, checks every byte is UTF-8 text. Refuses (throws) as soon as the size
 * limit is passed or the content is known to be of no accepted type.
 */
class ContentInspector {
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
 * Streams a multipart/form-data upload with busboy: the one file part goes through the inspector
 * into `out` (with backpressure), text fields are checked as they arrive. Parts, fields, field sizes
 * and the file size are limited; on any refusal the request is unpiped at once, so the rest of the
 * body is not read. The caller owns `out` and removes the temp file when this rejects.
 */
export function receiveUpload(req: IncomingMessage, options: ReceiveOptions): Promise<ReceivedUpload> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + formOverheadBytes) return Promise.reject(tooLarge(options.maxBytes));

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8', // browsers and fetch send file names as raw UTF-8
      limits: {
        fileSize: options.maxBytes + 1, // one byte over is how we learn the file is too large
        files: 1,
        fields: options.fieldNames.length,
        parts: options.fieldNames.length + 2, // busboy signals once this many parts have been read: one more than allowed
        fieldNameSize: 100,
        fieldSize: 4096,
        headerPairs: 20,
      },
    });
  } catch {
    // No Content-Type or no boundary: there is no form to read a file from.
    return Promise.reject(
      req.headers['content-type']
        ? malformed('is not a valid multipart/form-data body (boundary missing)')
        : validationFailed([{ field: 'file', message: 'is required' }]),
    );
  }

  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: ReceivedFile | undefined;
    let fileStream: Readable | undefined;
    let writing: Promise<void> = Promise.resolve();
    let settled = false;

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.pause();
      fileStream?.destroy();
      parser.destroy();
      // Reject only once the file writer has stopped, so the caller can close and remove the temp file safely.
      void writing.catch(() => undefined).then(() => reject(err));
    };

    const consume = async (stream: Readable, info: busboy.FileInfo) => {
      const inspector = new ContentInspector(options.maxBytes, options.maxTextChars);
      for await (const chunk of stream) {
        inspector.push(chunk as Buffer);
        await options.out.write(chunk as Buffer);
      }
      if ((stream as Readable & { truncated?: boolean }).truncated) throw tooLarge(options.maxBytes);
      if (inspector.size === 0) throw validationFailed([{ field: 'file', message: 'is empty' }]);
      file = { ...inspector.finish(), filename: info.filename, declaredType: info.mimeType.toLowerCase() };
    };

    parser.on('file', (name, stream, info) => {
      // Destroying the parser destroys its open file stream with an error; the reader below sees it, a skipped part has no reader.
      stream.on('error', () => undefined);
      if (name !== options.fileField) {
        stream.resume();
        fail(validationFailed([{ field: name, message: 'is not a recognised field' }]));
        return;
      }
      fileStream = stream;
      // Past the limit busboy skips the rest of the file without backpressure, and could reach a
      // malformed end (400) before the reader has seen the excess byte: refuse at once instead.
      stream.once('limit', () => fail(tooLarge(options.maxBytes)));
      writing = consume(stream, info);
      writing.catch(fail);
    });
    parser.on('field', (name, value, info) => {
      try {
        if (name === options.fileField) throw validationFailed([{ field: name, message: 'must be a file part (with a filename)' }]);
        if (!options.fieldNames.includes(name)) throw validationFailed([{ field: name, message: 'is not a recognised field' }]);
        if (name in fields) throw validationFailed([{ field: name, message: 'is given more than once' }]);
        if (info.valueTruncated) throw validationFailed([{ field: name, message: 'is too long' }]);
        options.checkField(name, value);
        fields[name] = value;
      } catch (err) {
        fail(err);
      }
    });
    parser.on('filesLimit', () => fail(validationFailed([{ field: options.fileField, message: 'only one file may be sent' }])));
    parser.on('fieldsLimit', () => fail(malformed('has too many fields')));
    parser.on('partsLimit', () => fail(malformed('has too many parts')));
    parser.on('error', (err: Error) => fail(malformed(`is not a valid multipart/form-data body (${err.message})`)));
    parser.on('close', () => {
      void writing.then(() => {
        if (settled) return;
        if (!file) return fail(validationFailed([{ field: options.fileField, message: 'is required' }]));
        settled = true;
        resolve({ fields, file });
      }, fail);
    });
    // A client that goes away mid-upload: stop and clean up (nobody will read the answer).
    const interrupted = () => fail(malformed('was interrupted before the end of the upload'));
    req.once('close', () => {
      if (!req.complete) interrupted();
    });
    req.on('error', interrupted);
    req.pipe(parser);
  });
}
