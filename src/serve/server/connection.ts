/**
 * One client connection of the proof server: frames in (compat-v1 §16.1), replies out.
 *
 * Reading: bytes go through a `JobStreamReader`; each complete frame is handed to the server
 * with its receive time (unix ns, taken when the frame's last byte arrived). A frame above
 * 2 MiB, a frame that is not a Job, a Job with protocol ≠ 1 or an empty run_id, or a stream
 * that ends inside a frame stop reading from the connection (no reply to that frame); the
 * connection is closed once the replies it is still owed are written. A peer that stalls
 * inside a frame for the I/O timeout is disconnected.
 *
 * Writing: replies are written as their frame buffers (corked, one write callback per reply).
 * When more than `PAUSE_READ_BYTES` wait in the socket's buffer, reading pauses until it drains,
 * so a peer that does not read its replies cannot make the server buffer without bound; a peer
 * that takes no written bytes for the I/O timeout is disconnected.
 */
import type { Socket } from "node:net";
import { JobStreamReader } from "../protocol/streams.js";
import { nowUnixNs, monotonicNs } from "../protocol/clock.js";
import { ProtocolError } from "../protocol/errors.js";

/** Socket buffer level above which reading from the peer pauses, bytes. */
export const PAUSE_READ_BYTES = 8 * 1024 * 1024;

/** Why a connection stopped reading or was closed (counted in the server's stats). */
export type CloseReason =
  | "frame_too_large"
  | "frame_truncated"
  | "bad_job"
  | "protocol_mismatch"
  | "read_stall"
  | "write_stall"
  | "socket_error"
  | "server_stopping";

export interface ConnectionHandlers {
  /** A complete frame body with the unix ns at which its last byte was read. */
  onFrame(conn: Connection, body: Buffer, receivedNs: bigint): void;
  /** The connection stopped reading for `reason` (once per connection at most). */
  onStopReading(conn: Connection, reason: CloseReason, detail: string): void;
  /** The socket closed. */
  onClose(conn: Connection): void;
}

export class Connection {
  private readonly reader = new JobStreamReader();
  private reading = true;
  private paused = false;
  private lastReadNs = monotonicNs();
  private lastWriteLevel = 0;
  private lastWriteProgressNs = monotonicNs();
  /** Replies this connection is still owed (admitted jobs without a written reply). */
  outstanding = 0;
  /** Jobs admitted from this connection. */
  admitted = 0;
  closed = false;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly handlers: ConnectionHandlers,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.onEnd());
    socket.on("drain", () => this.onDrain());
    socket.on("error", () => {
      /* reported by 'close' */
    });
    socket.on("close", () => {
      this.closed = true;
      this.reading = false;
      handlers.onClose(this);
    });
  }

  /** The peer's address, for logs. */
  get peer(): string {
    return `${this.socket.remoteAddress ?? "?"}:${this.socket.remotePort ?? "?"}`;
  }

  /** True while frames from this connection are read. */
  get isReading(): boolean {
    return this.reading;
  }

  private onData(chunk: Buffer): void {
    if (!this.reading) return;
    this.lastReadNs = monotonicNs();
    this.reader.push(chunk);
    for (;;) {
      let body: Buffer | null;
      try {
        body = this.reader.next();
      } catch (err) {
        const detail = err instanceof ProtocolError ? err.message : String(err);
        this.stopReading("frame_too_large", detail);
        return;
      }
      if (body === null) return;
      this.handlers.onFrame(this, body, nowUnixNs());
      if (!this.reading) return;
    }
  }

  private onEnd(): void {
    if (this.reading && !this.reader.idle) {
      this.stopReading("frame_truncated", `the peer closed inside a frame (${this.reader.buffered} bytes pending)`);
      return;
    }
    this.reading = false;
    this.maybeEnd();
  }

  private onDrain(): void {
    this.lastWriteProgressNs = monotonicNs();
    if (this.paused && !this.closed) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Stops reading (no reply to what is pending); closes once the owed replies are written. */
  stopReading(reason: CloseReason, detail: string): void {
    if (!this.reading) return;
    this.reading = false;
    this.handlers.onStopReading(this, reason, detail);
    this.maybeEnd();
  }

  /** Closes the socket now (pending writes are discarded). */
  destroy(reason: CloseReason, detail: string): void {
    if (this.closed) return;
    if (this.reading) {
      this.reading = false;
      this.handlers.onStopReading(this, reason, detail);
    }
    this.socket.destroy();
  }

  /** Ends the socket once it stopped reading and owes no replies. */
  maybeEnd(): void {
    if (!this.reading && this.outstanding === 0 && !this.closed && !this.socket.writableEnded) this.socket.end();
  }

  /**
   * Writes one reply's buffers. Resolves true when the last buffer was handed to the kernel,
   * false if the connection is (or becomes) closed.
   */
  send(buffers: readonly Buffer[]): Promise<boolean> {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.socket.cork();
      for (let i = 0; i < buffers.length - 1; i++) this.socket.write(buffers[i]!);
      this.socket.write(buffers[buffers.length - 1]!, (err) => resolve(!err));
      this.socket.uncork();
      if (this.socket.writableLength > PAUSE_READ_BYTES && !this.paused && this.reading) {
        this.paused = true;
        this.socket.pause();
      }
    });
  }

  /** Socket buffer level, bytes. */
  get writeBacklog(): number {
    return this.socket.writableLength;
  }

  /**
   * Disconnects a peer that stalled inside a frame, or took no written bytes, for `timeoutNs`.
   * Called periodically by the server.
   */
  checkStalls(nowNs: bigint, timeoutNs: bigint): void {
    if (this.closed) return;
    if (this.reading && !this.reader.idle && nowNs - this.lastReadNs >= timeoutNs) {
      this.destroy("read_stall", `no bytes for ${timeoutNs / 1_000_000n} ms inside a frame`);
      return;
    }
    const level = this.socket.writableLength;
    if (level === 0 || level < this.lastWriteLevel) this.lastWriteProgressNs = nowNs;
    this.lastWriteLevel = level;
    if (level > 0 && nowNs - this.lastWriteProgressNs >= timeoutNs) {
      this.destroy("write_stall", `the peer took no reply bytes for ${timeoutNs / 1_000_000n} ms`);
    }
  }
}
