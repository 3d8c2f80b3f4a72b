import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkerPool, WorkerPoolClosed, workerScript } from '../../src/jobs/worker-pool.js';
import { useTestApp } from '../helpers/test-app.js';

/** The job runner's worker threads: results, parts, errors as the inline code threw them, crashes, and closing. */

const script = workerScript(import.meta.url, 'fixtures/echo.worker');
const pools: WorkerPool[] = [];
const pool = (size?: number) => {
  const p = new WorkerPool(size);
  pools.push(p);
  return p;
};
test.after.always(async () => {
  for (const p of pools) await p.close();
});

test('a task answers its result, its parts in order first, and its worker is gone after', async (a) => {
  const p = pool();
  a.deepEqual(await p.run({ script, input: { do: 'echo', value: { a: [1, 'two'] } } }), { a: [1, 'two'] });
  const parts: number[] = [];
  a.is(await p.run<number, number>({ script, input: { do: 'parts', count: 50 }, onPart: (n) => parts.push(n) }), 50);
  a.deepEqual(
    parts,
    Array.from({ length: 50 }, (_, i) => i),
  );
  a.is(p.alive, 0);
});

test('an error thrown in the worker comes back as the inline code threw it: name, message and code', async (a) => {
  const p = pool();
  const thrown = await a.throwsAsync(p.run({ script, input: { do: 'throw' } }));
  a.is(thrown?.name, 'RangeError');
  a.is(thrown?.message, 'told to throw');
  const missing = path.join(import.meta.dirname, 'no-such-file.txt');
  const inline = await readFile(missing, 'utf8').catch((err: NodeJS.ErrnoException) => err);
  const viaWorker = await a.throwsAsync<NodeJS.ErrnoException>(p.run({ script, input: { do: 'read', file: missing } }));
  a.is(viaWorker?.code, 'ENOENT');
  a.is(viaWorker?.message, (inline as Error).message);
});

test('a worker that dies without answering fails its task with the exit code; the next task runs', async (a) => {
  const p = pool(1);
  const died = await a.throwsAsync(p.run({ script, input: { do: 'exit', code: 7 } }));
  a.is(died?.message, 'the worker thread stopped before answering (exit code 7)');
  a.is(await p.run({ script, input: { do: 'echo', value: 'still working' } }), 'still working');
});

test('closing terminates running workers and refuses waiting and later tasks with WorkerPoolClosed', async (a) => {
  const p = pool(1);
  const running = p.run({ script, input: { do: 'hang' } });
  const waiting = p.run({ script, input: { do: 'echo', value: 1 } });
  // The hanging task's worker is up once it counts as alive.
  while (p.alive === 0) await new Promise((resolve) => setImmediate(resolve));
  await p.close();
  await a.throwsAsync(running, { instanceOf: WorkerPoolClosed });
  await a.throwsAsync(waiting, { instanceOf: WorkerPoolClosed });
  await a.throwsAsync(p.run({ script, input: { do: 'echo', value: 2 } }), { instanceOf: WorkerPoolClosed });
  a.is(p.alive, 0);
});

test('a build without the worker module beside its caller (a single-file bundle) runs the inline fallback instead', async (a) => {
  const p = pool();
  const parts: number[] = [];
  const result = await p.run<string, number>({
    script: workerScript(import.meta.url, 'fixtures/no-such.worker'),
    input: { n: 2 },
    onPart: (n) => parts.push(n),
    inline: async (input: { n: number }, send) => {
      send(input.n);
      return `inline ${input.n}`;
    },
  });
  a.is(result, 'inline 2');
  a.deepEqual(parts, [2]);
});

const t = useTestApp(test, { jobs: false });

test('the job runner closes its pool when it stops', async (a) => {
  await t.app.runner.start();
  const workers = t.app.runner.workers;
  const hanging = workers.run({ script, input: { do: 'hang' } });
  while (workers.alive === 0) await new Promise((resolve) => setImmediate(resolve));
  await t.app.runner.stop(0);
  await a.throwsAsync(hanging, { instanceOf: WorkerPoolClosed });
  a.is(workers.alive, 0);
});
