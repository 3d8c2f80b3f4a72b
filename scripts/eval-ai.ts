/**
 * `npm run eval:ai`: the AI platform's evaluation on test/fixtures/ai — an anaesthesia protocol
 * (PDF, 4 pages), a boarding policy (Markdown) and a vaccination policy (text, 3 pages split by form
 * feeds), and questions with the page that answers them or the expectation of "I don't know".
 * It starts the appliance on a temp data dir, uploads the documents over HTTP, lets the
 * ai-indexing job index them, then asks every question and prints:
 *   - retrieval hit-rate@3: answerable questions whose expected document and page is among the top 3 passages;
 *   - abstention accuracy: questions whose `abstained` matches the expectation, at the shipped threshold,
 *     and the same at other thresholds (how the shipped value was chosen).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { openAppliance } from '../src/appliance.js';
import { loadConfig } from '../src/config.js';
import { abstainBelow, retrieve, supportOf } from '../src/modules/ai/answers.service.js';
import { contentWords } from '../src/modules/ai/knowledge-text.js';
import { LlmClient } from '../src/modules/ai/llm-client.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/ai');

interface Question {
  question: string;
  document?: 'anaesthesia' | 'boarding' | 'vaccination';
  page?: number;
  abstain?: boolean;
}

export interface EvalResult {
  questions: number;
  answerable: number;
  hitRateAt3: number;
  abstentionAccuracy: number;
  threshold: number;
  sweep: Array<{ threshold: number; accuracy: number }>;
  misses: string[];
}

const files = [
  { key: 'anaesthesia', name: 'anaesthesia-protocol.pdf', type: 'application/pdf', title: 'Anaesthesia protocol' },
  { key: 'boarding', name: 'boarding-policy.md', type: 'text/markdown', title: 'Boarding policy' },
  { key: 'vaccination', name: 'vaccination-policy.txt', type: 'text/plain', title: 'Vaccination policy' },
] as const;

function multipart(file: Buffer, filename: string, type: string, title: string): { body: Buffer; contentType: string } {
  const boundary = '----petcare-eval';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function runEval(): Promise<EvalResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petcare-eval-'));
  const credentials = { id: 'pk_live_evaladmin', secret: 'sk_live_evaladminsecret' };
  const config = loadConfig(
    {},
    {
      dataDir,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      adminClientId: credentials.id,
      adminClientSecret: credentials.secret,
      sandboxOnly: false,
      jobPollMs: 50,
    },
  );
  const appliance = await openAppliance({ config, logger: pino({ level: 'silent' }) });
  const server = appliance.app.koa.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  await appliance.app.runner.start();
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + url, {
        method,
        headers: { ...(body !== undefined && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- eval script reads answers loosely
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const token = (await call('POST', '/oauth/token', { grant_type: 'client_credentials', client_id: credentials.id, client_secret: credentials.secret }))
      .access_token as string;
    const auth = { authorization: `Bearer ${token}` };
    const service = await call('POST', '/v1/ai/services', { name: 'Clinic documents' }, auth);
    const ids = new Map<string, string>();
    for (const f of files) {
      const form = multipart(readFileSync(path.join(fixtures, f.name)), f.name, f.type, f.title);
      const doc = await call('POST', `/v1/ai/services/${service.id}/documents`, form.body, { ...auth, 'content-type': form.contentType });
      ids.set(doc.id as string, f.key);
    }
    for (const id of ids.keys()) {
      for (let i = 0; ; i++) {
        const doc = await call('GET', `/v1/ai/services/${service.id}/documents/${id}`, undefined, auth);
        if (doc.status === 'indexed') break;
        if (doc.status === 'failed' || i > 600) throw new Error(`indexing ${id}: ${doc.status} ${doc.error}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    const questions = JSON.parse(readFileSync(path.join(fixtures, 'questions.json'), 'utf8')) as Question[];
    const db = appliance.stores.get('live').db;
    const serviceRow = await db
      .selectFrom('ai_services')
      .selectAll()
      .where('id', '=', service.id as string)
      .executeTakeFirstOrThrow();
    const llm = new LlmClient(config);
    let hits = 0;
    let answerable = 0;
    const misses: string[] = [];
    const supports: Array<{ support: number; abstain: boolean }> = [];
    for (const q of questions) {
      const words = contentWords(q.question);
      const { passages } = await retrieve(db, { tenantId: serviceRow.tenant_id, locationIds: null }, llm, [serviceRow], words, q.question, 3);
      const support = supportOf(words, passages);
      supports.push({ support, abstain: q.abstain === true });
      if (process.env.EVAL_VERBOSE) console.log(support.toFixed(3), q.abstain ? 'ABSTAIN' : 'answer ', q.question);
      // The answer as served must agree with the threshold applied here.
      const served = await call('POST', `/v1/ai/services/${service.id}/query`, { question: q.question }, auth);
      if (served.abstained !== support < abstainBelow) throw new Error(`served answer disagrees with the eval for "${q.question}"`);
      if (!q.abstain) {
        answerable++;
        const hit = passages.slice(0, 3).some((p) => ids.get(p.hit.document_id) === q.document && p.hit.page === q.page);
        if (hit) hits++;
        else misses.push(`miss@3: ${q.question}`);
      }
      if (support < abstainBelow !== (q.abstain === true))
        misses.push(`abstention ${support < abstainBelow ? 'wrong' : 'missing'} (support ${support.toFixed(2)}): ${q.question}`);
    }
    const accuracyAt = (threshold: number) => supports.filter((s) => s.support < threshold === s.abstain).length / supports.length;
    const sweep = [0.2, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1].map((threshold) => ({ threshold, accuracy: round(accuracyAt(threshold)) }));
    return {
      questions: questions.length,
      answerable,
      hitRateAt3: round(hits / answerable),
      abstentionAccuracy: round(accuracyAt(abstainBelow)),
      threshold: abstainBelow,
      sweep,
      misses,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await appliance.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runEval();
  console.log(`questions: ${result.questions} (${result.answerable} answerable, ${result.questions - result.answerable} to abstain on)`);
  console.log(`retrieval hit-rate@3: ${result.hitRateAt3}`);
  console.log(`abstention accuracy: ${result.abstentionAccuracy} (support threshold ${result.threshold})`);
  console.log('threshold sweep: ' + result.sweep.map((s) => `${s.threshold}→${s.accuracy}`).join('  '));
  for (const miss of result.misses) console.log(`  ${miss}`);
}
