import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError, validationFailed } from '../../http/errors.js';

/** Room for the form around the file (boundaries, part headers, the fields) in the early Content-Length check. */
const formOverheadBytes = 64 * 1024;

export const importFormFields = ['type', 'dryRun', 'mapping', 'locationId'] as const;

export const importTooLarge = (maxBytes: number): AppError =>
  new AppError('payload_too_large', `The file is larger than the ${maxBytes}-byte import limit (PETCARE_IMPORT_MAX_BYTES).`);

const notUtf8 = (what: string): AppError =>
  new AppError(
    'import_encoding_unsupported',
    `The file is ${what}. Imports read UTF-8 only (a UTF-8 byte order mark is fine): save or export the file as UTF-8 (CSV UTF-8) and upload it again.`,
    { errors: [{ field: 'file', message: `is ${what}, not UTF-8` }] },
  );

const malformed = (message: string): AppError => validationFailed([{ field: 'body', message }], 'The multipart/form-data body is not valid.');

/**
 * Follows the file's bytes as they stream: counts and hashes them, and refuses what is not UTF-8
 * text as soon as it shows: a UTF-16 byte order mark or NUL bytes (UTF-16 without a mark, or a
 * binary file), or a byte sequence that is not UTF-8 (Latin-1 / Windows-1252 exports). A Latin-1
 * file is refused rather than transcoded: the same bytes are valid in several single-byte
 * encodings, and guessing wrong would import names with the wrong letters without a word.
 */
export class TextInspector {
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
 * Streams a multipart/form-data import with busboy: the `file` part through the inspector into
 * `out` (with backpressure), never whole in memory; the text fields are checked as they arrive.
 * On any refusal the request is unpiped at once; the caller owns `out` and removes the temp file.
 */
export function receiveImport(
  req: IncomingMessage,
  options: { maxBytes: number; out: FileHandle; checkField(name: string, value: string): void },
): Promise<ReceivedImport> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + formOverheadBytes) return Promise.reject(importTooLarge(options.maxBytes));
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        fileSize: options.maxBytes + 1,
        files: 1,
        fields: importFormFields.length,
        parts: importFormFields.length + 2,
        fieldNameSize: 100,
        fieldSize: 16 * 1024,
        headerPairs: 20,
      },
    });
  } catch {
    return Promise.reject(
      req.headers['content-type']
        ? malformed('is not a valid multipart/form-data body (boundary missing)')
        : validationFailed([{ field: 'file', message: 'is required' }]),
    );
  }

  return new Promise<ReceivedImport>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let received: Omit<ReceivedImport, 'fields'> | undefined;
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
      void writing.catch(() => undefined).then(() => reject(err));
    };

    const consume = async (stream: Readable, info: busboy.FileInfo) => {
      const inspector = new TextInspector(options.maxBytes, 64 * 1024);
      for await (const chunk of stream) {
        inspector.push(chunk as Buffer);
        await options.out.write(chunk as Buffer);
      }
      if ((stream as Readable & { truncated?: boolean }).truncated) throw importTooLarge(options.maxBytes);
      if (inspector.size === 0) throw validationFailed([{ field: 'file', message: 'is empty' }]);
      received = { ...inspector.finish(), filename: info.filename };
    };

    parser.on('file', (name, stream, info) => {
      stream.on('error', () => undefined);
      if (name !== 'file') {
        stream.resume();
        fail(validationFailed([{ field: name, message: 'is not a recognised field' }]));
        return;
      }
      fileStream = stream;
      stream.once('limit', () => fail(importTooLarge(options.maxBytes)));
      writing = consume(stream, info);
      writing.catch(fail);
    });
    parser.on('field', (name, value, info) => {
      try {
        if (name === 'file') throw validationFailed([{ field: name, message: 'must be a file part (with a filename)' }]);
        if (!(importFormFields as readonly string[]).includes(name)) throw validationFailed([{ field: name, message: 'is not a recognised field' }]);
        if (name in fields) throw validationFailed([{ field: name, message: 'is given more than once' }]);
        if (info.valueTruncated) throw validationFailed([{ field: name, message: 'is too long' }]);
        options.checkField(name, value);
        fields[name] = value;
      } catch (err) {
        fail(err);
      }
    });
    parser.on('filesLimit', () => fail(validationFailed([{ field: 'file', message: 'only one file may be sent' }])));
    parser.on('fieldsLimit', () => fail(malformed('has too many fields')));
    parser.on('partsLimit', () => fail(malformed('has too many parts')));
    parser.on('error', (err: Error) => fail(malformed(`is not a valid multipart/form-data body (${err.message})`)));
    parser.on('close', () => {
      void writing.then(() => {
        if (settled) return;
        if (!received) return fail(validationFailed([{ field: 'file', message: 'is required' }]));
        settled = true;
        resolve({ fields, ...received });
      }, fail);
    });
    const interrupted = () => fail(malformed('was interrupted before the end of the upload'));
    req.once('close', () => {
      if (!req.complete) interrupted();
    });
    req.on('error', interrupted);
    req.pipe(parser);
  });
}
