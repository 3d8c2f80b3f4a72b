/**
 * Writing an archive's bytes: every file read (and hashed unless hashed already), tarred, gzipped
 * and, with a key, encrypted into the partial archive, ended by the manifest. Runs on the archive
 * writer's worker thread (archive-writer.worker.ts).
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ArchiveError } from './archive-error.js';
import { encryptFrames, parseBackupKey } from './archive-encryption.js';
import { tarBlocks, type TarFileToWrite } from './archive-tar.js';
import type { Manifest, ManifestFile } from './archive-manifest.js';

const manifestName = 'manifest.json';

/** What the archive writer is given: every file to archive, in order, and the manifest's fields but its files. */
export interface ArchiveWriteInput {
  /** [path in the archive, file to read it from] */
  sources: Array<[string, string]>;
  /** Files hashed already (the database copies): their bytes are not hashed again. */
  hashed: Array<[string, ManifestFile]>;
  header: Omit<Manifest, 'files'>;
  /** The tar entries' mtime (epoch ms). */
  mtime: number;
  /** PETCARE_BACKUP_KEY(_FILE)'s text: the archive is encrypted with it. */
  key: string | null;
  /** Created (flag wx, mode 0600); the caller renames it when complete. */
  partial: string;
}

/** `size` bytes of an open file, hashed as they are read (unless hashed already). */
async function* readExactly(handle: FileHandle, size: number, hash: Hash | null): AsyncGenerator<Buffer> {
  let position = 0;
  while (position < size) {
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, size - position));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) throw new ArchiveError('a file shrank while it was archived');
    const data = chunk.subarray(0, bytesRead);
    hash?.update(data);
    position += bytesRead;
    yield data;
  }
}

/** Reads, tars, gzips and (with a key) encrypts every file into the partial archive, the manifest last; returns the manifest. */
export async function writeArchive(input: ArchiveWriteInput): Promise<Manifest> {
  const key = parseBackupKey(input.key ?? undefined);
  const hashed = new Map(input.hashed);
  const files: ManifestFile[] = [];
  let manifest: Manifest | undefined;
  const entries = async function* (): AsyncGenerator<TarFileToWrite> {
    for (const [relative, source] of input.sources) {
      let handle: FileHandle;
      try {
        handle = await fs.open(source, 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted since it was listed (a document removed meanwhile)
        throw err;
      }
      try {
        const { size } = await handle.stat();
        const known = hashed.get(relative);
        const hash = known ? null : createHash('sha256');
        const body = async function* (): AsyncGenerator<Buffer> {
          yield* readExactly(handle, size, hash);
          files.push(known ?? { path: relative, size, sha256: hash!.digest('hex') });
        };
        yield { path: relative, size, body: body() };
      } finally {
        await handle.close();
      }
    }
    const { header } = input;
    // The fields in the order archives have always listed them.
    manifest = {
      format: header.format,
      createdAt: header.createdAt,
      platformVersion: header.platformVersion,
      schemaVersion: header.schemaVersion,
      environments: header.environments,
      files,
      ...(header.databases ? { databases: header.databases } : {}),
    };
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    yield { path: manifestName, size: text.length, body: [text] };
  };
  const encrypt = key ? (source: AsyncIterable<Buffer>) => encryptFrames(source, key) : (source: AsyncIterable<Buffer>) => source;
  await pipeline(
    Readable.from(tarBlocks(entries(), new Date(input.mtime)), { objectMode: false }),
    createGzip(),
    encrypt,
    createWriteStream(input.partial, { flags: 'wx', mode: 0o600, flush: true }),
  );
  return manifest!;
}
