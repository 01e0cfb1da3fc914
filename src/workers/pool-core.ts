/**
 * The lifecycle every worker-thread pool of the package shares: start `size` workers, notice a
 * worker that dies (an `exit` that is not the pool's own close, with the reason from its `error`
 * event), replace it, stop replacing after too many crashes in a row, and close (terminate every
 * worker, once). What a pool sends, queues and answers stays with its user (the sync pool,
 * the registry's hash pool, the load frontend's verification pool); the core calls back:
 *
 * | Event | Callback | Then |
 * |---|---|---|
 * | a message of a live worker | `onMessage(slot, msg)` | — |
 * | a message that cannot be deserialised | `onMessageError(slot, err)` | — |
 * | a worker died | `onCrash(slot, { exitCode, reason })` | respawn and `onRespawn(old, fresh)`, or `onBroken` |
 * | `maxConsecutiveCrashes` crashes with no `noteSuccess()` between | `onBroken({ crashes, reason })` | no more respawns |
 *
 * Workers are unref'd while idle when `unrefIdle` is set (`busy`/`idle` ref and unref them), so
 * a pool that is never closed does not keep the process alive. Imports nothing of the package.
 */
import type { Worker } from "node:worker_threads";

/** One worker of the pool with its user's per-worker state `S`. */
export interface PoolSlot<S> {
  /** Position in the pool, 0 ≤ index < size; a respawned worker takes its predecessor's. */
  readonly index: number;
  readonly worker: Worker;
  /** The user's state of this worker (e.g. its running jobs, the circuits it holds). */
  state: S;
  /** Why the worker failed (its 'error' event), reported by `onCrash` when it exits. */
  failure: string | null;
}

/** How a worker died: its exit code and the error it reported (or "exited with code N"). */
export interface CrashInfo {
  readonly exitCode: number;
  readonly reason: string;
}

/** What a pool user gives the core. */
export interface PoolCoreOptions<S> {
  /** Number of workers, an integer ≥ 1. */
  readonly size: number;
  /** Starts the worker of slot `index` (called for the first workers and for each respawn). */
  readonly spawn: (index: number) => Worker;
  /** The state of a new slot. */
  readonly initialState: (index: number) => S;
  /** Crashes in a row after which the pool stops respawning (default: never stops). */
  readonly maxConsecutiveCrashes?: number;
  /** Unref idle workers (default false: workers keep the process alive until `close`). */
  readonly unrefIdle?: boolean;
  readonly onMessage: (slot: PoolSlot<S>, message: unknown) => void;
  readonly onMessageError?: (slot: PoolSlot<S>, error: unknown) => void;
  /** A worker died; its slot is about to be replaced (or the pool is about to break). */
  readonly onCrash: (slot: PoolSlot<S>, crash: CrashInfo) => void;
  /** The replacement of a crashed worker started. */
  readonly onRespawn?: (previous: PoolSlot<S>, fresh: PoolSlot<S>) => void;
  /** The pool stopped respawning. */
  readonly onBroken?: (info: { readonly crashes: number; readonly reason: string }) => void;
}

/**
 * The shared crash / respawn / close core of a worker pool (see the module comment).
 * @throws RangeError for a size that is not an integer ≥ 1 or a crash limit that is not ≥ 1
 *   (users check their options first and throw their own typed errors).
 * @example
 *   const core = new PoolCore({ size: 2, spawn: () => new Worker(url), initialState: () => ({ busy: false }),
 *     onMessage: (slot, msg) => { slot.state.busy = false; }, onCrash: (slot, c) => console.error(c.reason) });
 *   core.slots[0]!.worker.postMessage("job");
 *   await core.close();
 */
export class PoolCore<S> {
  /** The live workers, by index. */
  readonly slots: PoolSlot<S>[] = [];
  private readonly options: PoolCoreOptions<S>;
  private readonly maxCrashes: number;
  private crashesInARow = 0;
  private respawnCount = 0;
  private brokenFlag = false;
  private closing: Promise<void> | null = null;

  constructor(options: PoolCoreOptions<S>) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new RangeError(`a pool has an integer number ≥ 1 of workers, got ${String(options.size)}`);
    const max = options.maxConsecutiveCrashes ?? Infinity;
    if (!(max === Infinity || (Number.isInteger(max) && max >= 1)))
      throw new RangeError(`maxConsecutiveCrashes must be a positive integer, got ${String(max)}`);
    this.options = options;
    this.maxCrashes = max;
    for (let i = 0; i < options.size; i++) this.slots.push(this.start(i));
  }

  /** Number of worker slots. */
  get size(): number {
    return this.options.size;
  }

  /** Workers replaced after a crash. */
  get respawns(): number {
    return this.respawnCount;
  }

  /** Crashes since the last `noteSuccess()`. */
  get consecutiveCrashes(): number {
    return this.crashesInARow;
  }

  /** True once the pool stopped respawning. */
  get broken(): boolean {
    return this.brokenFlag;
  }

  /** True once `close` was called. */
  get closed(): boolean {
    return this.closing !== null;
  }

  /** A worker completed something: the crashes-in-a-row count starts again. */
  noteSuccess(): void {
    this.crashesInARow = 0;
  }

  /** The slot's worker has work: it keeps the process alive. */
  busy(slot: PoolSlot<S>): void {
    slot.worker.ref();
  }

  /** The slot's worker is idle: with `unrefIdle`, it no longer keeps the process alive. */
  idle(slot: PoolSlot<S>): void {
    if (this.options.unrefIdle) slot.worker.unref();
  }

  /** Terminates every worker; exits after this are not crashes. Idempotent; resolves once all have exited. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = Promise.all(this.slots.map((s) => s.worker.terminate())).then(() => undefined);
    return this.closing;
  }

  private start(index: number): PoolSlot<S> {
    const worker = this.options.spawn(index);
    if (this.options.unrefIdle) worker.unref();
    const slot: PoolSlot<S> = { index, worker, state: this.options.initialState(index), failure: null };
    worker.on("message", (msg: unknown) => {
      if (this.slots[index] === slot) this.options.onMessage(slot, msg);
    });
    worker.on("messageerror", (err: unknown) => {
      if (this.slots[index] === slot) this.options.onMessageError?.(slot, err);
    });
    worker.on("error", (err: unknown) => {
      slot.failure = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    });
    worker.on("exit", (code: number) => this.exited(slot, code));
    return slot;
  }

  private exited(slot: PoolSlot<S>, exitCode: number): void {
    if (this.closing || this.slots[slot.index] !== slot) return;
    const reason = slot.failure ?? `the worker exited with code ${exitCode}`;
    this.crashesInARow++;
    const breaks = this.crashesInARow >= this.maxCrashes;
    if (breaks) this.brokenFlag = true;
    this.options.onCrash(slot, { exitCode, reason });
    if (breaks) {
      this.options.onBroken?.({ crashes: this.crashesInARow, reason });
      return;
    }
    this.respawnCount++;
    const fresh = this.start(slot.index);
    this.slots[slot.index] = fresh;
    this.options.onRespawn?.(slot, fresh);
  }
}
