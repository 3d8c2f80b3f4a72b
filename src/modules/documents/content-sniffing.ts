import { isUtf8 } from 'node:buffer';

/**
 * What a document is, decided from its bytes (magic numbers), never from the client's Content-Type
 * or filename: a renamed executable must not become a "PDF" the next reader opens.
 */
export const documentContentTypes = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'text/plain', 'text/markdown'] as const;
export type DocumentContentType = (typeof documentContentTypes)[number];

type BinaryType = Exclude<DocumentContentType, 'text/plain' | 'text/markdown'>;

/** Bytes needed to tell every binary type apart (RIFF....WEBP is the longest). */
export const sniffLength = 12;

const startsWith = (head: Buffer, bytes: readonly number[], offset = 0): boolean =>
  head.length >= offset + bytes.length && bytes.every((b, i) => head[offset + i] === b);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The binary type whose signature `head` starts with, or null (maybe text, maybe refused). */
export function sniffBinary(head: Buffer): BinaryType | null {
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/** True when `bytes` holds a C0 control other than TAB, LF, FF and CR, or DEL: binary formats are full of them, text never is. */
function hasForbiddenControl(bytes: Uint8Array): boolean {
  // In UTF-8 these bytes only ever stand for themselves (lead and continuation bytes are ≥ 0x80), so
  // the bytes are checked without decoding them: four at a time, a word with any byte < 0x20 or
  // equal to 0x7f looked at closely (LF and TAB are common; they pass).
  const forbidden = (b: number) => (b < 0x20 ? b < 0x09 || b === 0x0b || b > 0x0d : b === 0x7f);
  const length = bytes.length;
  let at = 0;
  const head = Math.min(length, (4 - (bytes.byteOffset % 4)) % 4);
  for (; at < head; at++) if (forbidden(bytes[at] as number)) return true;
  const wordCount = (length - at) >>> 2;
  const words = wordCount > 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset + at, wordCount) : new Uint32Array(0);
  for (let i = 0; i < wordCount; i++) {
    const x = words[i] as number;
    const y = x ^ 0x7f7f7f7f;
    if (((x - 0x20202020) & ~x & 0x80808080) | ((y - 0x01010101) & ~y & 0x80808080)) {
      const from = at + i * 4;
      for (let j = from; j < from + 4; j++) if (forbidden(bytes[j] as number)) return true;
    }
  }
  for (at += wordCount * 4; at < length; at++) if (forbidden(bytes[at] as number)) return true;
  return false;
}

/** Length of the UTF-8 sequence `lead` starts (1 for a byte that cannot start one: the validation refuses it). */
const sequenceLength = (lead: number): number => (lead >= 0xf0 && lead < 0xf8 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc0 && lead < 0xe0 ? 2 : 1);

/** Where the incomplete UTF-8 sequence at the end of `bytes` starts (bytes.length when it ends on a whole one). */
function incompleteTail(bytes: Uint8Array): number {
  for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 3); at--) {
    const b = bytes[at] as number;
    if ((b & 0xc0) !== 0x80) return at + sequenceLength(b) > bytes.length ? at : bytes.length;
  }
  return bytes.length;
}

/**
 * Streams a candidate text file through a strict UTF-8 check. `push` returns false as soon as the
 * content stops being text (invalid UTF-8, NUL or another control character), so an upload can be
 * refused without reading the rest. Keeps at most `maxChars` characters of the decoded text. The
 * bytes are checked as bytes (buffer.isUtf8, native), and only the kept part is decoded: receiving
 * a large text costs the event loop little more than reading it.
 */
export class Utf8TextCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** The start of a sequence the last chunk cut (at most 3 bytes). */
  private pending: Buffer = Buffer.alloc(0);
  private kept = '';
  private truncated = false;

  constructor(private readonly maxChars: number) {}

  push(chunk: Buffer): boolean {
    let rest: Buffer = chunk;
    if (this.pending.length > 0) {
      const missing = sequenceLength(this.pending[0] as number) - this.pending.length;
      const joined = Buffer.concat([this.pending, chunk.subarray(0, missing)]);
      if (chunk.length < missing) {
        this.pending = joined;
        return true;
      }
      this.pending = Buffer.alloc(0);
      if (!this.take(joined)) return false;
      rest = chunk.subarray(missing);
    }
    const cut = incompleteTail(rest);
    if (cut < rest.length) this.pending = Buffer.from(rest.subarray(cut));
    return this.take(rest.subarray(0, cut));
  }

  /** Ends the check: false when the file ends inside a multi-byte sequence. */
  end(): boolean {
    return this.pending.length === 0;
  }

  /** The decoded text (BOM removed), capped at maxChars. */
  result(): { text: string; truncated: boolean } {
    return { text: this.kept, truncated: this.truncated };
  }

  /** Checks whole sequences, and decodes them while text is still kept. */
  private take(bytes: Buffer): boolean {
    if (bytes.length === 0) return true;
    if (!isUtf8(bytes) || hasForbiddenControl(bytes)) return false;
    if (this.truncated) return true; // still checked to the end, no longer kept (nor decoded)
    const piece = this.decoder.decode(bytes, { stream: true });
    const room = this.maxChars - this.kept.length;
    if (piece.length > room) {
      this.truncated = true;
      if (room > 0) this.kept += withoutBrokenPair(piece.slice(0, room));
    } else {
      this.kept += piece;
    }
    return true;
  }
}

/** Drops a trailing lone high surrogate left by cutting a string. */
export const withoutBrokenPair = (text: string): string => (/[\ud800-\udbff]$/.test(text) ? text.slice(0, -1) : text);

/** Declared types that mean the same as a sniffed one (aliases clients and browsers send). */
const aliases: Record<string, DocumentContentType> = {
  'application/x-pdf': 'application/pdf',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'text/x-markdown': 'text/markdown',
};

/**
 * True when the client declared a type other than the one the content has. `application/octet-stream`
 * (and no declaration) claim nothing, so they never mismatch; text/markdown vs text/plain is one family.
 */
export function declaredTypeMismatch(declared: string | null, actual: DocumentContentType): boolean {
  if (declared === null || declared === 'application/octet-stream') return false;
  const normalized = aliases[declared] ?? declared;
  if (actual.startsWith('text/') && (normalized === 'text/plain' || normalized === 'text/markdown')) return false;
  return normalized !== actual;
}
