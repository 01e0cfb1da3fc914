/**
 * The §16.4 batching policy as a driver both transports share (the TCP server and the NATS
 * worker): jobs go into one FIFO per kind (`KindQueues`); whenever no batch computes and the
 * owner's gate allows it, the ready kind whose head is oldest is flushed (batch-max jobs, or
 * fewer once its oldest job waited max-wait); when no kind is ready a timer fires when the
 * first one will be. One batch computes at a time.
 */
import { monotonicNs } from "../protocol/clock.js";
import { KindQueues, type Queued } from "./kind-queues.js";

export interface BatchSchedulerHooks<T> {
  /** Computes and hands off one flushed batch of `kind`; the next flush waits for it. */
  readonly run: (kind: number, batch: T[]) => Promise<void>;
  /** Whether a flush may start now (e.g. the return queue has room); default always. */
  readonly gate?: () => boolean;
}

export class BatchScheduler<T extends Queued> {
  readonly queues: KindQueues<T>;
  private computingBatch: Promise<void> | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = -1n;

  /**
   * @param batchMax largest batch (≥ 1).
   * @param maxWaitNs wait after which a non-empty kind is ready, ns.
   */
  constructor(
    batchMax: number,
    maxWaitNs: bigint,
    private readonly hooks: BatchSchedulerHooks<T>,
  ) {
    this.queues = new KindQueues<T>(batchMax, maxWaitNs);
  }

  /** The batch in compute, or null. */
  get computing(): Promise<void> | null {
    return this.computingBatch;
  }

  /** Queues a job and flushes if a kind is ready. */
  push(job: T): void {
    this.queues.push(job);
    this.schedule();
  }

  /** Flushes the ready kind whose head is oldest, if no batch computes and the gate allows it. */
  schedule(): void {
    if (this.computingBatch || this.stopped) return;
    if (this.hooks.gate && !this.hooks.gate()) return;
    const now = monotonicNs();
    const kind = this.queues.readyKind(now);
    if (kind < 0) {
      const wait = this.queues.nsUntilReady(now);
      if (wait >= 0n) this.armTimer(now + wait);
      return;
    }
    const batch = this.queues.take(kind);
    this.computingBatch = this.hooks.run(kind, batch).finally(() => {
      this.computingBatch = null;
      this.schedule();
    });
  }

  /** No more flushes; waits for the batch in compute (queued jobs stay in `queues`). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.computingBatch) await this.computingBatch;
  }

  private armTimer(atNs: bigint): void {
    if (this.timer && this.timerAt <= atNs) return;
    if (this.timer) clearTimeout(this.timer);
    const ms = Number((atNs - monotonicNs() + 999_999n) / 1_000_000n);
    this.timerAt = atNs;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = -1n;
        this.schedule();
      },
      Math.max(1, ms),
    );
  }
}
