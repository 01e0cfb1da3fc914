/**
 * The return path of computed batches (compat-v1 §16.4), shared by the TCP server and the NATS
 * worker: each job's Reply is built (`batchReply`: proof hash, batch times), encoded as protocol-1
 * frames and handed to the job's destination — its TCP connection, or the broker, where the hand-
 * over is a result publish and the destination acks the job once the broker acknowledged it.
 *
 * `overlapped` puts each finished batch in a bounded return queue (at most `queueBatches`
 * batches; `hasRoom` is false while it is full, and the scheduler does not flush then) and a
 * delivery loop hands the replies over while the next batch computes; a batch leaves the queue
 * once its replies are handed over (not once they are written or acknowledged), and `onRoom` is
 * called. `serial` hands each reply over and waits for it to be written (acknowledged) before
 * the next, so the next batch is flushed only after the last reply.
 *
 * Back-pressure: a destination holding more than `maxBacklogBytes` handed over and not yet
 * written (acknowledged) makes delivery wait until it drains (or is gone), which bounds memory at
 * the cost of delaying the other destinations, as a blocking write does in the reference.
 */
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { encodeReplyFrames, type Reply, type ReplyOrigin } from "../protocol/reply.js";
import { batchReply, type BatchSlot } from "./batch-reply.js";
import type { ReturnPath } from "./options.js";

/** Bytes handed to one destination and not yet written (acknowledged) above which delivery waits. */
export const MAX_WRITE_BACKLOG_BYTES = 64 * 1024 * 1024;

/** Where the replies of some jobs go (a TCP connection; the broker on behalf of one job). */
export interface ReplyDestination {
  /** Bytes handed over and not yet written (TCP) or acknowledged (broker). */
  readonly backlog: number;
  /** Resolves once the backlog has gone down (a drain) or the destination is gone. */
  drained(): Promise<void>;
  /**
   * Hands one reply's frames over. Resolves true once they are written (acknowledged), false if
   * they never will be (connection gone, publish given up); never rejects.
   */
  send(frames: readonly Buffer[], reply: Reply): Promise<boolean>;
}

/** One job of a computed batch and where its reply goes. */
export interface ReturnItem {
  readonly slot: BatchSlot;
  readonly dest: ReplyDestination;
}

/** Counters of a return path. */
export interface ReturnCounts {
  /** Replies with a proof handed over. */
  proofReplies: number;
  /** Error replies of failed batches (`witness: …`, `prove: …`) handed over. */
  batchErrors: number;
  /** Replies whose destination reported them lost. */
  undelivered: number;
  /** Main-thread time spent handing replies over (hash, frame, send; waits included on the serial path), ms. */
  deliveryMs: number;
}

/** The return path; see the module comment. */
export class ReplyReturn {
  private readonly queue: ReturnItem[][] = [];
  private delivering: Promise<void> | null = null;
  private readonly unsettled = new Set<Promise<void>>();
  readonly counts: ReturnCounts = { proofReplies: 0, batchErrors: 0, undelivered: 0, deliveryMs: 0 };

  /**
   * @param queueBatches return queue bound of the overlapped path (≥ 1).
   * @param onRoom called when a batch left the return queue (e.g. the scheduler's `schedule`).
   */
  constructor(
    private readonly mode: ReturnPath,
    private readonly queueBatches: number,
    private readonly origin: ReplyOrigin,
    private readonly onRoom: () => void,
    private readonly maxBacklogBytes: number = MAX_WRITE_BACKLOG_BYTES,
  ) {}

  /** Whether a new batch may be flushed: always on the serial path, else while the return queue has room. */
  get hasRoom(): boolean {
    return this.mode !== "overlapped" || this.queue.length < this.queueBatches;
  }

  /**
   * Hands a computed batch over: overlapped, it is queued and this resolves at once; serial, this
   * resolves once every reply was written (acknowledged) or lost.
   */
  async hand(items: readonly ReturnItem[]): Promise<void> {
    if (this.mode === "overlapped") {
      this.queue.push([...items]);
      this.pump();
      return;
    }
    const t0 = performance.now();
    for (const item of items) await this.deliver(item, true);
    this.counts.deliveryMs += performance.now() - t0;
  }

  /** Resolves once every queued batch has been handed over. */
  async handedOver(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  /** Resolves once every queued batch has been handed over and every reply written (acknowledged) or lost. */
  async settled(): Promise<void> {
    await this.handedOver();
    while (this.unsettled.size > 0) await Promise.all([...this.unsettled]);
  }

  private pump(): void {
    if (this.delivering) return;
    this.delivering = (async () => {
      while (this.queue.length > 0) {
        for (const item of this.queue[0]!) {
          const t0 = performance.now();
          await this.deliver(item, false);
          this.counts.deliveryMs += performance.now() - t0;
          await yieldToLoop();
        }
        this.queue.shift();
        this.onRoom();
      }
    })().finally(() => {
      this.delivering = null;
    });
  }

  /** Builds, encodes and hands over one reply; waits for it to be written when `awaitSend`. */
  private async deliver(item: ReturnItem, awaitSend: boolean): Promise<void> {
    const { slot, dest } = item;
    if (dest.backlog > this.maxBacklogBytes) await dest.drained();
    const { reply, proof } = batchReply(slot, this.origin);
    if (slot.result.ok) this.counts.proofReplies++;
    else this.counts.batchErrors++;
    const sent: Promise<void> = dest.send(encodeReplyFrames(reply, proof), reply).then((ok) => {
      if (!ok) this.counts.undelivered++;
      this.unsettled.delete(sent);
    });
    this.unsettled.add(sent);
    if (awaitSend) await sent;
  }
}
