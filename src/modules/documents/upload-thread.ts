import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode, type FieldError } from '../../http/errors.js';
import type { MultipartUpload } from '../../http/multipart-upload.js';
import { workerScript, workerScriptPresent } from '../../jobs/worker-pool.js';

/**
 * Receiving a large upload off the API's event loop (issue 27.4). The multipart parsing (busboy's
 * boundary search), the SHA-256, the content sniffing and UTF-8 check and the writes of the temp
 * file cost a few milliseconds per megabyte: 3 × 25 MB knowledge uploads held the event loop for
 * 366–447 ms in all. Here the event loop only forwards the request's chunks to one upload thread
 * (document-upload.worker.ts), which runs the same code as inline (receiveMultipartUpload with the
 * ContentInspector) and writes to the caller's file descriptor; the route gets the small result.
 * The text fields are still checked here (the caller's schema), as they arrive, in the body's order.
 */

/** What the upload thread needs of the caller's options (the rest stays here). */
export interface ThreadUploadOptions {
  maxBytes: number;
  maxTextChars: number;
  fileField: string;
  fieldNames: readonly string[];
  fieldSize: number;
}

export type ToUploadThread =
  | { type: 'start'; id: number; headers: IncomingHttpHeaders; options: ThreadUploadOptions; fd: number; ring: SharedArrayBuffer }
  /** The next `length` bytes of the body are in the upload's ring, from `at`. */
  | { type: 'ring'; id: number; at: number; length: number }
  /** The next bytes of the body, when they did not fit in the ring. */
  | { type: 'chunk'; id: number; chunk: Uint8Array }
  | { type: 'end'; id: number }
  /** The client went away, or a field was refused here: the thread stops the upload and answers `error`. */
  | { type: 'abort'; id: number };

/** An error as the inline code threw it: an AppError's problem members, or another error's name, message and code. */
export type ThreadError =
  | { app: { code: ErrorCode; detail: string; errors: FieldError[] | undefined; headers: Record<string, string>; extensions: Record<string, unknown> } }
  | { name: string; message: string; code: string | undefined };

export type FromUploadThread<R> =
  /** The form's headers are read (a body without a boundary is refused before this): the body may flow. */
  | { type: 'ready'; id: number }
  /** Bytes the thread has taken from its queue since the last ack (the flow control of the forwarding). */
  | { type: 'ack'; id: number; bytes: number }
  | { type: 'field'; id: number; name: string; value: string }
  | { type: 'done'; id: number; upload: MultipartUpload<R> }
  | { type: 'error'; id: number; error: ThreadError };

/** Bytes forwarded and not yet taken by the thread before the request is paused (resumed at half). */
const windowBytes = 1024 * 1024;

/**
 * The body crosses through a ring of shared memory, one per upload: a chunk is copied into it and a
 * small message says where, so forwarding allocates nothing (a copy per chunk, transferred, was 75 MB
 * of short-lived buffers per 3 uploads, and their garbage collection, on the event loop). The thread
 * copies a range out as its message arrives, before it takes the bytes: the bytes not yet copied are
 * at most those forwarded and not yet taken (`waiting`), which stays under the ring's size while it
 * is paused at `windowBytes`. A chunk that would not fit goes as a copy (never expected).
 */
const ringBytes = 2 * windowBytes;

/** Room for the form around the file (boundaries, part headers, the text fields): as multipart-upload.ts's early Content-Length check. */
const formOverheadBytes = 64 * 1024;

export function threadError(err: unknown): ThreadError {
  if (err instanceof AppError) {
    return { app: { code: err.code, detail: err.message, errors: err.errors, headers: err.headers, extensions: err.extensions } };
  }
  const e = (err instanceof Error ? err : new Error(String(err))) as NodeJS.ErrnoException;
  return { name: e.name, message: e.message, code: typeof e.code === 'string' ? e.code : undefined };
}

function rebuilt(error: ThreadError): Error {
  if ('app' in error) return new AppError(error.app.code, error.app.detail, error.app);
  const err = new Error(error.message) as NodeJS.ErrnoException;
  err.name = error.name;
  if (error.code !== undefined) err.code = error.code;
  return err;
}

interface Receiving {
  message(message: FromUploadThread<unknown>): void;
  gone(err: Error): void;
}

/**
 * The one upload thread of the process, started on the first upload and left running (unref'd, so
 * it never keeps the process alive); several uploads share it. If it dies, the uploads it had fail
 * and the next one starts a new thread.
 */
class UploadThread {
  private worker: Worker | null = null;
  private readonly receiving = new Map<number, Receiving>();
  private lastId = 0;

  constructor(private readonly script: URL) {}

  /** False in a build without the worker module beside this one (a single-file bundle): uploads are then received inline. */
  get available(): boolean {
    return workerScriptPresent(this.script);
  }

  open(receiving: Receiving): number {
    const id = ++this.lastId;
    this.receiving.set(id, receiving);
    return id;
  }

  close(id: number): void {
    this.receiving.delete(id);
  }

