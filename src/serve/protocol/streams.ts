/**
 * Message-level readers over `FrameReader`: Jobs (one frame each) on the server side, replies
 * (Reply JSON frame + proof frame) on the client side. Both accept bytes in arbitrary pieces.
 */
import { ProtocolError } from "./errors.js";
import { FrameReader } from "./framing.js";
import { decodeJob, type Job } from "./job.js";
import { MAX_JOB_BYTES, MAX_PROOF_BYTES, MAX_REPLY_JSON_BYTES } from "./limits.js";
import { decodeReply, type Reply } from "./reply.js";

/** A reply with its proof bytes (empty for error replies). */
export interface ReplyMessage {
  readonly reply: Reply;
  readonly proof: Buffer;
}

/**
 * Job frames from a byte stream. `next()` returns the next complete frame body (decode it with
 * `decodeJob`, or use `nextJob`), or null when more bytes are needed.
 */
export class JobStreamReader {
  private readonly frames = new FrameReader();

  /** Bytes buffered for the frame being assembled. */
  get buffered(): number {
    return this.frames.buffered;
  }

  /** True when the stream is on a frame boundary. */
  get idle(): boolean {
    return this.frames.idle;
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk);
  }

  /** @throws ProtocolError `FRAME_TOO_LARGE` (a frame above 2 MiB). */
  next(): Buffer | null {
    return this.frames.next(MAX_JOB_BYTES);
  }

  /** @throws ProtocolError `FRAME_TOO_LARGE`, `BAD_JSON`, `BAD_JOB`. */
  nextJob(): Job | null {
    const body = this.next();
    return body === null ? null : decodeJob(body);
  }

  /** @throws ProtocolError `FRAME_TRUNCATED` if the stream ended inside a frame. */
  end(): void {
    this.frames.end();
  }
}

/**
 * Replies from a byte stream: the Reply JSON frame (≤ 2 MiB), then the proof frame (≤ 16 MiB)
 * whose length must equal `reply.encoded_bytes`.
 */
export class ReplyStreamReader {
  private readonly frames = new FrameReader();
  private pending: Reply | null = null;

  /** True when the stream is between two replies. */
  get idle(): boolean {
    return this.pending === null && this.frames.idle;
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk);
  }

  /**
   * The next complete reply, or null when more bytes are needed.
   * @throws ProtocolError `FRAME_TOO_LARGE`, `BAD_JSON`, `BAD_REPLY`, `PROOF_LENGTH_MISMATCH`;
   *   after an error the stream has lost its framing.
   */
  next(): ReplyMessage | null {
    if (this.pending === null) {
      const body = this.frames.next(MAX_REPLY_JSON_BYTES);
      if (body === null) return null;
      this.pending = decodeReply(body);
    }
    const reply = this.pending;
    const proof = this.frames.next(MAX_PROOF_BYTES);
    if (proof === null) return null;
    this.pending = null;
    if (proof.length !== reply.encoded_bytes) {
      throw new ProtocolError(
        "PROOF_LENGTH_MISMATCH",
        `proof frame of ${proof.length} bytes, reply.encoded_bytes = ${reply.encoded_bytes}`,
        { length: proof.length, encodedBytes: reply.encoded_bytes },
      );
    }
    return { reply, proof };
  }

  /** @throws ProtocolError `FRAME_TRUNCATED` if the stream ended inside a reply. */
  end(): void {
    if (this.pending !== null)
      throw new ProtocolError("FRAME_TRUNCATED", "the stream ended between a Reply and its proof frame", {
        buffered: 0,
      });
    this.frames.end();
  }
}
