/**
 * A pool of worker threads for parallel batches (compat-v1 §13.3 prove_batch_parallel, §15):
 * each job is proved (witness → prove → encode) or verified in a worker, results come back in
 * input order, and the bytes do not depend on the worker count.
 *
 * Prepared circuits are shared, not copied: the first batch of a `PreparedSync` puts its arrays
 * in a `SharedArrayBuffer` (`sharePrepared`), and each worker attaches it once. Jobs travel in
 * the binary job encoding (buffer transferred), one job per message, handed to whichever worker
 * is free (no static chunking, so slow jobs do not hold up a whole chunk).
 *
 * A pool started with an extension worker entry (`SyncPoolOptions.worker`, e.g. profile v2's
 * aggregate pool) runs that extension's jobs too (`runExtension`), on the same queue and workers.
 *
 * Lifecycle: `createSyncPool` starts the workers; batches (several may run at once) share
 * them; `close` terminates them. Idle workers are unref'd, so a pool that is never closed does
 * not keep the process alive. A worker that dies fails only the job it was running
 * (`WORKER_CRASHED`) and is replaced.
 */
import { availableParallelism } from "node:os";
import type { ResourceLimits } from "node:worker_threads";
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../prepared.js";
import type { SyncVerdict } from "../verify.js";
import { JobError, type JobErrorCode, ParallelError } from "./errors.js";
import { encodeJob } from "./job-codec.js";
import type {
  AttachExtensionMessage,
  AttachMessage,
  FromWorker,
  JobTimings,
  ToWorker,
  WireError,
  WireJob,
} from "./protocol.js";
import { sharePrepared, type SharedPrepared } from "./shared-prepared.js";
import { startWorker } from "./worker-start.js";
import { PoolCore, type CrashInfo, type PoolSlot } from "../../workers/pool-core.js";

export type { JobTimings } from "./protocol.js";

/** The outcome of one proving job: the inner-proof-v1 bytes, or the job's error. */
export type ProveOutcome =
  | { readonly index: number; readonly ok: true; readonly bytes: Uint8Array; readonly timings: JobTimings }
  | { readonly index: number; readonly ok: false; readonly error: JobError };

/**
 * The outcome of one verification job: the verdict of `verifyEncoded` (which rejects with a
 * code, it does not fail), or the job's error (e.g. `WORKER_CRASHED`).
 */
export type VerifyOutcome =
  | { readonly index: number; readonly ok: true; readonly verdict: SyncVerdict; readonly timings: JobTimings }
  | { readonly index: number; readonly ok: false; readonly error: JobError };

/**
 * The outcome of one extension job (`runExtension`): the worker's result (structured clone) and
 * bytes (transferred), or the job's error.
 */
export type ExtensionOutcome =
  | { readonly index: number; readonly ok: true; readonly result: unknown; readonly bytes?: Uint8Array }
  | { readonly index: number; readonly ok: false; readonly error: JobError };

/** One extension job: its description for the worker and a buffer transferred with it (copied first, so the job can be sent again after a crash). */
export interface ExtensionJob {
  readonly body: unknown;
  readonly buffer?: Uint32Array;
}

/** One item of a verification batch: the original request and the encoded proof to check against it. */
export interface VerifyItem {
  readonly request: OpRequest;
  readonly bytes: Uint8Array;
}

/** Options of `createSyncPool`: workers, heap limits, crash limit and prefetch. */
export interface SyncPoolOptions {
  /** Number of worker threads, 1..1024 (default `os.availableParallelism()`). */
  readonly workers?: number;
  /** V8 heap limits of each worker (e.g. to contain a runaway job; see `node:worker_threads`). */
  readonly resourceLimits?: ResourceLimits;
  /**
   * Crashes in a row (with no job completed in between) after which the pool stops respawning
   * and fails its queue with `POOL_BROKEN` (default 3 × workers).
   */
  readonly maxConsecutiveCrashes?: number;
  /**
   * Jobs sent to a busy worker ahead of time while the queue is long, 0..8 (default 1): the
   * worker starts its next job without waiting for the owning thread, which may be descheduled
   * when the workers use every core. Not-started jobs of a crashed worker are queued again.
   */
  readonly prefetch?: number;
  /**
   * The workers' entry module (default the sync pool's own, `worker.js`): a pool built on this
   * one passes an entry that calls `serveSyncJobs(extension)` to add its jobs (`runExtension`).
   */
  readonly worker?: URL;
}

