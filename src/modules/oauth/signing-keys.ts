import { generateKeyPairSync, createPrivateKey, createPublicKey, createHash, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

interface StoredKey {
  kid: string;
  privateKeyPem: string;
  createdAt: string;
}

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export interface Jwk {
  kty: string;
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

/** How many retired keys stay published so tokens they signed verify until expiry. */
const keysKept = 3;

function makeKey(now: Date): StoredKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  // kid: a thumbprint of the public key, so it is stable and says nothing secret
  const kid = createHash('sha256').update(publicDer).digest('base64url').slice(0, 16);
  return { kid, privateKeyPem, createdAt: now.toISOString() };
}

const keysFile = (dataDir: string): string => path.join(dataDir, 'keys', 'signing-keys.json');

/**
 * RS256 signing keys kept in `<dataDir>/keys/signing-keys.json` (mode 0600). The newest key signs;
 * every kept key verifies and is published at /.well-known/jwks.json. Rotation adds a key.
 */
export class SigningKeys {
  private keys: SigningKey[] = [];
  private readonly byKid = new Map<string, SigningKey>();
  private readonly file: string;
  /** The file as last loaded (inode, size, mtime): the file is replaced by rename, so any rewrite changes it. */
  private stamp = '';

  /** True once a first start (or a rotation) has written the keys of this data dir. */
  static existIn(dataDir: string): boolean {
    return existsSync(keysFile(dataDir));
  }

  constructor(dataDir: string) {
    mkdirSync(path.dirname(keysFile(dataDir)), { recursive: true, mode: 0o700 });
    this.file = keysFile(dataDir);
    if (!existsSync(this.file)) this.write([makeKey(new Date())]);
    this.load();
  }

  private read(): StoredKey[] {
    return JSON.parse(readFileSync(this.file, 'utf8')) as StoredKey[];
  }

  private write(stored: StoredKey[]): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(stored, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private fileStamp(): string {
    const stat = statSync(this.file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  }

  private load(): void {
    this.stamp = this.fileStamp();
    this.keys = this.read().map((k) => {
      const privateKey = createPrivateKey(k.privateKeyPem);
      return { kid: k.kid, privateKey, publicKey: createPublicKey(privateKey) };
    });
    this.byKid.clear();
    for (const k of this.keys) this.byKid.set(k.kid, k);
  }

  /** The key that signs new tokens (the newest). */
  current(): SigningKey {
    const key = this.keys[this.keys.length - 1];
    if (!key) throw new Error('no signing key loaded');
    return key;
  }

  publicKey(kid: string): KeyObject | undefined {
    return this.byKid.get(kid)?.publicKey;
  }

  jwks(): { keys: Jwk[] } {
    return {
      keys: this.keys.map((k) => {
        const jwk = k.publicKey.export({ format: 'jwk' }) as { kty: string; n: string; e: string };
        return { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: k.kid, use: 'sig', alg: 'RS256' };
      }),
    };
  }

  /**
   * Loads the keys again when another process rewrote the file (the CLI's `keys rotate`, which works
   * on the data dir while the server runs); true when it did. A file that cannot be read or parsed
   * keeps the keys in use.
   */
  reloadIfChanged(): boolean {
    try {
      if (this.fileStamp() === this.stamp) return false;
      this.load();
      return true;
    } catch {
      return false;
    }
  }

  /** Checks the file every `intervalMs` (default 1 s), so a CLI rotation signs within seconds; returns the stop. */
  watch(intervalMs = 1000): () => void {
    const timer = setInterval(() => this.reloadIfChanged(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Adds a new signing key; the oldest beyond `keysKept` is dropped. Returns the new kid. */
  rotate(): string {
    const stored = [...this.read(), makeKey(new Date())].slice(-keysKept);
    this.write(stored);
    this.load();
    return this.current().kid;
  }
}
