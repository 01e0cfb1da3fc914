/**
 * One frontend connection to a proof server (compat-v1 §16.1): a bounded sender queue of Job
 * frames written in order, and a reply reader (Reply JSON + proof frames, matched by the caller
 * by job_id, in any order).
 *
 * The sender queue holds frames not yet handed to the socket; a frame is handed over while the
 * socket accepts more (`write` returned true), otherwise the queue waits for `drain`. A full
 * queue, or a closed connection, refuses the frame (`enqueue` returns false): the caller
 * records that as a generator failure, never as less load.
 */
import { connect, type Socket } from "node:net";
import { ReplyStreamReader, type ReplyMessage } from "../protocol/streams.js";
import type { Target } from "./options.js";

/** What the connection reports to its owner. */
export interface ConnectionEvents {
  /** A frame was handed to the socket (the job is submitted). */
  readonly onWritten: (tag: number) => void;
  /** A complete reply arrived. */
  readonly onReply: (message: ReplyMessage) => void;
  /**
   * The connection failed or closed; `unsent` are the tags of frames that never reached the
   * socket. Called once.
   */
  readonly onClosed: (reason: string, unsent: readonly number[]) => void;
}

interface QueuedFrame {
  readonly tag: number;
  readonly frame: Buffer;
}

export class TargetConnection {
  readonly name: string;
  private readonly socket: Socket;
  private readonly reader = new ReplyStreamReader();
  private readonly queue: QueuedFrame[] = [];
  private queueHead = 0;
  private writable = true;
  private closedReason: string | null = null;
  private paused = false;

  private constructor(
    readonly target: Target,
    socket: Socket,
    private readonly capacity: number,
    private readonly events: ConnectionEvents,
  ) {
    this.name = formatTarget(target);
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("drain", () => {
      this.writable = true;
      this.flush();
    });
    socket.on("error", (err) => this.close(`${(err as NodeJS.ErrnoException).code ?? "ERROR"}: ${err.message}`));
    socket.on("end", () => {
      try {
        this.reader.end();
        this.close("the server closed the connection");
      } catch (err) {
        this.close(`the server closed the connection inside a reply (${(err as Error).message})`);
      }
    });
    socket.on("close", () => this.close("the connection closed"));
  }

  /**
   * Connects to `target` within `timeoutMs`.
   * @param capacity sender queue bound (frames waiting for the socket).
   * @throws Error with the socket error's code and message, or `ETIMEDOUT`.
   */
  static open(
    target: Target,
    capacity: number,
    timeoutMs: number,
    events: ConnectionEvents,
  ): Promise<TargetConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: target.host, port: target.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: "ETIMEDOUT" }));
      }, timeoutMs);
      socket.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        resolve(new TargetConnection(target, socket, capacity, events));
      });
    });
  }

  /** Frames waiting for the socket. */
  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Queues a frame tagged `tag`; false if the queue is full or the connection closed. */
  enqueue(tag: number, frame: Buffer): boolean {
    if (this.closedReason !== null || this.queued >= this.capacity) return false;
    this.queue.push({ tag, frame });
    this.flush();
    return true;
  }

  /** Stops reading replies (verification back-pressure). */
  pause(): void {
    if (!this.paused && !this.closed) {
      this.paused = true;
      this.socket.pause();
    }
  }

  resume(): void {
    if (this.paused && !this.closed) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Closes the connection (idempotent); reports `reason` with the frames never written. */
  close(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    const unsent = this.queue.slice(this.queueHead).map((q) => q.tag);
    this.queue.length = 0;
    this.queueHead = 0;
    this.socket.destroy();
    this.events.onClosed(reason, unsent);
  }

  private flush(): void {
    while (this.writable && this.queueHead < this.queue.length && this.closedReason === null) {
      const q = this.queue[this.queueHead++]!;
      if (this.queueHead === this.queue.length) {
        this.queue.length = 0;
        this.queueHead = 0;
      }
      this.writable = this.socket.write(q.frame);
      this.events.onWritten(q.tag);
    }
  }

  private onData(chunk: Buffer): void {
    this.reader.push(chunk);
    for (;;) {
      let message: ReplyMessage | null;
      try {
        message = this.reader.next();
      } catch (err) {
        this.close(`unreadable reply stream: ${(err as Error).message}`);
        return;
      }
      if (message === null) return;
      this.events.onReply(message);
      if (this.closedReason !== null) return;
    }
  }
}

/** `host:port` (IPv6 hosts in brackets). */
export function formatTarget(t: Target): string {
  return t.host.includes(":") ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
}
