/**
 * `npm run build` step: typechecks the console's browser code (console/tsconfig.json, DOM types)
 * and writes the bundled console to dist/console (index.html + assets/ with hashed names), which
 * `npm start` serves at /console.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from '../src/modules/console/console-build.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'console', 'tsconfig.json')], { stdio: 'inherit' });

const bundle = await buildConsole(root);
const out = path.join(root, 'dist', 'console');
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });
writeFileSync(path.join(out, 'index.html'), bundle.page);
for (const [name, asset] of bundle.assets) writeFileSync(path.join(out, 'assets', name), asset.body);
console.log(`console built: dist/console (${[...bundle.assets.keys()].join(', ')})`);
