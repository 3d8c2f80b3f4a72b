import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';

/** Settings drift: every PETCARE_* the service reads is documented, passed by compose, and empty means default. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const settings = [...new Set(read('src/config.ts').match(/PETCARE_[A-Z_]+/g) ?? [])].sort();

test('every setting is in the README table and passed through by docker/compose.yml', (t) => {
  t.true(settings.length >= 25);
  const readme = read('README.md');
  const compose = read('docker/compose.yml');
  for (const name of settings) {
    t.true(readme.includes(`\`${name}\``), `${name} is missing from README "Configuration"`);
    // The data dir is fixed by the image (a volume); everything else is passed through.
    if (name !== 'PETCARE_DATA_DIR') t.true(compose.includes(`${name}: \${${name}:-}`), `${name} is not passed by docker/compose.yml`);
  }
});

test('an empty value (as compose passes for an unset one) means the default', (t) => {
  const empty = Object.fromEntries(settings.map((name) => [name, '']));
  const { dataDir: _a, ...fromEmpty } = loadConfig(empty);
  const { dataDir: _b, ...defaults } = loadConfig({});
  t.deepEqual(fromEmpty, defaults);
});
