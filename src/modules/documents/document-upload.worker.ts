/**
 * The upload thread (see upload-thread.ts): receives the multipart bodies the API's event loop
 * forwards, chunk by chunk, with the inline code itself — receiveMultipartUpload over a stand-in
 * for the request, the ContentInspector, writes to the caller's file descriptor — and answers with
 * the small result or the refusal. Several uploads at once, each by its id.
 */
import { write } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { receiveMultipartUpload } from '../../http/multipart-upload.js';
import { ContentInspector, tooLarge } from './document-upload.js';
import { threadError, type FromUploadThread, type ToUploadThread } from './upload-thread.js';

const port = parentPort;
if (!port) throw new Error('document-upload.worker runs in a worker thread');
const post = (message: FromUploadThread<unknown>) => port.postMessage(message);

/** Acks are batched: a message per this many bytes taken, not one per socket chunk. */
const ackBytes = 128 * 1024;

interface Upload {
  body: Readable & { headers: IncomingHttpHeaders; complete: boolean };
  ring: Uint8Array;
}
const uploads = new Map<number, Upload>();

/** Writes all of `chunk` at the descriptor's position (the caller's file, opened for writing). */
function writeAll(fd: number, chunk: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const next = (from: number) =>
      write(fd, chunk, from, chunk.length - from, null, (err, written) => {
        if (err) reject(err);
        else if (from + written < chunk.length) next(from + written);
        else resolve();
      });
    next(0);
  });
}

function start(message: Extract<ToUploadThread, { type: 'start' }>): void {
  const { id, options, fd } = message;
  const body = Object.assign(new Readable({ read() {} }), { headers: message.headers, complete: false });
  // The inline code listens for 'error' (a client gone); an abort destroys the body with one.
  body.on('error', () => undefined);
  uploads.set(id, { body, ring: new Uint8Array(message.ring) });
  let settled = false;
  const receiving = receiveMultipartUpload(body as unknown as IncomingMessage, {
    maxBytes: options.maxBytes,
    tooLarge: () => tooLarge(options.maxBytes),
    fileField: options.fileField,
    fieldNames: options.fieldNames,
    fieldSize: options.fieldSize,
    checkField: (name, value) => post({ type: 'field', id, name, value }),
    inspector: () => new ContentInspector(options.maxBytes, options.maxTextChars),
    out: { write: (chunk) => writeAll(fd, chunk) },
  });
  receiving.then(
    (upload) => {
      settled = true;
      uploads.delete(id);
      post({ type: 'done', id, upload });
    },
    (err: unknown) => {
      settled = true;
      uploads.delete(id);
      post({ type: 'error', id, error: threadError(err) });
    },
  );
  let taken = 0;
  body.on('data', (chunk: Buffer) => {
    taken += chunk.length;
    if (taken >= ackBytes) {
      post({ type: 'ack', id, bytes: taken });
      taken = 0;
    }
  });
  // After the refusals decided from the headers alone (they settle in a microtask): those never read the body.
  setImmediate(() => {
    if (!settled) post({ type: 'ready', id });
  });
}

port.on('message', (message: ToUploadThread) => {
  if (message.type === 'start') return start(message);
  const upload = uploads.get(message.id);
  if (!upload) return; // settled already: what was still on its way is dropped
  // Copied out of the ring at once: the event loop reuses the range once the bytes are taken.
  if (message.type === 'ring') upload.body.push(Buffer.from(upload.ring.subarray(message.at, message.at + message.length)));
  else if (message.type === 'chunk') upload.body.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
  else if (message.type === 'end') {
    upload.body.complete = true;
    upload.body.push(null);
  } else upload.body.destroy(new Error('the upload was interrupted'));
});