/** Counters of a pool (for monitoring and tests). */
export interface SyncPoolStats {
  readonly workers: number;
  /** Jobs waiting for a worker. */
  readonly queued: number;
  /** Jobs a worker is running. */
  readonly running: number;
  /** Jobs answered by a worker (successful or failed). */
  readonly completed: number;
  /** Workers replaced after a crash. */
  readonly respawns: number;
  /** Prepared circuits shared with the workers and not released. */
  readonly prepared: number;
}

type AnyOutcome = ProveOutcome | VerifyOutcome | ExtensionOutcome;

interface Task {
  readonly type: "prove" | "verify" | "ext";
  readonly index: number;
  readonly preparedId: number;
  /** What a worker is sent once before its first task with this circuit. */
  readonly attach: AttachMessage | AttachExtensionMessage;
  readonly job: WireJob | ExtensionJob;
  readonly bytes?: Uint8Array;
  readonly settle: (outcome: AnyOutcome) => void;
  seq: number;
}

/** What the pool keeps per worker (the crash / respawn / close lifecycle is the shared core's, workers/pool-core.ts). */
interface SlotState {
  attached: Set<number>;
  /** Jobs sent to the worker and not answered yet, in sending order (the first one is running). */
  tasks: Task[];
}

type Slot = PoolSlot<SlotState>;

const worker_url = new URL("./worker.js", import.meta.url);

function jobError(code: JobErrorCode, message: string, index: number, details: Record<string, unknown> = {}): JobError {
  return new JobError(code, message, { ...details, index });
}

function remoteError(e: WireError, index: number): JobError {
  return jobError(e.code as JobErrorCode, e.message, index, { ...e.details, origin: e.name });
}

/** A copy of a job whose buffer can be transferred (the task keeps its own, to send it again if its worker dies first). */
function transferable<J extends WireJob | ExtensionJob>(job: J): { job: J; transfer: ArrayBuffer[] } {
  if ("binary" in job) {
    const binary = job.binary.slice();
    return { job: { binary } as J, transfer: [binary.buffer as ArrayBuffer] };
  }
  if ("body" in job && job.buffer instanceof Uint32Array) {
    const buffer = job.buffer.slice();
    return { job: { body: job.body, buffer } as J, transfer: [buffer.buffer as ArrayBuffer] };
  }
  return { job, transfer: [] };
}

function wireJob(request: OpRequest): WireJob {
  let binary: Uint32Array | null = null;
  try {
    binary = encodeJob(request);
  } catch {
    // e.g. a getter that throws: left to structured clone, which reports it per job
  }
  return binary ? { binary } : { clone: request };
}

/** A worker-thread pool for parallel proving and verification batches (see the module comment). */
export class SyncPool {
  /** Number of worker threads. */
  readonly size: number;
  private readonly maxCrashes: number;
  private readonly prefetch: number;
  private readonly core: PoolCore<SlotState>;
  private queue: Task[] = [];
  private head = 0;
  private readonly ids = new WeakMap<object, number>();
  private readonly live = new Set<number>();
  /** Detaches a circuit from the workers once its `PreparedSync` is garbage-collected. */
  private readonly collected = new FinalizationRegistry<number>((id) => this.detach(id));
  private nextId = 1;
  private nextSeq = 1;
  private completed = 0;

