/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function, by owning package,
 * and inclusive time per stage of the request pipeline, optionally per request.
 *
 *   npx tsx scripts/cpuprofile-summary.ts <file.cpuprofile> [--requests N] [--from µs --to µs] [--top 25] [--json]
 *
 * --drill lists the leaf functions behind the stages whose name contains the text.
 * --from/--to keep only samples inside a window of the profile's own clock (CLOCK_MONOTONIC µs,
 * the same clock as process.hrtime), so start-up and shutdown can be left out.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stage of the request path: a predicate over one stack frame. */
interface Stage {
  name: string;
  match: (frame: CallFrame) => boolean;
}

const inPackage = (frame: CallFrame, ...packages: string[]) => packages.some((p) => frame.url.includes(`/node_modules/${p}/`));
const inApp = (frame: CallFrame, file: string) => /\/src\//.test(frame.url) && !frame.url.includes('/node_modules/') && frame.url.includes(`/src/${file}`);
const kysely = (frame: CallFrame, pattern: RegExp) => inPackage(frame, 'kysely') && pattern.test(frame.url);

/** Leaf frames that are worth naming on their own, whoever called them. */
const leafStages: Stage[] = [
  { name: 'GC', match: (f) => f.functionName === '(garbage collector)' },
  { name: 'socket write syscall (writev/write)', match: (f) => f.url === '' && /^write(v|Buffer|Utf8String|Latin1String|AsciiString)$/.test(f.functionName) },
];

/**
 * Stages of this app's request path (compiled dist/src names), most specific first. Each sample is
 * charged to exactly one stage: that of the frame nearest the leaf that matches one, skipping node-core
 * and native frames (their time belongs to whoever called them), so the stages add up to the busy time.
 */
