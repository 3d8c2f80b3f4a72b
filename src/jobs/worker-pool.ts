import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, workerData, type ResourceLimits } from 'node:worker_threads';

/**
 * CPU-heavy work of jobs (text extraction and chunking of 25 MB uploads, …) runs on worker threads,
 * so the API's event loop never waits for it. Each task gets a fresh worker that ends with it: a
 * crash, a heap cap reached or a leaked handle stays with that task, and an idle pool holds no
 * thread. At most `size` run at once (each may take a heap's worth of memory); the others wait.
 * The job runner owns one pool and closes it when it stops: running workers are terminated and
 * their tasks rejected with WorkerPoolClosed, so nothing keeps the process alive.
 *
 * A worker script is a module (TypeScript under tsx, which its thread inherits; JavaScript once
 * compiled) that calls `serveWorkerTask` once; `workerScript` names it beside its caller.
 */

/** A task's messages: parts (streamed, so a large result never crosses in one structured clone) then its outcome. */
type WorkerMessage =
  | { type: 'part'; value: unknown }
  | { type: 'done'; value: unknown }
  | { type: 'error'; message: string; name: string; code: string | undefined };

/** Why a task did not finish: the pool was closed (the process is stopping) before its worker was done. */
export class WorkerPoolClosed extends Error {
  constructor() {
    super('the worker pool was closed before the task finished');
    this.name = 'WorkerPoolClosed';
  }
}

export interface WorkerTask<Part> {
  /** The worker module (see `workerScript`). */
  script: URL;
  /** Given to the worker's handler (structured clone). */
  input: unknown;
  /** Called, in order, with each part the worker sends before its result. */
  onPart?: (part: Part) => void;
  resourceLimits?: ResourceLimits;
  /**
   * The same work in this thread, for a build without the worker module beside its caller (a
   * single-file bundle, as the CLI's tests run): better than not doing it at all.
   */
  inline?: (input: never, send: (part: Part) => void) => Promise<unknown>;
}

/**
 * The URL of a worker module `name` (without extension) beside the module at `importMetaUrl`: the
 * `.ts` file under tsx, the compiled `.js` file otherwise.
 */
export function workerScript(importMetaUrl: string, name: string): URL {
  return new URL(`./${name}${importMetaUrl.endsWith('.ts') ? '.ts' : '.js'}`, importMetaUrl);
}

/** False in a build without the module beside its caller (a single-file bundle): the work then runs inline. */
export const workerScriptPresent = (script: URL): boolean => script.protocol === 'file:' && existsSync(fileURLToPath(script));

export class WorkerPool {
  private running = 0;
  private readonly waiting: Array<{ start(): void; cancel(): void }> = [];
  private readonly workers = new Set<Worker>();
  private closed = false;

  constructor(private readonly size = 2) {}

  /** Runs one task on a worker thread of its own; rejects with the worker's error (its name, message and code kept). */
  async run<Result, Part = never>(task: WorkerTask<Part>): Promise<Result> {
    if (this.closed) throw new WorkerPoolClosed();
    if (this.running >= this.size) {
      await new Promise<void>((resolve, reject) => this.waiting.push({ start: resolve, cancel: () => reject(new WorkerPoolClosed()) }));
    }
    this.running++;
    try {
      if (task.inline && !workerScriptPresent(task.script)) return (await task.inline(task.input as never, (part) => task.onPart?.(part))) as Result;
      return await this.spawn<Result, Part>(task);
    } finally {
      this.running--;
      this.waiting.shift()?.start();
    }
  }

  /** Refuses new tasks, rejects the waiting ones and terminates the running workers (their tasks reject with WorkerPoolClosed). */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.cancel();
    await Promise.all([...this.workers].map((worker) => worker.terminate()));
  }

  /** Workers alive now (for tests: 0 once every task has settled or the pool is closed). */
  get alive(): number {
    return this.workers.size;
  }

  private spawn<Result, Part>(task: WorkerTask<Part>): Promise<Result> {
    if (this.closed) return Promise.reject(new WorkerPoolClosed());
    const worker = new Worker(task.script, { workerData: task.input, resourceLimits: task.resourceLimits, stdout: true, stderr: true });
    // Nobody reads what a worker prints; left unread it would fill the pipe and stall the worker.
    worker.stdout.resume();
    worker.stderr.resume();
    this.workers.add(worker);
    return new Promise<Result>((resolve, reject) => {
      let settled = false;
      // The task settles once its thread has ended: a worker that answered is terminated too (that
      // also frees one that kept a handle open), so no task leaves a thread behind.
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        void worker.terminate().finally(() => {
          this.workers.delete(worker);
          outcome();
        });
      };
      worker.on('message', (message: WorkerMessage) => {
        if (settled) return;
        if (message.type === 'part') {
          try {
            task.onPart?.(message.value as Part);
          } catch (err) {
            settle(() => reject(err));
          }
        } else if (message.type === 'done') {
          settle(() => resolve(message.value as Result));
        } else {
          settle(() => reject(rebuiltError(message)));
        }
      });
      worker.once('error', (err) => settle(() => reject(err)));
      worker.once('exit', (code) => {
        settle(() => reject(this.closed ? new WorkerPoolClosed() : new Error(`the worker thread stopped before answering (exit code ${code})`)));
      });
    });
  }
}

/** The worker's error as the inline code would have thrown it: same name, message and (system) code. */
function rebuiltError(message: Extract<WorkerMessage, { type: 'error' }>): Error {
  const err = new Error(message.message) as NodeJS.ErrnoException;
  err.name = message.name;
  if (message.code !== undefined) err.code = message.code;
  return err;
}

/**
 * The worker side: runs `handler` on the task's input and posts its result; `send` streams parts
 * first. A thrown error goes back with its name, message and code.
 */
export function serveWorkerTask<Input, Result, Part = never>(handler: (input: Input, send: (part: Part) => void) => Promise<Result> | Result): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorkerTask runs in a worker thread');
  const post = (message: WorkerMessage) => port.postMessage(message);
  void (async () => {
    try {
      const value = await handler(workerData as Input, (part) => post({ type: 'part', value: part }));
      post({ type: 'done', value });
    } catch (err) {
      const e = (err instanceof Error ? err : new Error(String(err))) as NodeJS.ErrnoException;
      post({ type: 'error', message: e.message, name: e.name, code: typeof e.code === 'string' ? e.code : undefined });
    }
  })();
}
