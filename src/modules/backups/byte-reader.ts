/**
 * Reads a stream of chunks by byte counts (tar blocks, encrypted frames), pulling the next chunk
 * only when asked: whoever reads sets the pace, so a file written from an archive holds back the
 * archive's reading instead of piling it up in memory.
 */
export class ByteReader {
  private readonly chunks: AsyncIterator<Buffer | Uint8Array | string>;
  private buffered: Buffer[] = [];
  private length = 0;
  private ended = false;
  /** Bytes handed out so far (for messages that say where an archive went wrong). */
  offset = 0;

  constructor(source: AsyncIterable<Buffer | Uint8Array | string>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  private async fill(wanted: number): Promise<void> {
    while (this.length < wanted && !this.ended) {
      const next = await this.chunks.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      if (chunk.length === 0) continue;
      this.buffered.push(chunk);
      this.length += chunk.length;
    }
  }

  private take(count: number): Buffer {
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.length);
    const out = all.subarray(0, count);
    const rest = all.subarray(count);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    this.offset += out.length;
    return out;
  }

  /** `count` bytes; fewer only where the stream ends (none at all: an empty buffer). */
  async exactly(count: number): Promise<Buffer> {
    await this.fill(count);
    return this.take(Math.min(count, this.length));
  }

  /** At least one byte and at most `max` (as they come), or an empty buffer at the end. */
  async upTo(max: number): Promise<Buffer> {
    await this.fill(1);
    if (this.length === 0) return Buffer.alloc(0);
    return this.take(Math.min(max, this.buffered[0]!.length));
  }

  async atEnd(): Promise<boolean> {
    await this.fill(1);
    return this.length === 0;
  }

  /** The rest of the stream, chunk by chunk. */
  async *rest(): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = await this.upTo(1 << 20);
      if (chunk.length === 0) return;
      yield chunk;
    }
  }

  /** Lets go of the source (closes a file stream read halfway). */
  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}