export const stages: Stage[] = [
  { name: 'SQLite prepare (native; uncached statements)', match: (f) => inPackage(f, 'better-sqlite3') && f.functionName === 'prepare' },
  { name: 'SQLite pragma() (prepares on every call)', match: (f) => inPackage(f, 'better-sqlite3') && f.functionName === 'pragma' },
  {
    name: 'SQLite step (stmt.all/run, native, via kysely driver)',
    match: (f) => kysely(f, /\/dialect\/sqlite\/sqlite-driver/) && f.functionName === 'executeQuery',
  },
  { name: 'kysely compile (operation tree → SQL)', match: (f) => kysely(f, /\/query-compiler\//) },
  {
    name: 'kysely query building (builders, parsers, frozen nodes)',
    match: (f) => kysely(f, /\/(query-builder|parser|operation-node|expression|dynamic|util)\//),
  },
  { name: 'kysely execution plumbing (executor, connection, transaction)', match: (f) => inPackage(f, 'kysely') },
  { name: 'better-sqlite3 other (transaction wrappers)', match: (f) => inPackage(f, 'better-sqlite3') },
  {
    name: 'JWT verify (AccessTokens.verify, jsonwebtoken)',
    match: (f) => (f.functionName === 'verify' && inApp(f, 'modules/oauth/access-tokens.')) || inPackage(f, 'jsonwebtoken', 'jws', 'jwa'),
  },
  { name: 'client directory (cache lookups)', match: (f) => inApp(f, 'modules/clients/client-directory.') },
  { name: 'rate limiter', match: (f) => inApp(f, 'http/rate-limit.') },
  { name: 'authenticate (header parse, actor, scopes)', match: (f) => inApp(f, 'http/authenticate.') },
  { name: 'input validation (TypeBox)', match: (f) => inApp(f, 'http/validation.') || inPackage(f, '@sinclair/typebox') },
  { name: 'idempotency (find, fingerprint, save)', match: (f) => inApp(f, 'http/idempotency.') },
  { name: 'ids (newId: randomBytes + base32)', match: (f) => inApp(f, 'db/ids.') },
  { name: 'audit (entry, row, batching)', match: (f) => inApp(f, 'http/audit.') },
  { name: 'metrics.observe', match: (f) => inApp(f, 'http/metrics.') },
  {
    name: 'pino logging',
    match: (f) =>
      inPackage(
        f,
        'pino',
        'sonic-boom',
        'fast-redact',
        'pino-std-serializers',
        'thread-stream',
        'quick-format-unescaped',
        'safe-stable-stringify',
        'atomic-sleep',
        'on-exit-leak-free',
      ),
  },
  { name: 'request context (request id, headers, timing)', match: (f) => inApp(f, 'http/request-context.') },
  { name: 'error handler (own frames)', match: (f) => inApp(f, 'http/error-handler.') || inApp(f, 'http/problem.') || inApp(f, 'http/errors.') },
  { name: 'koa-body (co-body, raw-body)', match: (f) => inPackage(f, 'koa-body', 'co-body', 'raw-body', 'inflation', 'formidable') },
  { name: '@koa/router (match, params, compose)', match: (f) => inPackage(f, '@koa/router', 'path-to-regexp') },
  { name: 'router pipeline (src/http/router: runProtected, respond)', match: (f) => inApp(f, 'http/router.') || inApp(f, 'http/route.') },
  { name: 'route handler + service + repository + presenter', match: (f) => inApp(f, 'modules/') },
  { name: 'app other', match: (f) => inApp(f, '') },
  { name: 'koa core (context, delegates, compose, respond, on-finished)', match: (f) => /\/node_modules\//.test(f.url) && ownerOf(f) !== null },
];

const transparent = (frame: CallFrame) => frame.url === '' || frame.url.startsWith('node:');

/** The one stage a sample's stack is charged to (see `stages`). */
export function stageOf(stack: readonly CallFrame[]): string {
  const leaf = stack[0];
  if (!leaf) return '(empty)';
  for (const stage of leafStages) if (stage.match(leaf)) return stage.name;
  for (const frame of stack) {
    if (transparent(frame)) continue;
    for (const stage of stages) if (stage.match(frame)) return stage.name;
    return `other: ${ownerOf(frame) ?? frame.url}`;
  }
  // Only node core and native frames: the HTTP parser, socket reads, timers, microtask plumbing.
  if (leaf.url === '' && leaf.functionName.startsWith('(')) return leaf.functionName;
  const core = stack.find((f) => f.url.startsWith('node:'));
  return core ? `node core: ${core.url.replace(/^node:(internal\/)?/, '')}` : `native: ${leaf.functionName || '(anonymous)'}`;
}

/** Who owns a frame: an app file, a package, a node core module, or a V8 pseudo-frame. */
export function ownerOf(frame: CallFrame): string | null {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : null;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] ?? null;
  const app = /\/(?:dist\/)?((?:src|migrations|test|scripts)\/.+)$/.exec(url);
  if (app) return `app ${app[1]}`;
  if (url.startsWith('node:')) return null; // node core: charged to its caller when there is one
  return url;
}

const coreModule = (frame: CallFrame): string => (frame.url.startsWith('node:') ? frame.url.replace(/^node:(internal\/)?/, 'node:') : '(native)');

export interface Summary {
  samples: number;
  totalUs: number;
  idleUs: number;
  activeUs: number;
  requests: number | null;
  byFunction: Array<{ key: string; us: number }>;
  byOwner: Array<{ key: string; us: number }>;
  byStage: Array<{ key: string; us: number }>;
  /** With `drill`: the leaf functions (and their nearest charged frame) of the stages whose name contains it. */
  drill?: Array<{ key: string; us: number }>;
}

const sorted = (map: Map<string, number>) => [...map.entries()].map(([key, us]) => ({ key, us })).sort((a, b) => b.us - a.us);
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

export function summarizeProfile(profile: CpuProfile, options: { requests?: number; from?: number; to?: number; drill?: string } = {}): Summary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // The stack of a node, leaf first, computed once per node.
  const stacks = new Map<number, CallFrame[]>();
  const stackOf = (id: number): CallFrame[] => {
    let stack = stacks.get(id);
    if (!stack) {
      stack = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at);
        if (node) stack.push(node.callFrame);
      }
      stacks.set(id, stack);
    }
    return stack;
  };

  // Sample i lasts from its timestamp to the next one (as Chrome DevTools counts it).
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const from = options.from ?? -Infinity;
  const to = options.to ?? Infinity;

  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const byStage = new Map<string, number>();
  const drill = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  let samples = 0;
  profile.samples.forEach((id, i) => {
    const at = times[i] as number;
    if (at < from || at > to) return;
    const us = Math.max(0, (times[i + 1] ?? profile.endTime) - at);
    const stack = stackOf(id);
    const leaf = stack[0];
    if (!leaf) return;
    samples++;
    totalUs += us;
    if (leaf.functionName === '(idle)') {
      idleUs += us;
      return;
    }
    const owner = ownerOf(leaf);
    const file = leaf.url.replace(/^.*\/(node_modules|dist)\//, '').replace(/^file:\/\//, '');
    add(byFunction, `${leaf.functionName || '(anonymous)'}  ${file}${leaf.url ? `:${leaf.lineNumber + 1}` : ''}`, us);
    // Native and node-core time is charged to the nearest app or package frame that called it.
    let charged = owner;
    if (charged === null) {
      for (const frame of stack.slice(1)) {
        charged = ownerOf(frame);
        if (charged !== null && !charged.startsWith('(')) break;
        charged = null;
      }
      charged = charged === null ? coreModule(leaf) : `${charged} (via ${coreModule(leaf)})`;
    }
    add(byOwner, charged, us);
    const stage = stageOf(stack);
    add(byStage, stage, us);
    if (options.drill && stage.includes(options.drill)) {
      const charged = stack.find((f) => !transparent(f));
      add(
        drill,
        `${leaf.functionName || '(anonymous)'} ${leaf.url.replace(/^.*\/(node_modules|dist)\//, '')}  ← ${charged ? `${charged.functionName || '(anonymous)'} ${charged.url.replace(/^.*\/(node_modules|dist)\//, '')}:${charged.lineNumber + 1}` : '-'}`,
        us,
      );
    }
  });
  return {
    samples,
    totalUs,
    idleUs,
    activeUs: totalUs - idleUs,
    requests: options.requests ?? null,
    byFunction: sorted(byFunction),
    byOwner: sorted(byOwner),
    byStage: sorted(byStage),
    ...(options.drill ? { drill: sorted(drill) } : {}),
  };
}

export function formatSummary(summary: Summary, top = 25): string {
  const perRequest = (us: number) => (summary.requests ? `${(us / summary.requests).toFixed(1).padStart(8)} µs/req` : '');
  const share = (us: number) => `${((100 * us) / Math.max(1, summary.activeUs)).toFixed(1).padStart(5)}%`;
  const row = (key: string, us: number) => `  ${(us / 1000).toFixed(1).padStart(9)} ms ${share(us)} ${perRequest(us)}  ${key}`;
  const lines = [
    `samples ${summary.samples}, window ${(summary.totalUs / 1e6).toFixed(2)} s, busy ${(summary.activeUs / 1e6).toFixed(2)} s, idle ${(summary.idleUs / 1e6).toFixed(2)} s` +
      (summary.requests ? `, ${summary.requests} requests → ${(summary.activeUs / summary.requests).toFixed(1)} µs CPU/request` : ''),
    '',
    'Time by stage of the request path (each sample charged once, to the nearest app/package frame; adds up to busy time):',
    ...summary.byStage.map((s) => row(s.key, s.us)),
    '',
    'Self time by owner (native and node-core time charged to the nearest app/package caller):',
    ...summary.byOwner.slice(0, top).map((s) => row(s.key, s.us)),
    '',
    `Top ${top} functions by self time:`,
    ...summary.byFunction.slice(0, top).map((s) => row(s.key, s.us)),
  ];
  if (summary.drill) lines.push('', 'Drill-down (leaf function ← frame it was charged to):', ...summary.drill.slice(0, top).map((s) => row(s.key, s.us)));
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      requests: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      top: { type: 'string', default: '25' },
      json: { type: 'boolean', default: false },
      drill: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file) {
    process.stderr.write(
      'usage: tsx scripts/cpuprofile-summary.ts <file.cpuprofile> [--requests N] [--from µs --to µs] [--top 25] [--json] [--drill <stage text>]\n',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const summary = summarizeProfile(profile, {
    requests: values.requests ? Number(values.requests) : undefined,
    from: values.from ? Number(values.from) : undefined,
    to: values.to ? Number(values.to) : undefined,
    drill: values.drill,
  });
  process.stdout.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary, Number(values.top))}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