  /** Use `createSyncPool`. */
  constructor(options: SyncPoolOptions = {}) {
    const n = options.workers ?? availableParallelism();
    if (!Number.isInteger(n) || n < 1 || n > 1024)
      throw new ParallelError("BAD_OPTION", `workers must be an integer in [1, 1024], got ${String(n)}`, {
        workers: n,
      });
    const max = options.maxConsecutiveCrashes ?? 3 * n;
    if (!Number.isInteger(max) || max < 1)
      throw new ParallelError("BAD_OPTION", `maxConsecutiveCrashes must be a positive integer, got ${String(max)}`);
    this.size = n;
    this.maxCrashes = max;
    const prefetch = options.prefetch ?? 1;
    if (!Number.isInteger(prefetch) || prefetch < 0 || prefetch > 8)
      throw new ParallelError("BAD_OPTION", `prefetch must be an integer in [0, 8], got ${String(prefetch)}`);
    this.prefetch = prefetch;
    const workerOptions = options.resourceLimits ? { resourceLimits: options.resourceLimits } : {};
    const entry = options.worker ?? worker_url;
    this.core = new PoolCore<SlotState>({
      size: n,
      maxConsecutiveCrashes: max,
      unrefIdle: true,
      spawn: () => startWorker(entry, workerOptions),
      initialState: () => ({ attached: new Set(), tasks: [] }),
      onMessage: (slot, msg) => this.onMessage(slot, msg as FromWorker),
      onMessageError: (slot, err) => this.onMessageError(slot, err),
      onCrash: (slot, crash) => this.onCrash(slot, crash),
      onRespawn: () => this.pump(),
      onBroken: ({ crashes, reason }) => {
        for (const t of this.drainQueue()) {
          t.settle({
            index: t.index,
            ok: false,
            error: jobError(
              "POOL_BROKEN",
              `the pool stopped respawning workers after ${crashes} crashes in a row (last: ${reason})`,
              t.index,
            ),
          });
        }
      },
    });
  }

  private get slots(): readonly Slot[] {
    return this.core.slots;
  }

  /** Current counters. */
  stats(): SyncPoolStats {
    return {
      workers: this.size,
      queued: this.queue.length - this.head,
      running: this.slots.reduce((n, s) => n + s.state.tasks.length, 0),
      completed: this.completed,
      respawns: this.core.respawns,
      prepared: this.live.size,
    };
  }

  /**
   * prove_batch_parallel: witness, proof and inner-proof-v1 encoding of every job, in workers.
   * Outcomes are in input order; the bytes equal `encodeSyncResult(prepared,
   * provePrepared(prepared, job))` for any worker count. A failing job (e.g. `WITNESS`,
   * `WRONG_KIND`) has an error outcome with its index; the others are unaffected.
   * @throws ParallelError `POOL_CLOSED` or `POOL_BROKEN` if the pool cannot take jobs.
   */
  proveBatch(prepared: PreparedSync, jobs: readonly OpRequest[]): Promise<ProveOutcome[]> {
    return this.submit(
      "prove",
      prepared,
      jobs.map((request) => ({ request })),
    );
  }

  /**
   * verify_encoded_sync_op of every item, in workers; verdicts in input order, equal to
   * `verifyEncoded(prepared, item.request, item.bytes)`. The caller's bytes are copied, not
   * transferred.
   * @throws ParallelError `POOL_CLOSED` or `POOL_BROKEN` if the pool cannot take jobs.
   */
  verifyBatch(prepared: PreparedSync, items: readonly VerifyItem[]): Promise<VerifyOutcome[]> {
    return this.submit("verify", prepared, items);
  }

  /**
   * Jobs of the workers' extension (a pool started with an extension entry, `options.worker`):
   * one task per job on the shared queue, each worker attaching `circuit` once (`attachBody`,
   * the extension's description of it) before its first job with it. Outcomes are in input
   * order; a job's thrown error becomes its error outcome (code and details kept).
   * @param circuit the owner's object for the circuit (its id lives as long as it; `release` it).
   * @throws ParallelError `POOL_CLOSED` or `POOL_BROKEN` if the pool cannot take jobs.
   */
  runExtension(circuit: object, attachBody: unknown, jobs: readonly ExtensionJob[]): Promise<ExtensionOutcome[]> {
    return this.enqueue(
      circuit,
      (id) => ({ type: "attach-ext", id, body: attachBody }),
      jobs.map((job) => ({ type: "ext" as const, job })),
    );
  }

