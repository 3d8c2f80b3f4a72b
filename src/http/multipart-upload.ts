import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { type AppError, validationFailed } from './errors.js';

/** Room for the form around the file (boundaries, part headers, the text fields) in the early Content-Length check. */
const formOverheadBytes = 64 * 1024;

/**
 * Follows the file's bytes as they stream (counts, hashes, checks them), refusing by throwing an
 * AppError as soon as something is wrong; `finish` gives what the module keeps of the file.
 */
export interface UploadInspector<R> {
  readonly size: number;
  push(chunk: Buffer): void;
  finish(): R;
}

export interface MultipartUploadOptions<R> {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** The refusal of a file larger than `maxBytes`. */
  tooLarge(): AppError;
  /** Name of the one file part. */
  fileField: string;
  /** Text fields the form may carry besides the file. */
  fieldNames: readonly string[];
  /** Largest text field value, in bytes (a longer one is refused as too long). */
  fieldSize: number;
  /** Checks a text field as it arrives (throws an AppError to refuse the upload at once). */
  checkField(name: string, value: string): void;
  /** A new inspector for the file part. */
  inspector(): UploadInspector<R>;
  /** The temp file the content is written to (a FileHandle; on the upload thread, writes to the caller's descriptor). */
  out: { write(chunk: Buffer): Promise<unknown> };
}

export interface MultipartUpload<R> {
  fields: Record<string, string>;
  /** What the inspector made of the file. */
  file: R;
  /** The file part's name (busboy keeps only the last path segment; sanitize before keeping) and declared type. */
  info: busboy.FileInfo;
}

const malformed = (message: string): AppError => validationFailed([{ field: 'body', message }], 'The multipart/form-data body is not valid.');

/**
 * Streams a multipart/form-data upload with busboy: the one file part goes through the inspector
 * into `out` (with backpressure), never whole in memory; text fields are checked as they arrive.
 * Parts, fields, field sizes and the file size are limited; on any refusal the request stops being
 * read at once, so the rest of the body is not read. The body is read a chunk per turn of the
 * event loop, so receiving large uploads never holds it for long. The caller owns `out` and removes the temp file
 * when this rejects.
 */
export function receiveMultipartUpload<R>(req: IncomingMessage, options: MultipartUploadOptions<R>): Promise<MultipartUpload<R>> {
  // The unread rest of a refused body is the gateway's: it answers with Connection: close and drains
  // a bounded amount so the client can read the answer (lingeringClose).
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + formOverheadBytes) return Promise.reject(options.tooLarge());

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
        fieldSize: options.fieldSize,
        headerPairs: 20,
      },
    });
  } catch {
    // No Content-Type or no boundary: there is no form to read a file from.
    return Promise.reject(
      req.headers['content-type']
        ? malformed('is not a valid multipart/form-data body (boundary missing)')
        : validationFailed([{ field: options.fileField, message: 'is required' }]),
    );
  }

  return new Promise<MultipartUpload<R>>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let received: { file: R; info: busboy.FileInfo } | undefined;
    let fileStream: Readable | undefined;
    let writing: Promise<void> = Promise.resolve();
    let settled = false;

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', feed);
      req.off('end', ended);
      req.pause();
      fileStream?.destroy();
      parser.destroy();
      // Reject only once the file writer has stopped, so the caller can close and remove the temp file safely.
      void writing.catch(() => undefined).then(() => reject(err));
    };

    const consume = async (stream: Readable, info: busboy.FileInfo) => {
      const inspector = options.inspector();
      for await (const chunk of stream) {
        inspector.push(chunk as Buffer);
        await options.out.write(chunk as Buffer);
      }
      if ((stream as Readable & { truncated?: boolean }).truncated) throw options.tooLarge();
      if (inspector.size === 0) throw validationFailed([{ field: options.fileField, message: 'is empty' }]);
      received = { file: inspector.finish(), info };
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
      // busboy still marks the stream after this event (destroying it here would break its write): the
      // body stops being fed at once, the refusal follows in the same turn.
      stream.once('limit', () => {
        req.off('data', feed);
        req.pause();
        process.nextTick(() => fail(options.tooLarge()));
      });
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
        if (!received) return fail(validationFailed([{ field: options.fileField, message: 'is required' }]));
        settled = true;
        resolve({ fields, ...received });
      }, fail);
    });
    // A client that goes away mid-upload: stop and clean up (nobody will read the answer).
    const interrupted = () => fail(malformed('was interrupted before the end of the upload'));
    req.once('close', () => {
      if (!req.complete) interrupted();
    });
    req.on('error', interrupted);
    // The body is fed to the parser one chunk a turn of the event loop: a socket read callback
    // otherwise hands over chunk after chunk (up to 32 reads, 2 MB, per socket), and the parser,
    // hash and checks of several large uploads at once held the loop for 50 ms and more at a time.
    // The parser's own backpressure (the file stream not yet written) is kept, as a pipe would.
    const resume = () => {
      if (!settled) req.resume();
    };
    function feed(chunk: Buffer) {
      req.pause();
      if (parser.write(chunk)) setImmediate(resume);
      else parser.once('drain', () => setImmediate(resume));
    }
    function ended() {
      if (!settled) parser.end();
    }
    req.on('data', feed);
    req.on('end', ended);
  });
}
