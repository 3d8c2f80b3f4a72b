/**
 * An incremental reader of one HTTP/1.1 response on a client connection (RFC 9112), for the webhook
 * sender: status line and headers, then the body framed by chunked transfer coding, Content-Length,
 * or the end of the connection. It keeps only what a delivery attempt records: the status, the
 * Location header, and the first bytes of the body, and it counts the rest. Interim 1xx responses
 * (100 Continue, 103 Early Hints) are skipped. It owns no socket: the connection feeds it chunks.
 */

/** The head (status line and headers) may not be longer than this. */
export const maxHeadBytes = 16 * 1024;
/** A chunk-size line or a trailer line may not be longer than this. */
const maxLineBytes = 1024;

export interface ResponseHead {
  status: number;
  location: string | undefined;
}

export type ReadState =
  /** More bytes are needed. */
  | 'more'
  /** The response ended; `leftover` bytes followed it in the same chunk. */
  | 'done'
  /** The body reached the caller's limit: stop reading (the connection cannot be reused). */
  | 'limit';

export class ResponseError extends Error {
  readonly code = 'EBADRESPONSE';
}

const LF = 0x0a; // lines end at LF; a CR before it is dropped (RFC 9112 §2.2)
const CR = 0x0d;

/**
 * Where the head starting at `from` ends: [the end of its last line, the first byte after its empty
 * line], or null if the empty line has not come yet. Bare LF line ends are accepted here as in
 * readHead and the chunk lines (RFC 9112 §2.2): CRLF CRLF, LF LF and LF CR LF all end a head.
 */
function findHeadEnd(chunk: Buffer, from: number): [number, number] | null {
  for (let lf = chunk.indexOf(LF, from); lf >= 0; lf = chunk.indexOf(LF, lf + 1)) {
    if (chunk[lf + 1] === LF) return [lf, lf + 2];
    if (chunk[lf + 1] === CR && chunk[lf + 2] === LF) return [lf, lf + 3];
  }
  return null;
}

const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/;

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close' | 'done';

export class ResponseReader {
  head: ResponseHead | null = null;
  /** The connection may carry another request after this response. */
  reusable = false;
  /** Body bytes seen so far (all of them, not only the kept ones). */
  bodyBytes = 0;
  /** Bytes after the end of the response in the last chunk fed (a receiver that pipelines garbage). */
  leftover = 0;
  private phase: Phase = 'head';
  private partial: Buffer | null = null;
  private remaining = 0;
  private kept: Buffer[] = [];
  private keptBytes = 0;

  /** `keep`: body bytes to keep for the excerpt; `limit`: body bytes to read at most. */
  constructor(
    private readonly keep: number,
    private readonly limit: number,
  ) {}

  get done(): boolean {
    return this.phase === 'done';
  }

  /** The kept first bytes of the body. */
  excerpt(): Buffer {
    if (this.kept.length === 1) return this.kept[0]!;
    return Buffer.concat(this.kept, this.keptBytes);
  }

  /** Reads a chunk of the connection; throws ResponseError on a malformed response. */
  feed(chunk: Buffer): ReadState {
    let at = 0;
    if (this.partial !== null) {
      chunk = Buffer.concat([this.partial, chunk]);
      this.partial = null;
    }
    while (at < chunk.length) {
      switch (this.phase) {
        case 'head': {
          const end = findHeadEnd(chunk, at);
          if (end === null) return this.hold(chunk, at, maxHeadBytes, 'the response head is too long');
          // The limit holds for a complete head too (with its empty line, as hold() counts it), so
          // the same bytes get the same answer however the socket splits them.
          if (end[1] - at > maxHeadBytes) throw new ResponseError('the response head is too long');
          this.readHead(chunk.toString('latin1', at, end[0]));
          at = end[1];
          break;
        }
        case 'length':
        case 'chunk-data':
        case 'until-close': {
          const take = this.phase === 'until-close' ? chunk.length - at : Math.min(this.remaining, chunk.length - at);
          if (this.body(chunk, at, take)) return 'limit';
          at += take;
          if (this.phase === 'until-close') break;
          this.remaining -= take;
          if (this.remaining === 0) this.phase = this.phase === 'length' ? 'done' : 'chunk-end';
          break;
        }
        case 'chunk-size':
        case 'chunk-end':
        case 'trailers': {
          const lf = chunk.indexOf(LF, at);
          if (lf < 0) return this.hold(chunk, at, maxLineBytes, 'a chunk line is too long');
          // As for the head, the limit holds for a complete line too.
          if (lf + 1 - at > maxLineBytes) throw new ResponseError('a chunk line is too long');
          const line = chunk.toString('latin1', at, lf > at && chunk[lf - 1] === CR ? lf - 1 : lf);
          at = lf + 1;
          this.readLine(line);
          break;
        }
        case 'done':
          this.leftover = chunk.length - at;
          return 'done';
      }
    }
    return this.phase === 'done' ? 'done' : 'more';
  }

