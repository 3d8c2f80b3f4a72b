import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let bundle: Promise<string> | undefined;

/**
 * The operator CLI as one file, bundled once per test process by esbuild (what tsx runs on, from
 * the same sources): through tsx every CLI process transformed and loaded a hundred modules, ~2 s a
 * call and far more on a loaded machine; the bundle starts in ~0.3 s. Dependencies stay external
 * (node_modules). It sits two folders below the repository, as src/cli.ts does, so the paths the
 * code finds from its own location (migrations/, package.json) are the same; migrations are loaded
 * as they are (.ts, by Node's own type stripping).
 */
function cliBundle(): Promise<string> {
  bundle ??= (async () => {
    const { build } = await import('esbuild');
    const dir = path.join(root, '.cache', 'cli-bundle');
    mkdirSync(dir, { recursive: true });
    const outfile = path.join(dir, `cli-${process.pid}.mjs`);
    await build({
      entryPoints: [path.join(root, 'src/cli.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    });
    process.once('exit', () => rmSync(outfile, { force: true }));
    return outfile;
  })();
  return bundle;
}

/** Runs the operator CLI as the operator would, in its own process, with `env` added to this one's (`as`: another user, from root). */
export async function runCli(args: readonly string[], env: Record<string, string>, as: { uid?: number; gid?: number } = {}): Promise<CliResult> {
  const entry = await cliBundle();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', entry, ...args],
      { cwd: root, env: { ...process.env, ...env }, timeout: 90_000, ...as },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
