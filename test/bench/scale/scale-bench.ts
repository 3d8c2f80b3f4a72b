/**
 * `npm run bench:scale` (issue 27): years of a clinic group's data, and how the API holds up.
 *
 * Builds (once; deterministic, resumable, with a progress line) two databases of the same shape
 * through the real schema — the big one (scale 1: 400k parents, 1M pets, 10M appointments over five
 * years and the next 60 days, 3M vaccinations, 2M invoices with payments and their journal, 300k
 * stays, 100k marketplace orders with reviews, 12 locations) and a small one (scale 0.001: a normal
 * bench seed's size) — then measures both in one run through the real server and prints p50/p99 of
 * each call with the big/small ratio, start to /readyz, RSS, file sizes and a backup.
 *
 *   npm run bench:scale                           scale 1 (about 15 GB; the first build takes long)
 *   npm run bench:scale -- --scale 0.1            a tenth of it (BENCH_SCALE=0.1 does the same)
 *   npm run bench:scale -- --build-only           build (or finish building) and stop
 *   npm run bench:scale -- --skip-build           measure with the dist/ built by the last run
 *
 * Options: --small-scale (0.001), --seed (27), --samples (per case, 50), --budget (seconds per case, 20),
 * --no-backup. Env: BENCH_SCALE_DIR (where the databases live, default /work/scale-data: keep it
 * outside the repository), BENCH_SCALE. A stopped build continues where it stopped when run again.
 */
import { execSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { buildScaleDatabase, shapeAt, type BuiltDatabase } from './build-scale-database.js';
import { measureBoth, type DatabaseFigures } from './measure-scale.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { values } = parseArgs({
  options: {
    scale: { type: 'string' },
    'small-scale': { type: 'string', default: '0.001' },
    seed: { type: 'string', default: '27' },
    samples: { type: 'string', default: '50' },
    budget: { type: 'string', default: '20' },
    'build-only': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'no-backup': { type: 'boolean', default: false },
  },
});

const number = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const scale = number('scale', values.scale ?? process.env.BENCH_SCALE ?? '1');
const smallScale = number('small-scale', values['small-scale']);
const seed = Math.round(number('seed', values.seed));
if (scale === smallScale) throw new Error('--scale and --small-scale must differ (both servers run at once, one per data dir)');
const baseDir = path.resolve(process.env.BENCH_SCALE_DIR ?? '/work/scale-data');
if (!path.relative(root, baseDir).startsWith('..')) throw new Error(`BENCH_SCALE_DIR (${baseDir}) is inside the repository: keep the databases outside it`);
const dirOf = (s: number) => path.join(baseDir, `scale-${s}`);

