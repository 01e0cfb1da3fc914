/**
 * One writer at a time (the writes of a slot registry; a name-keyed registry's go through the
 * sequencer, registry/sequencer/sequencer.ts): writes run in arrival order; when `maxQueued` writes already wait, a new
 * one is refused (409 `WRITE_BUSY`) instead of queueing without bound.
 */
import { HttpError } from "./errors.js";

export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(readonly maxQueued = 64) {}

  /** Runs `fn` after every earlier write has finished. @throws HttpError 409 `WRITE_BUSY`. */
  async run<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.waiting >= this.maxQueued)
      throw new HttpError("WRITE_BUSY", `${this.waiting} writes are already queued; retry later`);
    this.waiting++;
    const result = this.tail.then(async () => {
      try {
        return await fn();
      } finally {
        this.waiting--;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  get queued(): number {
    return this.waiting;
  }
}