  post(message: ToUploadThread, transfer?: ArrayBuffer[]): void {
    this.start().postMessage(message, transfer);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { name: 'upload-receiver' });
    worker.on('message', (message: FromUploadThread<unknown>) => this.receiving.get(message.id)?.message(message));
    const died = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const all = [...this.receiving.values()];
      this.receiving.clear();
      for (const receiving of all) receiving.gone(new Error(`the upload thread stopped (${reason})`));
    };
    worker.on('error', (err) => died(err.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

export const uploadThread = new UploadThread(workerScript(import.meta.url, 'document-upload.worker'));

/**
 * Receives a multipart/form-data upload on the upload thread: the same limits, refusals and result
 * as receiveMultipartUpload with the ContentInspector inline. The body starts flowing once the thread
 * has the form's headers; it is paused while more than `windowBytes` wait for the thread. `out` stays
 * the caller's (the thread writes to its descriptor): this settles only once the thread has stopped
 * writing, so the caller can close and remove the file.
 */
export function receiveOnUploadThread<R>(
  req: IncomingMessage,
  options: ThreadUploadOptions & { checkField(name: string, value: string): void; tooLarge(): AppError; out: { fd: number } },
): Promise<MultipartUpload<R>> {
  return new Promise<MultipartUpload<R>>((resolve, reject) => {
    let settled = false;
    let flowing = false;
    let stopped = false;
    let refusal: { err: unknown } | null = null;
    let waiting = 0;
    let forwarded = 0;
    const ring = new SharedArrayBuffer(ringBytes);
    const ringView = new Uint8Array(ring);
    let head = 0;

    const stop = () => {
      if (stopped) return;
      stopped = true;
      req.off('data', forward);
      req.off('end', ended);
      req.off('close', closed);
      req.off('error', interrupted);
      req.pause();
    };
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      stop();
      uploadThread.close(id);
      outcome();
    };
    const refuse = (err: unknown) => {
      if (refusal || stopped) return;
      refusal = { err };
      stop();
      uploadThread.post({ type: 'abort', id });
    };
    function forward(chunk: Buffer) {
      // A body larger than any acceptable form, without a Content-Length to refuse it early: refused
      // here at once, rather than read on until the thread (up to a window behind) sees the file's excess.
      forwarded += chunk.length;
      if (forwarded > options.maxBytes + formOverheadBytes) return refuse(options.tooLarge());
      if (waiting + chunk.length <= ringBytes) {
        // Into the ring at `head`, in two ranges when it wraps.
        const first = Math.min(chunk.length, ringBytes - head);
        ringView.set(chunk.subarray(0, first), head);
        uploadThread.post({ type: 'ring', id, at: head, length: first });
        if (first < chunk.length) {
          ringView.set(chunk.subarray(first), 0);
          uploadThread.post({ type: 'ring', id, at: 0, length: chunk.length - first });
        }
        head = (head + chunk.length) % ringBytes;
      } else {
        // A copy the thread takes over (transferred, not cloned): the chunk itself may be a view of a larger buffer.
        const copy = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.length) as ArrayBuffer;
        uploadThread.post({ type: 'chunk', id, chunk: new Uint8Array(copy) }, [copy]);
      }
      waiting += chunk.length;
      if (waiting >= windowBytes) req.pause();
    }
    function ended() {
      uploadThread.post({ type: 'end', id });
    }
    // A client that goes away mid-upload: the thread stops (its refusal is the inline one) and the caller cleans up.
    function interrupted() {
      if (stopped) return;
      stop();
      uploadThread.post({ type: 'abort', id });
    }
    function closed() {
      if (!req.complete) interrupted();
    }

    const id = uploadThread.open({
      message(message) {
        switch (message.type) {
          case 'ready':
            if (stopped || flowing) return;
            flowing = true;
            req.on('data', forward);
            req.on('end', ended);
            return;
          case 'ack':
            waiting -= message.bytes;
            if (!stopped && waiting < windowBytes / 2 && req.isPaused()) req.resume();
            return;
          case 'field':
            if (refusal || stopped) return;
            try {
              options.checkField(message.name, message.value);
            } catch (err) {
              refuse(err);
            }
            return;
          case 'done':
            // Done before the abort reached the thread: the file is whole, but a field was refused.
            finish(() => (refusal ? reject(refusal.err) : resolve(message.upload as MultipartUpload<R>)));
            return;
          case 'error':
            finish(() => reject(refusal ? refusal.err : rebuilt(message.error)));
            return;
        }
      },
      gone(err) {
        finish(() => reject(refusal ? refusal.err : err));
      },
    });
    req.on('close', closed);
    req.on('error', interrupted);
    const { checkField: _check, tooLarge: _tooLarge, out, ...threadOptions } = options;
    try {
      uploadThread.post({ type: 'start', id, headers: req.headers, options: threadOptions, fd: out.fd, ring });
    } catch (err) {
      finish(() => reject(err));
    }
  });
}