async function build(s: number): Promise<BuiltDatabase> {
  const shape = shapeAt(s);
  const bar = new cliProgress.SingleBar(
    { format: `scale ${s} |{bar}| {percentage}% | day {value}/{total} | {rows} rows | {rate} rows/s | ETA {eta_formatted}`, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let first: number | null = null;
  let firstRows = 0;
  const built = await buildScaleDatabase({
    dataDir: dirOf(s),
    scale: s,
    seed,
    log: (line) =>
      process.stdout.write(
        `${line}\n  (${Object.entries(shape)
          .map(([k, v]) => `${v.toLocaleString('en')} ${k}`)
          .join(', ')})\n`,
      ),
    onProgress: (done, total, rows) => {
      if (first === null) {
        first = done;
        firstRows = rows;
        bar.start(total, done, { rows: rows.toLocaleString('en'), rate: 0 });
        return;
      }
      const seconds = (Date.now() - started) / 1000;
      bar.update(done, { rows: rows.toLocaleString('en'), rate: Math.round((rows - firstRows) / seconds).toLocaleString('en') });
    },
  });
  bar.stop();
  if (built.buildSeconds > 0) process.stdout.write(`scale ${s}: built in ${built.buildSeconds.toFixed(0)} s (${JSON.stringify(built.rows)})\n`);
  return built;
}

/** The server as `npm start` runs it, compiled into the bench dir so dist/ (which others may use) is left alone. */
function buildServer(): string {
  const serverRoot = path.join(baseDir, 'server');
  mkdirSync(serverRoot, { recursive: true });
  copyFileSync(path.join(root, 'package.json'), path.join(serverRoot, 'package.json'));
  const modules = path.join(serverRoot, 'node_modules');
  // A link left by a run from another checkout may point nowhere now (existsSync follows it): replace it.
  if (!existsSync(modules)) {
    rmSync(modules, { force: true });
    symlinkSync(path.join(root, 'node_modules'), modules);
  }
  if (!values['skip-build']) {
    process.stdout.write(`compiling the server into ${serverRoot}/dist…\n`);
    execSync(`npx tsc -p tsconfig.build.json --outDir ${JSON.stringify(path.join(serverRoot, 'dist'))}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return serverRoot;
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);

function table(small: DatabaseFigures, big: DatabaseFigures): string {
  const lines = [`| call | small p50 / p99 | big p50 / p99 | big/small (p50) |`, `|---|---|---|---|`];
  for (const c of big.cases) {
    const s = small.cases.find((x) => x.name === c.name);
    if (!s) continue;
    const ratio = c.p50 / s.p50;
    const mark = c.flat ? (ratio <= 2 ? '' : ' **(> 2×)**') : '';
    lines.push(`| ${c.name} | ${fmt(s.p50)} / ${fmt(s.p99)} | ${fmt(c.p50)} / ${fmt(c.p99)} | ${ratio.toFixed(2)}×${mark} |`);
  }
  const both = (f: (d: DatabaseFigures) => string) => `${f(small)} | ${f(big)}`;
  lines.push(`| start to /readyz | ${both((d) => fmt(d.startMs))} | ${(big.startMs / small.startMs).toFixed(2)}× |`);
  lines.push(`| first start of the run (pending migrations included) | ${both((d) => fmt(d.firstStartMs))} | |`);
  lines.push(
    `| RSS after the run (peak) | ${both((d) => `${d.rssMb.toFixed(0)} MB (${d.peakRssMb.toFixed(0)})`)} | ${(big.rssMb / small.rssMb).toFixed(2)}× |`,
  );
  lines.push(`| live.sqlite (+ WAL) | ${both((d) => `${d.liveMb.toFixed(0)} MB (+${d.walMb.toFixed(0)})`)} | ${(big.liveMb / small.liveMb).toFixed(0)}× |`);
  if (small.backupMs !== null && big.backupMs !== null)
    lines.push(
      `| backup (POST /v1/jobs/backup/run) | ${both((d) => `${fmt(d.backupMs!)}, ${d.backupMb!.toFixed(0)} MB`)} | ${(big.backupMs / small.backupMs).toFixed(1)}× |`,
    );
  return lines.join('\n');
}

const smallBuilt = await build(smallScale);
const bigBuilt = await build(scale);
if (values['build-only']) process.exit(0);
const serverRoot = buildServer();
const options = {
  serverRoot,
  samples: Math.round(number('samples', values.samples)),
  budgetSeconds: number('budget', values.budget),
  backup: !values['no-backup'],
  log: (line: string) => process.stdout.write(`${line}\n`),
};
const [small, big] = await measureBoth(options, [
  { label: `small (scale ${smallScale})`, scale: smallScale, dataDir: dirOf(smallScale) },
  { label: `big (scale ${scale})`, scale, dataDir: dirOf(scale) },
]);
const result = table(small, big);
const rows = (b: BuiltDatabase) =>
  `${b.rows.pets?.toLocaleString('en')} pets, ${b.rows.appointments?.toLocaleString('en')} appointments, ${b.rows.vaccinations?.toLocaleString('en')} vaccinations, ` +
  `${b.rows.invoices?.toLocaleString('en')} invoices, ${b.rows.boarding_stays?.toLocaleString('en')} stays`;
process.stdout.write(`\n${new Date().toISOString().slice(0, 10)}, small: ${rows(smallBuilt)}; big: ${rows(bigBuilt)}\n\n${result}\n`);
mkdirSync(path.join(root, 'bench-results'), { recursive: true });
const out = path.join(root, 'bench-results', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify({ small, big, smallBuilt, bigBuilt }, null, 2));
process.stdout.write(`\n(${out})\n`);