  /** The connection ended: true if that completes the response (a body delimited by the close). */
  endOfInput(): boolean {
    if (this.phase === 'until-close') {
      this.phase = 'done';
      return true;
    }
    return this.phase === 'done';
  }

  private hold(chunk: Buffer, at: number, max: number, tooLong: string): ReadState {
    if (chunk.length - at > max) throw new ResponseError(tooLong);
    // A copy: the socket's chunk is not held on to.
    this.partial = Buffer.from(chunk.subarray(at));
    return 'more';
  }

  private readHead(text: string): void {
    const lines = text.split('\n');
    // Without its CR, "HTTP/1.1 200" (no reason phrase, which node:http accepts) matches too.
    if (lines[0]!.endsWith('\r')) lines[0] = lines[0]!.slice(0, -1);
    const match = statusLine.exec(lines[0]!);
    if (!match) throw new ResponseError(`not an HTTP/1.x response: ${JSON.stringify(lines[0]!.slice(0, 60))}`);
    const minor = match[1]!;
    const status = Number(match[2]);
    let length: number | null = null;
    let transferCoded = false;
    let chunked = false;
    let close = false;
    let keepAlive = false;
    let location: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      let line = lines[i]!;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      const colon = line.indexOf(':');
      if (colon <= 0) throw new ResponseError('a malformed response header line');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== null && length !== Number(value))) throw new ResponseError('an invalid Content-Length');
        length = Number(value);
      } else if (name === 'transfer-encoding') {
        const codings = value
          .toLowerCase()
          .split(',')
          .map((c) => c.trim());
        transferCoded = true;
        chunked = codings[codings.length - 1] === 'chunked';
      } else if (name === 'connection') {
        for (const token of value.toLowerCase().split(',')) {
          const t = token.trim();
          if (t === 'close') close = true;
          else if (t === 'keep-alive') keepAlive = true;
        }
      } else if (name === 'location') {
        location = value;
      }
    }
    if (status < 200) {
      // 101 would hand the connection to another protocol: a webhook never asks for that.
      if (status === 101) throw new ResponseError('the receiver switched protocols (101)');
      return; // an interim response: the final one follows
    }
    this.head = { status, location };
    this.reusable = !close && (minor === '1' || keepAlive);
    if (status === 204 || status === 304) this.phase = 'done';
    else if (transferCoded) {
      // Transfer-Encoding overrides Content-Length; both at once is a smuggling sign, so the
      // connection is not reused. A last coding other than chunked is framed by the close (RFC 9112 §6.3).
      this.phase = chunked ? 'chunk-size' : 'until-close';
      if (length !== null || !chunked) this.reusable = false;
    } else if (length !== null) {
      this.remaining = length;
      this.phase = length === 0 ? 'done' : 'length';
    } else {
      this.phase = 'until-close';
      this.reusable = false;
    }
  }

  private readLine(line: string): void {
    if (this.phase === 'chunk-end') {
      if (line !== '') throw new ResponseError('a chunk is longer than its size');
      this.phase = 'chunk-size';
    } else if (this.phase === 'chunk-size') {
      const semi = line.indexOf(';');
      const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new ResponseError('an invalid chunk size');
      this.remaining = parseInt(hex, 16);
      this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    } else if (line === '') {
      this.phase = 'done'; // the empty line after the trailers
    }
  }

  /** Counts body bytes and keeps the first ones; true once past the limit. */
  private body(chunk: Buffer, at: number, length: number): boolean {
    if (length === 0) return false;
    if (this.keptBytes < this.keep) {
      const part = chunk.subarray(at, at + Math.min(length, this.keep - this.keptBytes));
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    this.bodyBytes += length;
    return this.bodyBytes > this.limit;
  }
}
