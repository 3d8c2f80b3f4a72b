import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkerPool } from '../../src/jobs/worker-pool.js';
import { chunksOffThread } from '../../src/modules/ai/knowledge-extraction.js';
import { chunkPages, textPages } from '../../src/modules/ai/knowledge-text.js';
import { fixture } from './ai-support.js';

/**
 * Knowledge extraction on a worker thread gives exactly the chunks the inline code gave
 * (chunkPages(textPages(…))), from a file, a text or a PDF's pages; a missing file fails with the
 * error reading it inline would have thrown.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'petcare-extraction-'));
const workers = new WorkerPool(2);
test.after.always(async () => {
  await workers.close();
  rmSync(dir, { recursive: true, force: true });
});

const samples: Record<string, string> = {
  markdown: fixture('boarding-policy.md').toString('utf8'),
  text: fixture('vaccination-policy.txt').toString('utf8'),
  'pages and long sentences': `Intro page.\f${'A very long sentence without a stop '.repeat(80)}\fFinal. Page: three!\n\n- item one\n- item two`,
  unicode: 'Ärztliche Regel: Hunde fasten 12 h. Katzen — 8 h!\n\nÉtape 2: ne pas nourrir. 猫は絶食。',
  empty: '',
  'large (2 MB)': Array.from({ length: 20_000 }, (_, i) => `Rule ${i} says the dose is checked twice before recovery.${i % 7 === 6 ? '\n\n' : ' '}`).join(''),
};

for (const [name, text] of Object.entries(samples)) {
  test(`the same chunks as inline: ${name}`, async (a) => {
    const inline = chunkPages(textPages(text));
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.txt`);
    writeFileSync(file, text);
    const fromFile = await chunksOffThread({ kind: 'file', file }, workers);
    a.deepEqual(fromFile, { pages: textPages(text).length, chunks: inline });
    a.deepEqual(await chunksOffThread({ kind: 'text', text }, workers), fromFile);
    a.deepEqual(await chunksOffThread({ kind: 'pages', pages: textPages(text) }, workers), fromFile);
  });
}

test('without a pool of the runner, a worker of its own gives the same chunks', async (a) => {
  const text = samples.markdown!;
  a.deepEqual((await chunksOffThread({ kind: 'text', text })).chunks, chunkPages(textPages(text)));
});

test('a missing file fails with the error the inline read threw (ENOENT, same message)', async (a) => {
  const file = path.join(dir, 'gone.txt');
  const err = await a.throwsAsync<NodeJS.ErrnoException>(chunksOffThread({ kind: 'file', file }, workers));
  a.is(err?.code, 'ENOENT');
  a.is(err?.message, `ENOENT: no such file or directory, open '${file}'`);
});
