import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { decodeBackupKey } from '../../config.js';
import { ArchiveError } from './archive-error.js';
import type { ByteReader } from './byte-reader.js';

/**
 * Encrypted archives: an archive holds the RS256 signing key and the data key, so whoever reads
 * one can mint admin tokens. With PETCARE_BACKUP_KEY(_FILE) set, the gzip stream is sealed in
 * AES-256-GCM frames as it is written:
 *
 *   header   "PCBKENC1" · key id (8 bytes) · salt (16 bytes)
 *   frames   u32 (bit 31: final, bits 0-30: length ≤ 64 KiB) · ciphertext · 16-byte tag
 *
 * Each archive gets its own key, HKDF-SHA256(backup key, salt); frame n uses the nonce
 * 0000 · u64(n), and authenticates the header, n and its final flag. So a frame cannot be
 * changed, moved, dropped or replayed from another archive, and an archive cut short (no final
 * frame) or with bytes after its final frame is refused. The key id (an HMAC of the key, which
 * tells nothing about it) lets a reader say "wrong key" rather than "damaged".
 *
 * The backup key is 32 random bytes given as base64 or hex (`openssl rand -base64 32`); no
 * passphrases, so there is no KDF cost to tune and no weak key to guess.
 */

const magic = Buffer.from('PCBKENC1', 'ascii');
export const encryptedHeaderSize = magic.length + 8 + 16;
const frameSize = 64 * 1024;
const finalBit = 0x8000_0000;
const tagSize = 16;

/** Whether an archive's first bytes are an encrypted archive's header. */
export const isEncryptedArchive = (head: Buffer): boolean => head.length >= magic.length && head.subarray(0, magic.length).equals(magic);

const howToMakeKey = 'PETCARE_BACKUP_KEY must be 32 random bytes written as base64 or hex (make one with `openssl rand -base64 32`)';

/** The 32-byte key from PETCARE_BACKUP_KEY(_FILE)'s text; null when none is set. */
export function parseBackupKey(text: string | undefined): Buffer | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const key = decodeBackupKey(trimmed);
  if (key) return key;
  throw new ArchiveError(`${howToMakeKey}; the one given is not (${trimmed.length} characters)`);
}

/** A short name of a key, safe to print and store: the first 8 bytes of an HMAC by the key. */
export const keyIdOf = (key: Buffer): Buffer => createHmac('sha256', key).update('petcare-backup key id').digest().subarray(0, 8);

const archiveKey = (key: Buffer, salt: Buffer): Buffer => Buffer.from(hkdfSync('sha256', key, salt, 'petcare-backup/enc1 aes-256-gcm', 32));

function frameParts(index: number, final: boolean, header: Buffer): { nonce: Buffer; aad: Buffer } {
  const nonce = Buffer.alloc(12);
  nonce.writeBigUInt64BE(BigInt(index), 4);
  const aad = Buffer.alloc(header.length + 9);
  header.copy(aad, 0);
  aad.writeBigUInt64BE(BigInt(index), header.length);
  aad[header.length + 8] = final ? 1 : 0;
  return { nonce, aad };
}

/** Seals a stream (the gzip of an archive) in authenticated frames; the header comes first. */
export async function* encryptFrames(source: AsyncIterable<Buffer>, key: Buffer): AsyncGenerator<Buffer> {
  const salt = randomBytes(16);
  const header = Buffer.concat([magic, keyIdOf(key), salt]);
  const sealingKey = archiveKey(key, salt);
  let index = 0;
  const seal = (plain: Buffer, final: boolean): Buffer => {
    const { nonce, aad } = frameParts(index++, final, header);
    const cipher = createCipheriv('aes-256-gcm', sealingKey, nonce);
    cipher.setAAD(aad);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE((final ? finalBit : 0) + plain.length);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([prefix, body, cipher.getAuthTag()]);
  };
  yield header;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    pendingLength += chunk.length;
    // A frame is sealed only once more bytes follow it, so the last one always carries the final flag.
    while (pendingLength > frameSize) {
      const all = Buffer.concat(pending, pendingLength);
      yield seal(all.subarray(0, frameSize), false);
      pending = [all.subarray(frameSize)];
      pendingLength -= frameSize;
    }
  }
  yield seal(Buffer.concat(pending, pendingLength), true);
}

/**
 * Opens the frames after `header` (already read by the caller), yielding each frame's plaintext
 * once its tag is checked. Throws ArchiveError for a wrong key, a changed or damaged byte, a
 * missing final frame (truncated) or bytes after it.
 */
export async function* decryptFrames(reader: ByteReader, header: Buffer, key: Buffer): AsyncGenerator<Buffer> {
  if (header.length < encryptedHeaderSize || !isEncryptedArchive(header)) throw new ArchiveError('the archive is not an encrypted petcare archive');
  const archiveKeyId = header.subarray(magic.length, magic.length + 8);
  if (!archiveKeyId.equals(keyIdOf(key))) {
    throw new ArchiveError(
      `the archive was encrypted with another key (key id ${archiveKeyId.toString('hex')}; PETCARE_BACKUP_KEY's is ${keyIdOf(key).toString('hex')})`,
    );
  }
  const openingKey = archiveKey(key, header.subarray(magic.length + 8, encryptedHeaderSize));
  for (let index = 0; ; index++) {
    const prefix = await reader.exactly(4);
    if (prefix.length < 4) throw new ArchiveError('the encrypted archive is truncated (it ends before its final frame)');
    const word = prefix.readUInt32BE(0);
    const final = word >= finalBit;
    const length = word & 0x7fff_ffff;
    if (length > frameSize) throw new ArchiveError(`the encrypted archive is damaged (frame ${index} claims ${length} bytes)`);
    const body = await reader.exactly(length + tagSize);
    if (body.length < length + tagSize) throw new ArchiveError('the encrypted archive is truncated (it ends inside a frame)');
    const { nonce, aad } = frameParts(index, final, header);
    const decipher = createDecipheriv('aes-256-gcm', openingKey, nonce);
    decipher.setAAD(aad);
    decipher.setAuthTag(body.subarray(length));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(body.subarray(0, length)), decipher.final()]);
    } catch {
      throw new ArchiveError(`the encrypted archive failed authentication at frame ${index}: it was changed or damaged`);
    }
    yield plain;
    if (final) {
      if (!(await reader.atEnd())) throw new ArchiveError('the encrypted archive has bytes after its final frame');
      return;
    }
  }
}
