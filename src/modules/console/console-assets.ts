import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole, contentTypeOf, type ConsoleAsset, type ConsoleBundle } from './console-build.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Where the console comes from. Compiled (`npm start`, dist/src/modules/console): the files
 * `npm run build` wrote to dist/console. From source (`npm run dev`, tests: tsx runs the .ts files):
 * built in memory by esbuild on the first request, so a dev server always shows the current source.
 */
export const consoleSource = (): { kind: 'source'; root: string } | { kind: 'dist'; dir: string } =>
  import.meta.url.endsWith('.ts') ? { kind: 'source', root: path.resolve(here, '../../..') } : { kind: 'dist', dir: path.resolve(here, '../../../console') };

/** Reads a console written by scripts/build-console.ts; undefined when none was built. */
export async function readBuiltConsole(dir: string): Promise<ConsoleBundle | undefined> {
  let page: Buffer;
  try {
    page = await readFile(path.join(dir, 'index.html'));
  } catch {
    return undefined;
  }
  const assets = new Map<string, ConsoleAsset>();
  for (const name of await readdir(path.join(dir, 'assets'))) {
    const contentType = contentTypeOf(name);
    if (contentType) assets.set(name, { body: await readFile(path.join(dir, 'assets', name)), contentType });
  }
  return { page, assets };
}

/** Loads the console once per process (a failed load is retried on the next request). */
export function consoleLoader(): () => Promise<ConsoleBundle | undefined> {
  let loading: Promise<ConsoleBundle | undefined> | undefined;
  return () => {
    if (!loading) {
      const source = consoleSource();
      loading = source.kind === 'source' ? buildConsole(source.root) : readBuiltConsole(source.dir);
      loading.then(
        (bundle) => {
          if (!bundle) loading = undefined;
        },
        () => {
          loading = undefined;
        },
      );
    }
    return loading;
  };
}
