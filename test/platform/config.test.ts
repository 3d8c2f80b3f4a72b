import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminSecretProblem, ConfigError, loadConfig, publicSandboxProblem } from '../../src/config.js';
import { childProcesses } from '../helpers/child-processes.js';

/**
 * What the operator's configuration may not be (README "Configuration"): admin secrets of 32+
 * characters after the sk_live_/sk_test_ prefix with no placeholder text, secret files the
 * appliance's user can read. A refusal is one line and exit 78, never a stack trace.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-config-'));
const track = childProcesses(test);
// Traversable, so a process of another uid can reach (and stat) the files in it.
chmodSync(scratch, 0o755);
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

const random = 'sk_live_9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c'; // 32 characters after the prefix
/** The one-line message of the ConfigError `fn` throws. */
const refusal = (t: ExecutionContext, fn: () => unknown) => t.throws(fn, { instanceOf: ConfigError })?.message ?? '';

/** The variables config/petcare.env.example sets (its uncommented lines), as compose reads docker/.env. */
function exampleEnv(): Record<string, string> {
  const lines = readFileSync(path.join(root, 'config/petcare.env.example'), 'utf8').split('\n');
  return Object.fromEntries(
    lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

test("the example file's placeholder admin secret is refused in one sentence that does not repeat it", (t) => {
  const env = exampleEnv();
  t.regex(env.PETCARE_ADMIN_CLIENT_SECRET ?? '', /replace-with/, 'the example still carries its placeholder');
  const message = refusal(t, () => loadConfig(env));
  t.regex(message, /^PETCARE_ADMIN_CLIENT_SECRET is a placeholder from an example, not a secret: generate one, e\.g\. sk_live_\$\(openssl rand -hex 32\)$/);
  t.false(message.includes(env.PETCARE_ADMIN_CLIENT_SECRET!));
  // With a real secret in its place the example starts.
  t.is(loadConfig({ ...env, PETCARE_ADMIN_CLIENT_SECRET: random }).adminClientSecret, random);
});

test('an admin secret needs 32 characters after its sk_live_/sk_test_ prefix, the whole secret without one', (t) => {
  t.is(adminSecretProblem(random), null);
  t.is(adminSecretProblem('sk_test_9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c'), null);
  t.is(adminSecretProblem(random.slice(0, -1)), 'has 31 characters after its prefix; at least 32 are needed');
  t.is(adminSecretProblem('9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c'), null);
  t.is(adminSecretProblem('sk_prod_9f2c4e6a8b0d1f3e5a7'), 'has 27 characters; at least 32 are needed');
  // Both the live admin's and the sandbox admin's, from the environment or from a file.
  t.regex(
    refusal(t, () => loadConfig({ PETCARE_ADMIN_CLIENT_SECRET: 'sk_live_testadminsecret' })),
    /^PETCARE_ADMIN_CLIENT_SECRET has 15 characters after its prefix; at least 32 are needed: /,
  );
  t.regex(
    refusal(t, () => loadConfig({ PETCARE_ADMIN_CLIENT_SECRET: random, PETCARE_SANDBOX_ADMIN_CLIENT_SECRET: 'sk_test_short' })),
    /^PETCARE_SANDBOX_ADMIN_CLIENT_SECRET has 5 characters after its prefix; at least 32 are needed: generate one, e\.g\. sk_test_/,
  );
  const file = path.join(scratch, 'short-secret');
  writeFileSync(file, 'sk_live_short\n');
  t.regex(
    refusal(t, () => loadConfig({ PETCARE_ADMIN_CLIENT_SECRET_FILE: file })),
    /^PETCARE_ADMIN_CLIENT_SECRET \(from PETCARE_ADMIN_CLIENT_SECRET_FILE\) has 5 characters/,
  );
});

test('placeholder text is refused however it is spelled, and however long the secret is', (t) => {
  for (const secret of [
    'sk_live_replace-with-a-long-random-secret-of-your-own',
    'sk_live_REPLACE_WITH_SOMETHING_0123456789abcdef0123',
    'sk_live_changeme0123456789abcdef0123456789abcdef',
    'sk_live_Change-Me-0123456789abcdef0123456789abcdef',
    'sk_live_example-0123456789abcdef0123456789abcdef',
    'sk_live_<long random>0123456789abcdef0123456789abcdef',
    'sk_live_…0123456789abcdef0123456789abcdef',
    'sk_test_another-long-random-secret-0123456789abcdef',
    'sk_live_placeholder0123456789abcdef0123456789abcdef',
  ]) {
    t.is(adminSecretProblem(secret), 'is a placeholder from an example, not a secret', secret);
  }
});

test("the test harness's fixed secrets are overrides, not the operator's environment: they are not checked", (t) => {
  const config = loadConfig({}, { adminClientSecret: 'sk_live_testadminsecret', sandboxAdminClientSecret: 'sk_test_testadminsecret' });
  t.is(config.adminClientSecret, 'sk_live_testadminsecret');
});

test('the sandbox-only appliance takes the public demo secret; its compose guard refuses it beyond loopback', (t) => {
  const demo = 'sk_test_demo_admin_secret';
  t.is(loadConfig({ PETCARE_SANDBOX_ONLY: 'true', PETCARE_ADMIN_CLIENT_ID: 'pk_test_demo_admin', PETCARE_ADMIN_CLIENT_SECRET: demo }).adminClientSecret, demo);
  for (const bind of ['127.0.0.1', 'localhost', '::1', '[::1]']) t.is(publicSandboxProblem(bind, demo), null, bind);
  t.is(
    publicSandboxProblem('0.0.0.0', demo),
    'refusing to publish the sandbox on 0.0.0.0: its admin secret has 17 characters after its prefix; at least 32 are needed; set your own (sk_test_…) first',
  );
  t.regex(publicSandboxProblem('192.0.2.10', 'sk_test_replace-with-a-long-random-secret-0123456789') ?? '', /is a placeholder/);
  t.is(publicSandboxProblem('0.0.0.0', 'sk_test_9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c'), null);
});

test('an empty secret file is refused, not taken as "unset" (which would generate an admin)', (t) => {
  const file = path.join(scratch, 'empty');
  writeFileSync(file, '\n');
  t.is(
    refusal(t, () => loadConfig({ PETCARE_ADMIN_CLIENT_SECRET_FILE: file })),
    `PETCARE_ADMIN_CLIENT_SECRET_FILE: ${file} is empty`,
  );
  t.is(
    refusal(t, () => loadConfig({ PETCARE_SMTP_URL_FILE: scratch })),
    `PETCARE_SMTP_URL_FILE: cannot read ${scratch} (EISDIR): a folder, not a file`,
  );
});

/** The server as the image starts it (src/main.ts), optionally as another uid; resolves with its exit code and output. */
function runServer(env: Record<string, string>, uid?: number): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, ['--import=tsx', path.join(root, 'src/main.ts')], {
        cwd: root,
        env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', PETCARE_DATA_DIR: path.join(scratch, `data-${Math.random()}`), ...env },
        ...(uid === undefined ? {} : { uid, gid: uid }),
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a root-owned 0600 secret file stops the server with one line naming the file and the uid that must read it, exit 78', async (t) => {
  const file = path.join(scratch, 'admin_client_secret');
  writeFileSync(file, `${random}\n`, { mode: 0o600 });
  // As in the image: the file (a compose secret) is root's, the server runs as uid 1000. Not root,
  // the test makes its own file unreadable to itself instead.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(file, 0, 0);
  else chmodSync(file, 0o000);
  const uid = asRoot ? 1000 : process.getuid!();
  const { code, stderr, stdout } = await runServer({ PETCARE_ADMIN_CLIENT_SECRET_FILE: file }, asRoot ? 1000 : undefined);
  t.is(code, 78, stderr);
  t.is(stdout, '');
  t.is(stderr.split('\n').filter(Boolean).length, 1, stderr);
  const owner = asRoot ? 'it is owned by uid 0 with mode 0600' : `it is owned by uid ${uid} with mode 0000`;
  t.is(
    stderr.trim(),
    `petcare: PETCARE_ADMIN_CLIENT_SECRET_FILE: cannot read ${file} (EACCES): it must be readable by uid ${uid}, the user the appliance runs as; ${owner} (on the host: chown ${uid} the file it is mounted from, keep mode 0600)`,
  );
});

test("the server refuses the example's placeholder secret in one line, exit 78, and creates no data", async (t) => {
  const dataDir = path.join(scratch, 'placeholder-data');
  const { code, stderr } = await runServer({ ...exampleEnv(), PETCARE_DATA_DIR: dataDir });
  t.is(code, 78, stderr);
  t.regex(
    stderr,
    /^petcare: PETCARE_ADMIN_CLIENT_SECRET is a placeholder from an example, not a secret: generate one, e\.g\. sk_live_\$\(openssl rand -hex 32\)\n$/,
  );
  t.throws(() => readFileSync(path.join(dataDir, 'live.sqlite')), { code: 'ENOENT' });
});

test('a PETCARE_BACKUP_KEY that cannot encrypt is refused at start, in one line that does not repeat it', (t) => {
  const key = 'correct horse battery staple';
  const error = t.throws(() => loadConfig({ PETCARE_BACKUP_KEY: key }), { instanceOf: ConfigError });
  t.regex(error!.message, /^PETCARE_BACKUP_KEY must be 32 random bytes written as base64 or hex/);
  t.false(error!.message.includes(key));
  t.is(loadConfig({ PETCARE_BACKUP_KEY: 'a'.repeat(64) }).backupKey, 'a'.repeat(64));
  t.is(loadConfig({}).backupKey, undefined);
});
