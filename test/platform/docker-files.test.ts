import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The compose files and the Dockerfile as a clinic's IT person meets them (issue 25.3), read as
 * text: no Docker here. docker/smoke.sh builds and runs the image for real.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const version = (JSON.parse(read('package.json')) as { version: string }).version;
/** Lines without their comments (compose and Dockerfile comments start a line or follow a space). */
const code = (text: string) =>
  text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .join('\n');
const interpolated = (text: string) => new Set([...code(text).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));

test('the sandbox compose reads no variable of the live appliance: a docker/.env copied from the example changes nothing there', (t) => {
  const settings = new Set(read('src/config.ts').match(/PETCARE_[A-Z_]+/g) ?? []);
  const live = interpolated(read('docker/compose.yml'));
  const sandbox = [...interpolated(read('docker/compose.sandbox.yml'))];
  t.true(sandbox.length >= 4, sandbox.join(' '));
  for (const name of sandbox) {
    t.regex(name, /^PETCARE_SANDBOX_/, `${name}: the sandbox compose's own variables are named PETCARE_SANDBOX_…`);
    t.false(settings.has(name), `${name} is a setting of the appliance (docker/.env of a live one may set it)`);
    t.false(live.has(name), `${name} is read by docker/compose.yml too`);
  }
  // Its admin is the public demo admin unless its own variables say otherwise.
  const sandboxText = read('docker/compose.sandbox.yml');
  t.true(sandboxText.includes('PETCARE_ADMIN_CLIENT_SECRET: ${PETCARE_SANDBOX_DEMO_ADMIN_SECRET:-sk_test_demo_admin_secret}'));
  t.true(sandboxText.includes('SECRET: ${PETCARE_SANDBOX_DEMO_ADMIN_SECRET:-sk_test_demo_admin_secret}'), 'the guard checks the secret the appliance gets');
  t.true(sandboxText.includes('publicSandboxProblem(process.env.BIND, process.env.SECRET)'), "the guard applies the appliance's rule");
});

test('images are tagged and labelled with the package version, never only :latest', (t) => {
  const compose = read('docker/compose.yml');
  t.true(
    code(compose).includes(`image: petcare-platform:\${PETCARE_VERSION:-${version}}`),
    `compose.yml tags petcare-platform:\${PETCARE_VERSION:-${version}}`,
  );
  t.true(
    code(compose).includes(`PETCARE_VERSION: \${PETCARE_VERSION:-${version}}`),
    'compose.yml passes the version to the build (label, and the check that it is the checkout)',
  );
  const sandbox = code(read('docker/compose.sandbox.yml'));
  t.true(sandbox.includes(`image: petcare-platform:${version}`));
  t.true(sandbox.includes(`PETCARE_VERSION: "${version}"`));
  for (const file of ['docker/compose.yml', 'docker/compose.sandbox.yml', 'docker/compose.tls.yml'])
    t.false(/petcare-platform:latest/.test(code(read(file))), file);
  const dockerfile = code(read('docker/Dockerfile'));
  t.regex(dockerfile, /org\.opencontainers\.image\.version="\$\{PETCARE_VERSION\}"/);
  // A compose build with a rollback pin left in docker/.env must not relabel a newer checkout.
  t.regex(dockerfile, /"\$PETCARE_VERSION" != "\$v"/);
});

test("the build compiles native modules against the image's own Node headers, and takes a registry mirror and a CA", (t) => {
  const dockerfile = code(read('docker/Dockerfile'));
  const build = dockerfile.slice(dockerfile.indexOf('AS build'), dockerfile.indexOf('AS runtime'));
  const nodedir = build.indexOf('npm_config_nodedir=/usr/local');
  t.true(nodedir > 0, 'npm_config_nodedir=/usr/local in the build stage');
  t.true(nodedir < build.indexOf('npm ci'), 'set before npm ci');
  t.regex(build, /ARG NPM_CONFIG_REGISTRY\n/);
  t.regex(build, /NODE_EXTRA_CA_CERTS=\/tmp\/build-ca\.pem/);
  const compose = code(read('docker/compose.yml'));
  t.true(compose.includes('NPM_CONFIG_REGISTRY: ${PETCARE_BUILD_NPM_REGISTRY:-}'));
  t.true(compose.includes('BUILD_CA_CERT: ${PETCARE_BUILD_CA_CERT:-}'));
});

test('.dockerignore keeps secrets, certificates and .env files out of the build context', (t) => {
  const patterns = code(read('.dockerignore'))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  for (const pattern of ['docker/secrets', 'docker/certs/*', '**/.env', '**/*.pem', '**/*.key', '.git', 'data', 'node_modules']) {
    t.true(patterns.includes(pattern), pattern);
  }
  // Only the README comes back in from docker/certs/; nothing re-includes a secret.
  t.deepEqual(
    patterns.filter((p) => p.startsWith('!')),
    ['!docker/certs/README.txt'],
  );
});

test('Caddy waits for a healthy appliance; the TLS overlay and the certs README say how to get a certificate', (t) => {
  const tls = code(read('docker/compose.tls.yml'));
  t.regex(tls, /caddy:[\s\S]*depends_on:\s*\n\s+petcare:\s*\n\s+condition: service_healthy/);
  t.regex(code(read('docker/Dockerfile')), /HEALTHCHECK [\s\S]*\/readyz/);
  const certs = read('docker/certs/README.txt');
  t.regex(certs, /FULL chain/);
  t.regex(certs, /Clients must use the host name/);
});
