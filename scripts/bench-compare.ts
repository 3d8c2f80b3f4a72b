/**
 * A/B comparison of two builds of the appliance under the same load, alternating A B A B… so that
 * background load on a shared machine hits both alike. Each root must hold a built dist/ (npm run build).
 * The robust number is the server's CPU time per request (from /proc), not req/s.
 *
 *   npx tsx scripts/bench-compare.ts --base <root> --variant <root> [--kind get|post] [--rounds 3] [--duration 5]
 *                                    [--log-level info] [--variant-log-level warn]
 *
 * The same root twice with --variant-log-level warn measures the cost of the per-request log line.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createFixtures, startGateway } from '../test/bench/bench-servers.js';

interface Sample {
  reqPerSec: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  non2xx: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function once(root: string, kind: 'get' | 'post', duration: number, cpu: number | undefined, logLevel: string): Promise<Sample> {
  const gateway = await startGateway(root, { cpu, logLevel });
  try {
    const fx = await createFixtures(gateway.url);
    let n = 0;
    const options: autocannon.Options =
      kind === 'get'
        ? { url: `${gateway.url}/v1/pets/${fx.petId}`, headers: { authorization: `Bearer ${fx.token}` } }
        : {
            url: gateway.url,
            requests: [
              {
                method: 'POST',
                path: '/v1/pets',
                headers: { authorization: `Bearer ${fx.token}`, 'content-type': 'application/json' },
                body: JSON.stringify({ name: 'Bench pet', breed: 'Beagle', species: 'dog', ownerId: fx.ownerId, locationId: fx.locationId }),
                setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `cmp-${process.pid}-${Date.now()}-${++n}` } }),
              },
            ],
          };
    await autocannon({ ...options, connections: 50, duration: Math.min(2, duration) });
    const before = gateway.cpuSeconds() ?? 0;
    const result = await autocannon({ ...options, connections: 50, duration });
    const after = gateway.cpuSeconds() ?? 0;
    return {
      reqPerSec: result.requests.average,
      p99Ms: result.latency.p99,
      cpuUsPerRequest: ((after - before) * 1e6) / Math.max(1, result.requests.total),
      non2xx: result.non2xx,
    };
  } finally {
    await gateway.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      variant: { type: 'string' },
      kind: { type: 'string', default: 'get' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      'log-level': { type: 'string', default: 'info' },
      'variant-log-level': { type: 'string' },
    },
  });
  if (!values.base || !values.variant || (values.kind !== 'get' && values.kind !== 'post')) {
    process.stderr.write('usage: tsx scripts/bench-compare.ts --base <root> --variant <root> [--kind get|post] [--rounds 3] [--duration 5]\n');
    process.exit(2);
  }
  let cpu: number | undefined;
  if (os.cpus().length >= 2) {
    try {
      execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
      cpu = 1;
    } catch {
      cpu = undefined;
    }
  }
  const runs: Record<'base' | 'variant', Sample[]> = { base: [], variant: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const which of ['base', 'variant'] as const) {
      const logLevel = which === 'variant' ? (values['variant-log-level'] ?? values['log-level']) : values['log-level'];
      const sample = await once(values[which] as string, values.kind, Number(values.duration), cpu, logLevel);
      runs[which].push(sample);
      process.stdout.write(
        `round ${round + 1} ${which.padEnd(7)} ${sample.reqPerSec.toFixed(0).padStart(6)} req/s  p99 ${String(sample.p99Ms).padStart(4)} ms  ` +
          `${sample.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/req  non-2xx ${sample.non2xx}  (load ${os.loadavg()[0]?.toFixed(2)})\n`,
      );
    }
  }
  const summary = (samples: Sample[]) => ({
    reqPerSec: median(samples.map((s) => s.reqPerSec)),
    p99Ms: median(samples.map((s) => s.p99Ms)),
    cpuUsPerRequest: median(samples.map((s) => s.cpuUsPerRequest)),
  });
  const base = summary(runs.base);
  const variant = summary(runs.variant);
  process.stdout.write(
    `\nmedian base:    ${base.reqPerSec.toFixed(0)} req/s, p99 ${base.p99Ms} ms, ${base.cpuUsPerRequest.toFixed(1)} µs CPU/req\n` +
      `median variant: ${variant.reqPerSec.toFixed(0)} req/s, p99 ${variant.p99Ms} ms, ${variant.cpuUsPerRequest.toFixed(1)} µs CPU/req\n` +
      `CPU/request ${(100 * (variant.cpuUsPerRequest / base.cpuUsPerRequest - 1)).toFixed(1)}%, req/s ${(100 * (variant.reqPerSec / base.reqPerSec - 1)).toFixed(1)}%\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
