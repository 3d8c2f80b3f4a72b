import { Header, Pax } from 'tar';
import { ArchiveError } from './archive-error.js';
import type { ByteReader } from './byte-reader.js';

/**
 * The tar layer of an archive, written and read as a stream of 512-byte blocks so a backup never
 * needs a staging copy of the data dir and `backup verify` needs no disk at all. Writing: plain
 * files (mode 0600, owner 0, one mtime), a pax header where a path does not fit ustar. Reading:
 * plain files and folders only; links, devices and anything else are refused.
 */

const block = 512;
const padding = (size: number): number => (block - (size % block)) % block;

export interface TarFileToWrite {
  path: string;
  size: number;
  /** Exactly `size` bytes. */
  body: AsyncIterable<Buffer> | Iterable<Buffer>;
}

function headerOf(path: string, size: number, mtime: Date): Buffer {
  const header = new Header({ path, mode: 0o600, uid: 0, gid: 0, size, mtime, type: 'File', uname: '', gname: '' });
  const encoded = Buffer.alloc(block);
  const needPax = header.encode(encoded, 0);
  return needPax ? Buffer.concat([new Pax({ path, size, mtime }).encode(), encoded]) : encoded;
}

/** The tar stream of `files`, ended by the two zero blocks. */
export async function* tarBlocks(files: AsyncIterable<TarFileToWrite>, mtime: Date): AsyncGenerator<Buffer> {
  for await (const file of files) {
    yield headerOf(file.path, file.size, mtime);
    let written = 0;
    for await (const chunk of file.body) {
      written += chunk.length;
      if (written > file.size) throw new ArchiveError(`${file.path} grew while it was archived`);
      yield chunk;
    }
    if (written !== file.size) throw new ArchiveError(`${file.path} shrank while it was archived`);
    if (padding(file.size) > 0) yield Buffer.alloc(padding(file.size));
  }
  yield Buffer.alloc(2 * block);
}

export interface TarEntry {
  path: string;
  size: number;
}

/**
 * Reads a tar stream entry by entry: `onFile` gets each plain file's path and its bytes (it must
 * read them, or they are skipped); folders are passed over. Ends at the end-of-archive block.
 */
export async function readTar(reader: ByteReader, onFile: (entry: TarEntry, body: AsyncIterable<Buffer>) => Promise<void>): Promise<void> {
  let extended: Pax | undefined;
  for (;;) {
    const raw = await reader.exactly(block);
    if (raw.length < block) throw new ArchiveError('the archive is truncated (it ends before its end-of-archive block)');
    if (raw.every((byte) => byte === 0)) return;
    const header = new Header(raw, 0, extended);
    extended = undefined;
    if (!header.cksumValid) throw new ArchiveError(`the archive is damaged (a tar header at byte ${reader.offset - block} fails its checksum)`);
    const size = header.size ?? 0;
    const path = header.path ?? '';
    if (header.type === 'ExtendedHeader') {
      if (size > 64 * 1024) throw new ArchiveError('the archive is damaged (an oversized pax header)');
      const body = await reader.exactly(size + padding(size));
      if (body.length < size + padding(size)) throw new ArchiveError('the archive is truncated (inside a pax header)');
      extended = Pax.parse(body.subarray(0, size).toString('utf8'));
      continue;
    }
    if (header.type === 'Directory') {
      await skip(reader, size + padding(size));
      continue;
    }
    if (header.type !== 'File' && header.type !== 'OldFile')
      throw new ArchiveError(`the archive holds an entry a backup never writes: ${path} (${header.type})`);
    let left = size;
    const body = async function* (): AsyncGenerator<Buffer> {
      while (left > 0) {
        const chunk = await reader.upTo(left);
        if (chunk.length === 0) throw new ArchiveError(`the archive is truncated (inside ${path})`);
        left -= chunk.length;
        yield chunk;
      }
    };
    await onFile({ path, size }, body());
    await skip(reader, left + padding(size));
  }
}

async function skip(reader: ByteReader, count: number): Promise<void> {
  let left = count;
  while (left > 0) {
    const chunk = await reader.upTo(left);
    if (chunk.length === 0) throw new ArchiveError('the archive is truncated');
    left -= chunk.length;
  }
}
