/**
 * One FIFO per operation kind and the flush rule of compat-v1 §16.4: a kind is ready when its
 * queue holds at least batch-max jobs or its oldest job has waited at least max-wait; among the
 * ready kinds the one whose head is oldest is flushed, taking min(len, batch-max) jobs.
 *
 * Times are monotonic nanoseconds (bigint) of admission.
 */
import { type OpKind, opKindTag } from "../../statement/types.js";

/** What the queues need of a job: its kind and admission time. Queues are indexed by the kind's tag (0/1/2). */
export interface Queued {
  readonly kind: OpKind;
  /** Monotonic ns at admission. */
  readonly admittedNs: bigint;
}

/** A FIFO with amortised O(1) shift. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  push(x: T): void {
    this.items.push(x);
  }

  take(n: number): T[] {
    const out = this.items.slice(this.head, this.head + n);
    this.head += out.length;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  drain(): T[] {
    return this.take(this.length);
  }
}

/** Per-kind FIFOs (kinds 0, 1, 2) with the §16.4 readiness and flush rule. */
export class KindQueues<T extends Queued> {
  private readonly fifos: Fifo<T>[] = [new Fifo(), new Fifo(), new Fifo()];
  private count = 0;

  /**
   * @param batchMax largest batch (≥ 1).
   * @param maxWaitNs wait after which a non-empty kind is ready, ns.
   */
  constructor(
    readonly batchMax: number,
    readonly maxWaitNs: bigint,
  ) {}

  /** Jobs queued over all kinds. */
  get size(): number {
    return this.count;
  }

  /** Jobs queued of one kind. */
  lengthOf(kind: number): number {
    return this.fifos[kind]!.length;
  }

  push(job: T): void {
    this.fifos[opKindTag(job.kind)]!.push(job);
    this.count++;
  }

  /** The kind to flush at monotonic time `nowNs`, or -1 if no kind is ready. */
  readyKind(nowNs: bigint): number {
    let best = -1;
    let bestAt = 0n;
    for (let k = 0; k < 3; k++) {
      const q = this.fifos[k]!;
      const head = q.peek();
      if (!head) continue;
      if (q.length >= this.batchMax || nowNs - head.admittedNs >= this.maxWaitNs) {
        if (best < 0 || head.admittedNs < bestAt) {
          best = k;
          bestAt = head.admittedNs;
        }
      }
    }
    return best;
  }

  /** Nanoseconds until some non-empty kind becomes ready by waiting (0 if one is ready), or -1 if all are empty. */
  nsUntilReady(nowNs: bigint): bigint {
    let best = -1n;
    for (const q of this.fifos) {
      const head = q.peek();
      if (!head) continue;
      const left = q.length >= this.batchMax ? 0n : head.admittedNs + this.maxWaitNs - nowNs;
      const l = left < 0n ? 0n : left;
      if (best < 0n || l < best) best = l;
    }
    return best;
  }

  /** Takes min(len, batch-max) jobs of `kind` from the head of its FIFO. */
  take(kind: number): T[] {
    const out = this.fifos[kind]!.take(this.batchMax);
    this.count -= out.length;
    return out;
  }

  /** Removes and returns every queued job, kind 0 first, each kind in FIFO order. */
  drainAll(): T[] {
    const out = this.fifos.flatMap((q) => q.drain());
    this.count = 0;
    return out;
  }
}
