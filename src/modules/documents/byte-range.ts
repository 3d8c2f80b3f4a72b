/**
 * One byte range of a `Range: bytes=…` header (RFC 9110 §14.1.2), resolved against the size.
 * Several ranges, another unit or a malformed header are answered with the whole file (a server
 * may ignore Range); a range that starts past the end is unsatisfiable (416).
 */
export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

export function parseByteRange(header: string, size: number): ByteRange {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    // A suffix: the last N bytes (all of them when N exceeds the size).
    const length = Number(last);
    if (length === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null; // invalid: ignored, whole file
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
