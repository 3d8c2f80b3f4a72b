import { promises as fs, readdirSync, rmSync, type ReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Environment } from '../../config.js';
import { withoutBrokenPair, type DocumentContentType } from './content-sniffing.js';

/** Extension of the stored file, chosen from the sniffed type (never the client's). */
export const storedExtension: Record<DocumentContentType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

/** Extensions a download name may keep for each type; any other gets the stored one appended. */
const allowedExtensions: Record<DocumentContentType, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe'],
  'image/webp': ['webp'],
  'text/plain': ['txt', 'text', 'log', 'csv', 'tsv'],
  'text/markdown': ['md', 'markdown', 'txt'],
};

export const maxFilenameLength = 200;

/** The extension of a name, lower-case, without the dot ('' when none). */
export const extensionOf = (name: string): string => {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name);
  return match?.[1]?.toLowerCase() ?? '';
};

/** Cuts to `max` UTF-16 units without splitting a character, keeping a short extension. */
function truncateName(name: string, max: number): string {
  if (name.length <= max) return name;
  const ext = extensionOf(name);
  const suffix = ext ? `.${name.slice(-ext.length)}` : '';
  return withoutBrokenPair(name.slice(0, max - suffix.length)).trimEnd() + suffix;
}

/**
 * The client's filename as harmless metadata: its last path segment only, Unicode NFC, without
 * control or bidirectional-formatting characters (a U+202E could disguise "fdp.exe" as "exe.pdf"),
 * without characters Windows refuses, trimmed and length-limited. Null when nothing is left.
 */
export function sanitizeFilename(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let name = raw.normalize('NFC');
  name = name.split(/[\\/]/).pop() ?? '';
  name = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '');
  name = name.replace(/["*:<>?|]/g, '_');
  name = name.replace(/\s+/g, ' ').trim();
  name = name.replace(/^[.\s]+/, ''); // no hidden or relative-looking names
  name = truncateName(name, maxFilenameLength);
  return name === '' ? null : name;
}

/** The name a download is saved under: the client's (sanitized) name, with an extension that matches the content. */
export function downloadName(filename: string | null, fallbackStem: string, type: DocumentContentType): string {
  const name = filename ?? fallbackStem;
  return allowedExtensions[type].includes(extensionOf(name)) ? name : `${name}.${storedExtension[type]}`;
}

// RFC 8187 attr-char is narrower than what encodeURIComponent leaves alone.
const encodeRfc8187 = (value: string): string => encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 §4.3):
 * old clients read the quoted ASCII name, current ones the exact UTF-8 name.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/**
 * Files of one environment live in `<dataDir>/documents/<env>/` (live and sandbox never share a
 * file, and a sandbox reset can empty its own folder). Names are `<doc id>.<ext>`; uploads in
 * progress are hidden temp files in the same folder, so the final rename is atomic.
 */
export class DocumentFiles {
  constructor(private readonly dataDir: string) {}

  directory(env: Environment): string {
    return path.join(this.dataDir, 'documents', env);
  }

  async ensureDirectory(env: Environment): Promise<string> {
    const dir = this.directory(env);
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
    return dir;
  }

  /** Absolute path of a stored file; the key is ours (`<id>.<ext>`), but refuse anything that could leave the folder. */
  pathOf(env: Environment, storageKey: string): string {
    if (!/^[a-z]{2,10}_[a-z0-9_]{1,80}\.[a-z0-9]{1,8}$/.test(storageKey)) throw new Error(`invalid storage key ${storageKey}`);
    return path.join(this.directory(env), storageKey);
  }

  tempPathOf(env: Environment, id: string): string {
    return path.join(this.directory(env), `.upload-${id}.tmp`);
  }

  /** Opens a stored file for streaming, with its size; null when the file is missing. `range` streams those bytes only. */
  async open(env: Environment, storageKey: string, range?: { start: number; end: number }): Promise<{ stream: ReadStream; size: number } | null> {
    const file = this.pathOf(env, storageKey);
    let handle: FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      // One handle for the size and the bytes: they describe the same file.
      return { stream: handle.createReadStream({ autoClose: true, ...range }), size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /**
   * Removes temp files of uploads that never finished (the process stopped mid-upload); run at
   * start or from a housekeeping job. Returns how many were removed.
   */
  async sweepStaleUploads(env: Environment, now: number, maxAgeMs = 24 * 3600 * 1000): Promise<number> {
    const dir = this.directory(env);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names.filter((n) => /^\.upload-.*\.tmp$/.test(n))) {
      const file = path.join(dir, name);
      const stat = await fs.stat(file).catch(() => null);
      if (stat && now - stat.mtimeMs > maxAgeMs) {
        await this.remove(file);
        removed++;
      }
    }
    return removed;
  }

  /**
   * Removes every stored document of an environment except uploads in progress (sandbox reset,
   * after its transaction has deleted the rows). Returns how many files went.
   */
  removeAllStored(env: Environment): number {
    let names: string[];
    try {
      names = readdirSync(this.directory(env));
    } catch {
      return 0;
    }
    const stored = names.filter((n) => !n.startsWith('.upload-'));
    for (const name of stored) this.removeNow(path.join(this.directory(env), name));
    return stored.length;
  }

  /** Removes a file before the answer goes out (after-commit effects are synchronous); never throws. */
  removeNow(file: string): void {
    try {
      rmSync(file, { force: true });
    } catch {
      // a file we could not remove is an orphan on disk, not an error for the caller
    }
  }

  /** Removes a file if present (clean-up never fails a request). */
  async remove(file: string): Promise<void> {
    await fs.rm(file, { force: true }).catch(() => undefined);
  }
}
