/**
 * Length-prefixed frames of the serving protocol (compat-v1 §16.1): a u32 big-endian byte
 * count, then that many bytes. Jobs are one frame (JSON, ≤ 2 MiB); replies are two frames
 * (Reply JSON ≤ 2 MiB, then the raw proof ≤ 16 MiB).
 */
import { ProtocolError } from "./errors.js";
import { FRAME_HEADER_BYTES } from "./limits.js";

/**
 * One frame: the 4-byte big-endian length of `body`, then `body`.
 * @param limit largest accepted body length in bytes.
 * @throws ProtocolError `MESSAGE_TOO_LONG` if `body` is longer than `limit`.
 */
export function encodeFrame(body: Uint8Array, limit: number): Buffer {
  if (body.length > limit) {
    throw new ProtocolError(
      "MESSAGE_TOO_LONG",
      `frame body of ${body.length} bytes exceeds the bound of ${limit} bytes`,
      { length: body.length, limit },
    );
  }
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
  out.writeUInt32BE(body.length, 0);
  out.set(body, FRAME_HEADER_BYTES);
  return out;
}

/** The 4-byte big-endian length prefix of a body of `length` bytes. */
export function frameHeader(length: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  out.writeUInt32BE(length, 0);
  return out;
}

/**
 * Incremental frame reader for a byte stream that arrives in arbitrary pieces (TCP chunks).
 *
 * `push` appends received bytes; `next(limit)` returns the next complete frame body, or `null`
 * if more bytes are needed. The limit is given per frame (a reply's JSON frame and its proof
 * frame have different bounds), and a declared length above it is reported as soon as the
 * 4 length bytes are in, before any of the body is buffered. Buffered bytes never exceed one
 * frame header plus the body being assembled plus the last chunk pushed.
 *
 * Chunks are kept as a list and joined only once a whole frame is present, so a frame that
 * arrives in many chunks costs one copy.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  /** Bytes consumed from chunks[0]. */
  private offset = 0;
  private total = 0;
  /** Declared length of the frame whose header has been read, or -1. */
  private want = -1;

  /** Bytes received and not yet returned as part of a frame (header bytes included). */
  get buffered(): number {
    return this.total + (this.want >= 0 ? FRAME_HEADER_BYTES : 0);
  }

  /** True when no partial frame is pending (the stream may end here cleanly). */
  get idle(): boolean {
    return this.total === 0 && this.want < 0;
  }

  /** Appends received bytes (the buffer is kept, not copied: do not reuse it). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    this.total += chunk.length;
  }

  /**
   * The next complete frame body, or `null` if it has not fully arrived.
   * @param limit largest accepted body length in bytes.
   * @throws ProtocolError `FRAME_TOO_LARGE` (details.declared, details.limit) when the next
   *   frame declares more than `limit` bytes; the reader is then unusable (the stream has lost
   *   its framing).
   */
  next(limit: number): Buffer | null {
    if (this.want < 0) {
      if (this.total < FRAME_HEADER_BYTES) return null;
      const header = this.take(FRAME_HEADER_BYTES);
      const declared = header.readUInt32BE(0);
      if (declared > limit) {
        this.want = declared;
        throw new ProtocolError(
          "FRAME_TOO_LARGE",
          `frame declares ${declared} bytes, above the bound of ${limit} bytes`,
          { declared, limit },
        );
      }
      this.want = declared;
    }
    if (this.total < this.want) return null;
    const body = this.take(this.want);
    this.want = -1;
    return body;
  }

  /**
   * Checks that the stream ended on a frame boundary.
   * @throws ProtocolError `FRAME_TRUNCATED` (details.buffered) if part of a frame is pending.
   */
  end(): void {
    if (!this.idle) {
      throw new ProtocolError("FRAME_TRUNCATED", `the stream ended inside a frame (${this.buffered} bytes pending)`, {
        buffered: this.buffered,
      });
    }
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0]!;
    if (first.length - this.offset >= n) {
      const out = first.subarray(this.offset, this.offset + n);
      this.offset += n;
      this.total -= n;
      if (this.offset === first.length) {
        this.chunks.shift();
        this.offset = 0;
      }
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const avail = c.length - this.offset;
      const m = Math.min(avail, n - filled);
      c.copy(out, filled, this.offset, this.offset + m);
      filled += m;
      this.offset += m;
      if (this.offset === c.length) {
        this.chunks.shift();
        this.offset = 0;
      }
    }
    this.total -= n;
    return out;
  }
}
