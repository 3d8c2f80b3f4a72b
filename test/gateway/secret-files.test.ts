import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';

/** Secrets from files (compose `secrets:`), so they never show in `docker inspect`. */
const dir = mkdtempSync(path.join(tmpdir(), 'petcare-secrets-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

test('NAME_FILE gives NAME the file content without its trailing newline', (t) => {
  const secret = path.join(dir, 'admin');
  const smtp = path.join(dir, 'smtp');
  writeFileSync(secret, 'sk_live_from-a-file-9f2c4e6a8b0d1f3e5a7c9b1d3f\n');
  writeFileSync(smtp, 'smtp://user:pass@mail.clinic.lan:587\r\n');
  const config = loadConfig({ PETCARE_ADMIN_CLIENT_SECRET_FILE: secret, PETCARE_SMTP_URL_FILE: smtp });
  t.is(config.adminClientSecret, 'sk_live_from-a-file-9f2c4e6a8b0d1f3e5a7c9b1d3f');
  t.is(config.smtpUrl, 'smtp://user:pass@mail.clinic.lan:587');
});

test('both forms, or an unreadable file, stop the start with a sentence naming the variable', (t) => {
  const secret = path.join(dir, 'both');
  writeFileSync(secret, 'x');
  t.throws(() => loadConfig({ PETCARE_ADMIN_CLIENT_SECRET: 'y', PETCARE_ADMIN_CLIENT_SECRET_FILE: secret }), {
    message: 'set PETCARE_ADMIN_CLIENT_SECRET or PETCARE_ADMIN_CLIENT_SECRET_FILE, not both',
  });
  t.throws(() => loadConfig({ PETCARE_SMTP_URL_FILE: path.join(dir, 'missing') }), { message: /PETCARE_SMTP_URL_FILE: cannot read .*missing \(ENOENT\)/ });
});
