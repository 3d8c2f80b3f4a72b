import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mismatches, parsePattern, readmeBlocks, type Block, type Step } from '../helpers/readme-walkthroughs.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * The README's walkthroughs run as written (issue 28.3): every shell block, in order, in one bash
 * process against a fresh appliance, with only `http://localhost:8080` pointed at it. A command
 * that fails, a curl that answers 4xx/5xx where the README shows no such status, or an answer
 * that no longer matches the `# →` JSON the README shows (`…` masks ids and times) fails here.
 */
const secret = `sk_live_${'a1'.repeat(24)}`;
const sandboxSecret = `sk_test_${'b2'.repeat(24)}`;
const t0 = useTestApp(test, { config: { adminClientId: 'pk_live_admin', adminClientSecret: secret, sandboxAdminClientSecret: sandboxSecret } });

const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
const blocks = readmeBlocks(readme);

interface Outcome {
  rc: number;
  out: string;
  err: string;
  statuses: number[];
}

const outcomes = new Map<Step, Outcome>();
let work: string;

test.before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'petcare-readme-'));
  const steps = blocks.flatMap((block) => block.steps);
  const script = [
    'set -u',
    `export PETCARE_ADMIN_CLIENT_SECRET='${secret}' PETCARE_SANDBOX_ADMIN_CLIENT_SECRET='${sandboxSecret}'`,
    // Every curl also writes its status to stderr, where the test reads it.
    `curl() { command curl -w '%{stderr}\\n@@status %{http_code}\\n' "$@"; }`,
    ...steps.map(
      (step, n) => `{\n${step.command.replaceAll('http://localhost:8080', t0.url)}\n} >'${work}/${n}.out' 2>'${work}/${n}.err'; echo $? >'${work}/${n}.rc'`,
    ),
  ].join('\n');
  writeFileSync(path.join(work, 'walkthroughs.sh'), script);
  await promisify(execFile)('bash', [path.join(work, 'walkthroughs.sh')], { cwd: path.resolve(import.meta.dirname, '../..'), timeout: 120_000 }).catch(
    (error: unknown) => error,
  );
  for (const [n, step] of steps.entries()) {
    const read = (suffix: string) => {
      try {
        return readFileSync(path.join(work, `${n}.${suffix}`), 'utf8');
      } catch {
        return '';
      }
    };
    const err = read('err');
    outcomes.set(step, {
      rc: read('rc').trim() === '' ? -1 : Number(read('rc').trim()),
      out: read('out'),
      err: err.replace(/\n?@@status \d+\n/g, '\n').trim(),
      statuses: [...err.matchAll(/@@status (\d+)/g)].map((m) => Number(m[1])),
    });
  }
});

test.after.always(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What is wrong with one step's outcome. */
function problemsOf(step: Step, outcome: Outcome | undefined): string[] {
  const where = `README line ${step.line}: ${step.command.split('\n')[0]!.slice(0, 100)}`;
  if (outcome === undefined || outcome.rc === -1) return [`${where}: did not run`];
  const problems: string[] = [];
  if (outcome.rc !== 0) problems.push(`${where}: exit ${outcome.rc} ${outcome.err.slice(0, 300)}`);
  const expected = step.expectations.find((e) => e.status !== null)?.status ?? null;
  const last = outcome.statuses.at(-1);
  if (expected !== null) {
    if (last !== expected) problems.push(`${where}: HTTP ${last}, the README shows ${expected}: ${outcome.out.slice(0, 300)}`);
  } else {
    for (const status of outcome.statuses) if (status >= 400) problems.push(`${where}: HTTP ${status}: ${outcome.out.slice(0, 300)}`);
  }
  for (const expectation of step.expectations) {
    if (expectation.pattern === null) continue;
    let actual: unknown;
    try {
      actual = JSON.parse(outcome.out);
    } catch {
      problems.push(`${where}: the answer is not JSON: ${outcome.out.slice(0, 200)}`);
      continue;
    }
    const diff = mismatches(parsePattern(expectation.pattern), actual);
    if (diff.length) problems.push(`README line ${expectation.line}: ${diff.slice(0, 5).join('; ')}\n  answer: ${outcome.out.slice(0, 400)}`);
  }
  return problems;
}

test('the README has walkthroughs to run', (t) => {
  t.true(blocks.length >= 10);
  t.true(blocks.flatMap((b) => b.steps).filter((s) => s.expectations.some((e) => e.pattern !== null)).length >= 20, 'answers are checked');
});

const sections = [...new Set(blocks.map((b: Block) => b.section))];
for (const section of sections) {
  test(`README walkthrough runs as written: ${section}`, (t) => {
    const problems = blocks.filter((b) => b.section === section).flatMap((b) => b.steps.flatMap((step) => problemsOf(step, outcomes.get(step))));
    t.deepEqual(problems, []);
  });
}
