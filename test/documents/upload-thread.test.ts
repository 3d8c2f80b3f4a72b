import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { AppError, validationFailed } from '../../src/http/errors.js';
import { receiveMultipartUpload } from '../../src/http/multipart-upload.js';
import { ContentInspector, tooLarge } from '../../src/modules/documents/document-upload.js';
import { receiveOnUploadThread } from '../../src/modules/documents/upload-thread.js';
import { exe, png } from './document-helpers.js';

/**
 * The upload thread (upload-thread.ts) gives what the inline code gives: for each form, the same
 * fields, file (size, sha256, sniffed type, kept text) and name, or the same refusal, and the same
 * bytes in the caller's file when it is accepted. Both run behind a bare node:http server on 127.0.0.1.
 */
const maxBytes = 5000;
const options = {
  maxBytes,
  maxTextChars: 100,
  fileField: 'file',
  fieldNames: ['title', 'kind'],
  fieldSize: 4096,
  checkField(name: string, value: string) {
    if (name === 'kind' && value !== 'lab') throw validationFailed([{ field: 'kind', message: 'must be lab' }]);
  },
};

type Receiver = 'inline' | 'thread';
const dir = mkdtempSync(path.join(tmpdir(), 'petcare-upload-thread-'));
let count = 0;

async function receive(req: IncomingMessage, receiver: Receiver): Promise<unknown> {
  const file = path.join(dir, `upload-${++count}`);
  const out = await open(file, 'wx');
  let outcome: unknown;
  try {
    const upload =
      receiver === 'thread'
        ? await receiveOnUploadThread(req, { ...options, tooLarge: () => tooLarge(maxBytes), out })
        : await receiveMultipartUpload(req, {
            ...options,
            tooLarge: () => tooLarge(maxBytes),
            inspector: () => new ContentInspector(maxBytes, options.maxTextChars),
            out,
          });
    outcome = { upload };
  } catch (err) {
    outcome =
      err instanceof AppError ? { refused: { status: err.status, code: err.code, detail: err.message, errors: err.errors ?? null } } : { failed: String(err) };
  } finally {
    await out.close();
  }
  // What a refused upload had written by then depends on how the body was cut into chunks: the caller removes it.
  const written = 'upload' in (outcome as object) ? readFileSync(file).toString('base64') : null;
  rmSync(file);
  return { ...(outcome as object), written };
}

let server: Server;
let url: string;
test.before(async () => {
  server = createServer((req, res) => {
    const receiver = req.url === '/thread' ? 'thread' : 'inline';
    void receive(req, receiver).then((outcome) => {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(outcome));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const boundary = 'thread-test-9f2c';
type Part = { name: string; value: string } | { name: string; filename: string; type: string; bytes: Buffer };
function form(parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    } else {
      pieces.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`),
        part.bytes,
        Buffer.from('\r\n'),
      );
    }
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

async function send(receiver: Receiver, body: Buffer, contentType = `multipart/form-data; boundary=${boundary}`): Promise<unknown> {
  const res = await fetch(`${url}/${receiver}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return res.json();
}

const text = (chars: number) => Buffer.from('Fasting from midnight; water until 6 am. '.repeat(Math.ceil(chars / 41)).slice(0, chars));
const cases: Array<[string, Buffer, string?]> = [
  [
    'a text file with its fields',
    form([
      { name: 'title', value: 'Pre-op' },
      { name: 'kind', value: 'lab' },
      { name: 'file', filename: 'pre-op.txt', type: 'text/plain', bytes: text(3000) },
    ]),
  ],
  ['a PNG', form([{ name: 'file', filename: 'x-ray.png', type: 'image/png', bytes: png }])],
  ['exactly the limit', form([{ name: 'file', filename: 'full.txt', type: 'text/plain', bytes: text(maxBytes) }])],
  ['one byte over the limit', form([{ name: 'file', filename: 'over.txt', type: 'text/plain', bytes: text(maxBytes + 1) }])],
  ['an executable', form([{ name: 'file', filename: 'report.pdf', type: 'application/pdf', bytes: exe }])],
  ['text that is not UTF-8', form([{ name: 'file', filename: 'latin1.txt', type: 'text/plain', bytes: Buffer.from('caf\xe9 au lait', 'latin1') }])],
  ['a control character', form([{ name: 'file', filename: 'nul.txt', type: 'text/plain', bytes: Buffer.from('a\u0000b') }])],
  ['an empty file', form([{ name: 'file', filename: 'empty.txt', type: 'text/plain', bytes: Buffer.alloc(0) }])],
  ['no file', form([{ name: 'title', value: 'Nothing' }])],
  [
    'an unknown field',
    form([
      { name: 'colour', value: 'red' },
      { name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(10) },
    ]),
  ],
  [
    'a field the caller refuses',
    form([
      { name: 'kind', value: 'x-ray' },
      { name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(10) },
    ]),
  ],
  [
    'a repeated field',
    form([
      { name: 'title', value: 'A' },
      { name: 'title', value: 'B' },
      { name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(10) },
    ]),
  ],
  [
    'two files',
    form([
      { name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(10) },
      { name: 'file', filename: 'b.txt', type: 'text/plain', bytes: text(10) },
    ]),
  ],
  ['a file in a text field', form([{ name: 'title', filename: 'a.txt', type: 'text/plain', bytes: text(10) }])],
  ['a body cut short', form([{ name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(100) }]).subarray(0, 150)],
  ['no boundary', form([{ name: 'file', filename: 'a.txt', type: 'text/plain', bytes: text(10) }]), 'multipart/form-data'],
];

for (const [name, body, contentType] of cases) {
  test(`the upload thread gives what the inline code gives: ${name}`, async (a) => {
    const inline = await send('inline', body, contentType);
    const thread = await send('thread', body, contentType);
    a.deepEqual(thread, inline);
  });
}

test('the thread keeps uploads apart: 8 at once each get their own file and hash', async (a) => {
  const bodies = Array.from({ length: 8 }, (_, i) => form([{ name: 'file', filename: `n${i}.txt`, type: 'text/plain', bytes: text(1000 + i * 400) }]));
  const threads = await Promise.all(bodies.map((body) => send('thread', body)));
  const inlines = await Promise.all(bodies.map((body) => send('inline', body)));
  a.deepEqual(threads, inlines);
  a.is(new Set(threads.map((outcome) => (outcome as { upload: { file: { sha256: string } } }).upload.file.sha256)).size, 8);
});
