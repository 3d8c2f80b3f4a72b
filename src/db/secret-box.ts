import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const prefix = 'sealed:v1:';
const ivBytes = 12;
const tagBytes = 16;

/** Where the data key lives: beside the signing keys, so a backup carries both and a database copy alone carries neither. */
export const dataKeyFile = (dataDir: string): string => path.join(dataDir, 'keys', 'data-key');

/**
 * Secrets the appliance must read back in clear (webhook signing secrets, calendar tokens) are
 * stored sealed with AES-256-GCM under a key in `keys/`, so a copied database file alone cannot
 * forge our webhook signatures or open calendar links. A value without the prefix is a clear-text
 * value from an older release: `open` passes it through until a housekeeping pass seals it.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The data dir's key, created (0600) on first use. */
  static forDataDir(dataDir: string): SecretBox {
    const file = dataKeyFile(dataDir);
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      try {
        const fd = openSync(file, 'wx', 0o600);
        try {
          writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
        } finally {
          closeSync(fd);
        }
      } catch (err) {
        // Another process (the CLI, a second start) created it first: use theirs.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} is not a 32-byte key`);
    return new SecretBox(key);
  }

  /** A box with a key of its own, for tools that build the app without a data dir (the OpenAPI writer). */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(32));
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(prefix);
  }

  seal(plain: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return prefix + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The clear value; throws when the value was sealed under another key or altered. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(prefix.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, ivBytes));
    decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(raw.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
  }
}
