import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface PdfTextLimits {
  /** Pages read at most; the rest is left out and the result marked truncated. */
  maxPages: number;
  /** Characters kept at most. */
  maxChars: number;
  /** Wall-clock limit for the whole extraction; the worker is killed when it is reached. */
  timeoutMs: number;
  /** Heap limit of the worker (a hostile PDF must not take the server's memory). */
  maxHeapMb: number;
}

export type PdfTextResult =
  /** `pages`: the text of each page read, in order (empty for a page without a text layer), for page-aware indexing. */
  { ok: true; text: string; pageCount: number; truncated: boolean; pages: string[] } | { ok: false; reason: string };

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));
// The legacy build is the one that runs on Node 20; fonts and CMaps come from the package, never the network.
const pdfjsModule = pathToFileURL(path.join(pdfjsRoot, 'legacy/build/pdf.mjs')).href;
const standardFontDataUrl = `${path.join(pdfjsRoot, 'standard_fonts')}${path.sep}`;
const cMapUrl = `${path.join(pdfjsRoot, 'cmaps')}${path.sep}`;

/**
 * Runs in a worker thread (plain JavaScript, so it needs no TypeScript loader, under tsx or compiled):
 * reads the file, walks the pages and posts the text back.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFile } = require('node:fs/promises');
(async () => {
  const { file, moduleUrl, standardFontDataUrl, cMapUrl, maxPages, maxChars } = workerData;
  const pdfjs = await import(moduleUrl);
  const data = new Uint8Array(await readFile(file));
  const doc = await pdfjs.getDocument({
    data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0,
    standardFontDataUrl, cMapUrl, cMapPacked: true,
  }).promise;
  let text = '';
  const pageTexts = [];
  let truncated = doc.numPages > maxPages;
  const pages = Math.min(doc.numPages, maxPages);
  for (let n = 1; n <= pages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    let pageText = '';
    for (const item of content.items) {
      if (typeof item.str !== 'string') continue;
      pageText += item.str;
      if (item.hasEOL) pageText += '\\n';
    }
    page.cleanup();
    pageText = pageText.trim();
    pageTexts.push(pageText);
    if (pageText) text += (text ? '\\n\\n' : '') + pageText;
    if (text.length >= maxChars) {
      text = text.slice(0, maxChars);
      truncated = true;
      break;
    }
  }
  const pageCount = doc.numPages;
  await doc.destroy();
  parentPort.postMessage({ ok: true, text, pageCount, truncated, pages: pageTexts });
})().catch((err) => parentPort.postMessage({ ok: false, reason: String((err && err.name) || 'Error') + ': ' + String((err && err.message) || err) }));
`;

/** Extractions running at once: each worker may take maxHeapMb, so a burst of uploads waits its turn. */
const maxConcurrent = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= maxConcurrent) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * Extracts the text layer of a PDF file in a worker thread with a heap cap and a wall-clock limit,
 * so a malformed or hostile PDF can neither block the event loop nor exhaust memory. Never throws:
 * failures come back as `{ ok: false, reason }`.
 */
export function extractPdfText(file: string, limits: PdfTextLimits): Promise<PdfTextResult> {
  return withSlot(() => runWorker(file, limits));
}

function runWorker(file: string, limits: PdfTextLimits): Promise<PdfTextResult> {
  return new Promise((resolve) => {
    let settled = false;
    const worker = new Worker(workerSource, {
      eval: true,
      execArgv: [], // no TypeScript loader or other flags of the parent: the script is plain JavaScript
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
      workerData: { file, moduleUrl: pdfjsModule, standardFontDataUrl, cMapUrl, maxPages: limits.maxPages, maxChars: limits.maxChars },
    });
    // pdf.js may still print; nobody reads it.
    worker.stdout.resume();
    worker.stderr.resume();
    // The heap cap does not cover pdf.js's decoded streams (typed arrays live outside the heap):
    // a small PDF whose stream inflates to gigabytes would grow the whole process. Watch the
    // process's resident memory instead and stop the worker when it grows by more than the cap.
    const baseline = process.memoryUsage.rss();
    const memoryCap = limits.maxHeapMb * 1024 * 1024;
    const watchdog = setInterval(() => {
      if (process.memoryUsage.rss() - baseline > memoryCap) finish({ ok: false, reason: `stopped: memory grew past ${limits.maxHeapMb} MB` });
    }, 25);
    const finish = (result: PdfTextResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `timed out after ${limits.timeoutMs} ms` }), limits.timeoutMs);
    worker.once('message', (message: PdfTextResult) => finish(message));
    worker.once('error', (err) => finish({ ok: false, reason: err.message }));
    worker.once('exit', (code) => finish({ ok: false, reason: `worker exited with code ${code}` }));
  });
}
