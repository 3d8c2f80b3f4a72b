import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** One built file of the console, served from memory under /console/assets/<name>. */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

/** The built console: its page (names the hashed assets) and the assets by file name. */
export interface ConsoleBundle {
  page: Buffer;
  assets: Map<string, ConsoleAsset>;
}

const contentTypes: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export const contentTypeOf = (name: string): string | undefined => contentTypes[path.extname(name)];

/** The placeholders of console/index.html that the build replaces with hashed asset paths. */
const placeholders = { js: '/console/assets/console.js', css: '/console/assets/console.css' } as const;

/**
 * Bundles console/src/main.ts (plain TypeScript, uPlot and its CSS from node_modules, the page's CSS)
 * with esbuild into one script and one stylesheet named by content hash, and writes their names into
 * console/index.html. In memory: `npm run build` writes the result to dist/console, `npm run dev`
 * serves it straight away. esbuild is a dev dependency, imported only here.
 */
export async function buildConsole(root: string): Promise<ConsoleBundle> {
  const { build } = await import('esbuild');
  const outdir = path.join(root, 'dist', 'console', 'assets');
  const result = await build({
    entryPoints: { console: path.join(root, 'console', 'src', 'main.ts') },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari16'],
    minify: true,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    outdir,
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, ConsoleAsset>();
  let js: string | undefined;
  let css: string | undefined;
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const contentType = contentTypeOf(name);
    if (!contentType) continue;
    assets.set(name, { body: Buffer.from(file.contents), contentType });
    if (name.endsWith('.js')) js = name;
    if (name.endsWith('.css')) css = name;
  }
  if (!js || !css) throw new Error('console build produced no script or no stylesheet');
  const template = await readFile(path.join(root, 'console', 'index.html'), 'utf8');
  for (const token of Object.values(placeholders)) {
    if (!template.includes(token)) throw new Error(`console/index.html lacks ${token}`);
  }
  const page = template.replace(placeholders.js, `/console/assets/${js}`).replace(placeholders.css, `/console/assets/${css}`);
  return { page: Buffer.from(page), assets };
}
