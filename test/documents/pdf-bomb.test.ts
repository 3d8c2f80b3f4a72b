import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { extractPdfText } from '../../src/modules/documents/pdf-text.js';

/** A well-formed one-page PDF whose content stream is `inflated` bytes of spaces, Flate-compressed. */
function compressionBomb(inflated: number): Buffer {
  const stream = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (chunk: Buffer | string) => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buffer);
    length += buffer.length;
  };
  const object = (n: number, body: string, streamBytes?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n${body}`);
    if (streamBytes) push(Buffer.concat([streamBytes, Buffer.from('\nendstream')]));
    push('\nendobj\n');
  };
  push('%PDF-1.4\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>');
  object(4, `<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, stream);
  const xref = length;
  const entries = [1, 2, 3, 4].map((n) => `${String(offsets[n]).padStart(10, '0')} 00000 n \n`).join('');
  push(`xref\n0 5\n0000000000 65535 f \n${entries}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

test('a PDF whose stream inflates far beyond the memory cap is stopped, not decoded (the heap cap alone misses typed arrays)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-bomb-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'bomb.pdf');
  const pdf = compressionBomb(300 * 1024 * 1024);
  t.true(pdf.length < 400 * 1024, `${pdf.length} bytes on disk`);
  writeFileSync(file, pdf);
  const result = await extractPdfText(file, { maxPages: 500, maxChars: 1_000_000, timeoutMs: 20_000, maxHeapMb: 64 });
  t.false(result.ok);
  t.regex((result as { reason: string }).reason, /memory grew past 64 MB/);
});
