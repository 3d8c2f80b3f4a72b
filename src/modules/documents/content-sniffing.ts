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

// C0 controls other than TAB, LF, FF and CR, and DEL: binary formats are full of them, text never is.
const forbiddenControl = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/**
 * Streams a candidate text file through a strict UTF-8 decoder. `push` returns false as soon as the
 * content stops being text (invalid UTF-8, NUL or another control character), so an upload can be
 * refused without reading the rest. Keeps at most `maxChars` characters of the decoded text.
 */
export class Utf8TextCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private kept = '';
  private truncated = false;

  constructor(private readonly maxChars: number) {}

  push(chunk: Buffer): boolean {
    return this.take(() => this.decoder.decode(chunk, { stream: true }));
  }

  /** Flushes the decoder: false when the file ends inside a multi-byte sequence. */
  end(): boolean {
    return this.take(() => this.decoder.decode());
  }

  /** The decoded text (BOM removed), capped at maxChars. */
  result(): { text: string; truncated: boolean } {
    return { text: this.kept, truncated: this.truncated };
  }

  private take(decode: () => string): boolean {
    let piece: string;
    try {
      piece = decode();
    } catch {
      return false;
    }
    if (forbiddenControl.test(piece)) return false;
    if (this.truncated) return true; // still checked to the end, no longer kept
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