  /**
   * Lets the workers drop a prepared circuit now (they also drop it once the `PreparedSync` is
   * garbage-collected). A later batch with it shares it again.
   */
  release(prepared: object): void {
    const id = this.ids.get(prepared);
    if (id === undefined) return;
    this.ids.delete(prepared);
    this.collected.unregister(prepared);
    this.detach(id);
  }

  private detach(id: number): void {
    this.live.delete(id);
    if (this.core.closed) return;
    for (const slot of this.slots) {
      if (slot.state.attached.delete(id)) slot.worker.postMessage({ type: "detach", id } satisfies ToWorker);
    }
  }

  /**
   * Terminates every worker. Jobs not yet answered get `POOL_CLOSED` error outcomes; later
   * submissions throw `POOL_CLOSED`. Idempotent; resolves once every worker has exited.
   */
  close(): Promise<void> {
    if (this.core.closed) return this.core.close();
    const pending = this.drainQueue();
    for (const slot of this.slots) {
      pending.push(...slot.state.tasks);
      slot.state.tasks = [];
    }
    for (const t of pending)
      t.settle({
        index: t.index,
        ok: false,
        error: jobError("POOL_CLOSED", "the pool was closed before the job completed", t.index),
      });
    return this.core.close();
  }

  private submit(
    type: "prove" | "verify",
    prepared: PreparedSync,
    items: readonly { request: OpRequest; bytes?: Uint8Array }[],
  ): Promise<never[]> {
    if (this.core.closed) return Promise.reject(new ParallelError("POOL_CLOSED", "the pool is closed"));
    if (this.core.broken)
      return Promise.reject(
        new ParallelError(
          "POOL_BROKEN",
          `the pool stopped respawning workers after ${this.maxCrashes} crashes in a row`,
        ),
      );
    let shared: SharedPrepared;
    try {
      shared = sharePrepared(prepared);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue(
      prepared,
      (id) => ({ type: "attach", id, shared }),
      items.map((item) => {
        const bytes = type === "verify" ? item?.bytes : undefined;
        return { type, job: wireJob(item?.request), ...(bytes !== undefined ? { bytes } : {}) };
      }),
    );
  }

  /** Queues one task per item with the circuit's id (attached to each worker once), resolving with the outcomes in input order. */
  private enqueue(
    prepared: object,
    attach: (id: number) => AttachMessage | AttachExtensionMessage,
    items: readonly { type: Task["type"]; job: WireJob | ExtensionJob; bytes?: Uint8Array }[],
  ): Promise<never[]> {
    if (this.core.closed) return Promise.reject(new ParallelError("POOL_CLOSED", "the pool is closed"));
    if (this.core.broken)
      return Promise.reject(
        new ParallelError(
          "POOL_BROKEN",
          `the pool stopped respawning workers after ${this.maxCrashes} crashes in a row`,
        ),
      );
    let preparedId = this.ids.get(prepared);
    if (preparedId === undefined) {
      preparedId = this.nextId++;
      this.ids.set(prepared, preparedId);
      this.live.add(preparedId);
      this.collected.register(prepared, preparedId, prepared);
    }
    const id = preparedId;
    const attachMessage = attach(id);
    return new Promise((resolve) => {
      const outcomes = new Array<AnyOutcome>(items.length);
      let remaining = items.length;
      if (remaining === 0) {
        resolve([]);
        return;
      }
      const settle = (o: AnyOutcome): void => {
        outcomes[o.index] = o;
        if (--remaining === 0) resolve(outcomes as never[]);
      };
      items.forEach((item, index) => {
        this.queue.push({ ...item, index, preparedId: id, attach: attachMessage, settle, seq: 0 });
      });
      this.pump();
    });
  }

  private drainQueue(): Task[] {
    const rest = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    return rest;
  }

  /**
   * Hands queued jobs to workers: first one to each idle worker; then, while the queue stays
   * long (more than two jobs per worker left), up to `prefetch` more to each, so a worker starts
   * its next job without waiting for this thread to answer. Near the end of the queue nothing is
   * prefetched, so no job waits behind another while a worker is idle.
   */
  private pump(): void {
    const take = (): Task => {
      const task = this.queue[this.head++]!;
      if (this.head === this.queue.length) this.drainQueue();
      return task;
    };
    for (const slot of this.slots) {
      while (slot.state.tasks.length === 0 && this.head < this.queue.length) this.dispatch(slot, take());
    }
    for (const slot of this.slots) {
      while (
        slot.state.tasks.length > 0 &&
        slot.state.tasks.length <= this.prefetch &&
        this.queue.length - this.head > 2 * this.size
      )
        this.dispatch(slot, take());
    }
  }

  private dispatch(slot: Slot, task: Task): void {
    task.seq = this.nextSeq++;
    try {
      if (!slot.state.attached.has(task.preparedId)) {
        slot.worker.postMessage(task.attach satisfies ToWorker);
        slot.state.attached.add(task.preparedId);
      }
      // A copy of the binary job is transferred: the task keeps its own, to send it again if
      // this worker dies before starting it.
      const { job, transfer } = transferable(task.job);
      if (task.type === "ext") {
        const ext = job as ExtensionJob;
        slot.worker.postMessage(
          {
            type: "ext",
            seq: task.seq,
            id: task.preparedId,
            body: ext.body,
            ...(ext.buffer ? { buffer: ext.buffer } : {}),
          } satisfies ToWorker,
          transfer,
        );
      } else if (task.type === "prove") {
        slot.worker.postMessage(
          { type: "prove", seq: task.seq, id: task.preparedId, job: job as WireJob } satisfies ToWorker,
          transfer,
        );
      } else {
        slot.worker.postMessage(
          {
            type: "verify",
            seq: task.seq,
            id: task.preparedId,
            job: job as WireJob,
            bytes: task.bytes!,
          } satisfies ToWorker,
          transfer,
        );
      }
    } catch (err) {
      task.settle({
        index: task.index,
        ok: false,
        error: jobError("JOB_ENCODING", `the job cannot be sent to a worker: ${(err as Error).message}`, task.index),
      });
      return;
    }
    slot.state.tasks.push(task);
    this.core.busy(slot);
  }

  private finish(slot: Slot): void {
    slot.state.tasks.shift();
    this.pump();
    if (slot.state.tasks.length === 0) this.core.idle(slot);
  }

  private onMessage(slot: Slot, msg: FromWorker): void {
    const task = slot.state.tasks[0];
    if (!task || msg.type !== "done" || msg.seq !== task.seq) return;
    this.completed++;
    this.core.noteSuccess();
    if (msg.ok) {
      if (task.type === "ext")
        task.settle({ index: task.index, ok: true, result: msg.result, ...(msg.bytes ? { bytes: msg.bytes } : {}) });
      else if (task.type === "prove")
        task.settle({ index: task.index, ok: true, bytes: msg.bytes!, timings: msg.timings });
      else task.settle({ index: task.index, ok: true, verdict: msg.verdict!, timings: msg.timings });
    } else {
      task.settle({ index: task.index, ok: false, error: remoteError(msg.error, task.index) });
    }
    this.finish(slot);
  }

  private onMessageError(slot: Slot, err: unknown): void {
    const task = slot.state.tasks[0];
    if (!task) return;
    task.settle({
      index: task.index,
      ok: false,
      error: jobError("JOB_ENCODING", `the worker's answer could not be received: ${String(err)}`, task.index),
    });
    this.finish(slot);
  }

  /** A worker died: its running job fails with `WORKER_CRASHED`, the ones it had not started are queued again. */
  private onCrash(slot: Slot, { exitCode, reason }: CrashInfo): void {
    const [task, ...waiting] = slot.state.tasks;
    slot.state.tasks = [];
    if (task) {
      task.settle({
        index: task.index,
        ok: false,
        error: jobError("WORKER_CRASHED", `the worker running this job crashed: ${reason}`, task.index, {
          exitCode,
          reason,
        }),
      });
    }
    // Jobs the worker had not started go back to the front of the queue, in order.
    this.queue.splice(this.head, 0, ...waiting);
  }
}

/**
 * Starts a pool of `options.workers` worker threads (default: available cores).
 * @throws ParallelError `BAD_OPTION`.
 */
export function createSyncPool(options: SyncPoolOptions = {}): SyncPool {
  return new SyncPool(options);
}
