/**
 * The proving pool (docs/http.md "How it runs"): worker threads (worker.ts), each with the
 * registry open read-only and its circuits prepared, that make every proof a registry server
 * hands out — names' proofs at a root, in every mode, and the parts of committed batches' blocks
 * — so the thread that serves requests only routes, reads and writes.
 *
 * Two queues, one per kind, each bounded (`PROVER_BUSY` past the bound, before any work). A free
 * worker takes a read first, except that when both kinds wait the kinds take turns; block parts
 * never hold the last worker (with N ≥ 2 workers at most N − 1 prove blocks at once, so one is
 * always free for reads), and with one worker reads and blocks alternate, so neither starves. A
 * worker that exits or fails mid-job is replaced and its job retried once on the new worker; a
 * second failure rejects the job (`WORKER_CRASHED`).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { SsgkrError } from "../errors.js";
import type { NameProof } from "../counterparty/prove.js";
import type { ReadStatementJson } from "../counterparty/claim.js";
import { ProvingError } from "./errors.js";
import type { PoolJob, PoolReady, PoolReply, PoolWorkerData, ProvedBlockPart, ReadProfile } from "./jobs.js";

/** Options of `ProvingPool.start`. */
export interface ProvingPoolOptions {
  /** The registry directory (name-keyed); each worker opens it read-only. */
  readonly dir: string;
  /** Worker threads (default one per core, `os.availableParallelism()`), 1..64. */
  readonly workers?: number;
  /** Read proofs waiting for a worker before `PROVER_BUSY` (default 256). */
  readonly maxQueuedReads?: number;
  /** Block parts waiting for a worker before `PROVER_BUSY` (default 64). */
  readonly maxQueuedBlocks?: number;
  /**
   * Keep one worker free of block parts for read proofs (default true: a server). False lets
   * blocks take every worker (`registry prove-blocks`, where nothing else is proved).
   */
  readonly reserveReadWorker?: boolean;
  /**
   * Each worker prepares the read proofs' circuits (one proof of each mode) before it is ready
   * (default true: a server's first reads do not wait for them). False: a pool that proves only
   * blocks (`registry prove-blocks`) starts sooner, each worker preparing the block circuit with
   * its first part.
   */
  readonly prepareReads?: boolean;
}

/** What the pool has done and holds now (`GET /v1/status`). */
export interface ProvingPoolStats {
  readonly workers: number;
  readonly busy: number;
  readonly queued: { readonly read: number; readonly block: number };
  readonly done: { readonly read: number; readonly block: number };
  /** Jobs retried after their worker died. */
  readonly retried: number;
  /** Workers that died and were replaced. */
  readonly replaced: number;
  /**
   * A pool on a broker (src/proof-jobs): the server it is connected to (last), whether the
   * connection is up now, results dropped as copies of results already used (or of jobs no
   * longer waited for), results refused.
   */
  readonly broker?: {
    readonly server: string;
    readonly connected: boolean;
    readonly duplicates: number;
    readonly refused: number;
  };
}

/**
 * What a registry server proves with (src/http): this pool of threads, or a pool of the same
 * rules whose jobs go to workers on other machines over a broker (src/proof-jobs). Errors are
 * `ProvingError`s (`PROVER_BUSY` past a queue's bound, before any work) and the proofs' own.
 */
export interface ProverPool {
  /** Workers proving now (threads, or the broker's workers seen lately). */
  readonly workers: number;
  /** Block parts proved at once at most. */
  readonly blockCapacity: number;
  /** A name's membership or absence proof at `root`, in `profile`. */
  proveRead(name: string, root: ArrayLike<number>, profile: ReadProfile): Promise<NameProof<ReadStatementJson>>;
  /** Part `part` of committed batch `batch`'s profile v3 block. */
  proveBlockPart(batch: number, part: number): Promise<ProvedBlockPart>;
  /** What the pool holds and has done. */
  stats(): ProvingPoolStats;
  /** Ends the pool; jobs not yet done reject with `PROVER_CLOSED`. Idempotent. */
  close(): Promise<void>;
}

type Kind = "read" | "block";
type Payload =
  | { kind: "read"; name: string; root: readonly number[]; profile: ReadProfile }
  | { kind: "block"; batch: number; part: number };

interface Pending {
  readonly id: number;
  readonly payload: Payload;
  readonly resolve: (reply: PoolReply) => void;
  readonly reject: (e: unknown) => void;
  tries: number;
}

interface Slot {
  worker: Worker;
  job: Pending | undefined;
  /** Its worker died and a new one is starting: the slot takes no job until that one is ready. */
  starting: boolean;
}

/** Starts one worker; resolves once it is ready. @throws ProvingError `WORKER_CRASHED` when it cannot start. */
function spawn(dir: string, prepareReads: boolean): Promise<{ worker: Worker; prepareMs: number }> {
  const worker = new Worker(new URL("./worker.js", import.meta.url), {
    workerData: { dir, prepareReads } satisfies PoolWorkerData,
  });
  return new Promise((resolve, reject) => {
    const fail = (message: string, code = "INTERNAL") => {
      void worker.terminate();
      reject(new ProvingError("WORKER_CRASHED", `a proving worker could not start: ${message}`, { code }));
    };
    worker.once("message", (m: PoolReady) => {
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (m.ready) resolve({ worker, prepareMs: m.prepareMs });
      else fail(`${m.code}: ${m.message}`, m.code);
    });
    const onError = (e: Error) => fail(e.message);
    const onExit = (code: number) => fail(`it exited (${code})`);
    worker.once("error", onError);
    worker.once("exit", onExit);
  });
}

/**
 * A pool of proving workers over one registry (see the file comment).
 * @example
 *   const pool = await ProvingPool.start({ dir: "./registry", workers: 2 });
 *   const p = await pool.proveRead("left-pad", [...store.head().root], "v3");
 *   await pool.close();
 */
export class ProvingPool implements ProverPool {
  private readonly slots: Slot[] = [];
  private readonly queues: Record<Kind, Pending[]> = { read: [], block: [] };
  private readonly done = { read: 0, block: 0 };
  private retried = 0;
  private replaced = 0;
  private nextId = 1;
  private lastKind: Kind = "block";
  private closed = false;
  private readonly maxQueued: Record<Kind, number>;

  private constructor(
    private readonly dir: string,
    workers: Worker[],
    options: ProvingPoolOptions,
    /** Milliseconds each worker took to open the registry and prepare its circuits. */
    readonly prepareMs: readonly number[],
  ) {
    for (const w of workers) this.slots.push(this.watch({ worker: w, job: undefined, starting: false }));
    this.maxQueued = { read: options.maxQueuedReads ?? 256, block: options.maxQueuedBlocks ?? 64 };
    this.reserve = options.reserveReadWorker !== false;
    this.prepareReads = options.prepareReads !== false;
  }

  /** Whether a worker prepares the read circuits before it is ready (a replacement too). */
  private readonly prepareReads: boolean;

  /** Whether one worker is kept free of block parts. */
  private readonly reserve: boolean;

  /**
   * Starts the workers and resolves once every one is ready (registry open, circuits prepared).
   * @throws ProvingError `WORKER_CRASHED` when a worker cannot start (the others are ended).
   */
  static async start(options: ProvingPoolOptions): Promise<ProvingPool> {
    const n = options.workers ?? availableParallelism();
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new ProvingError("WORKER_CRASHED", `a proving pool has 1..64 workers, got ${n}`, { code: "BAD_OPTION" });
    const started = await Promise.allSettled(
      Array.from({ length: n }, () => spawn(options.dir, options.prepareReads !== false)),
    );
    const failed = started.find((s) => s.status === "rejected");
    if (failed !== undefined) {
      await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.worker.terminate() : undefined)));
      throw (failed as PromiseRejectedResult).reason;
    }
    const ok = started as PromiseFulfilledResult<{ worker: Worker; prepareMs: number }>[];
    return new ProvingPool(
      options.dir,
      ok.map((s) => s.value.worker),
      options,
      ok.map((s) => s.value.prepareMs),
    );
  }

  /** Worker threads. */
  get workers(): number {
    return this.slots.length;
  }

  /** Block parts the pool proves at once at most: all workers but one (one with a single worker), or all without the reserve. */
  get blockCapacity(): number {
    return this.reserve ? Math.max(1, this.slots.length - 1) : this.slots.length;
  }

  /**
   * A name's membership or absence proof at `root` (a root of the retention window), in `profile`.
   * @throws ProvingError `PROVER_BUSY` (queue full, at once), `PROVER_CLOSED`, `WORKER_CRASHED`;
   *   the registry's errors of the proof (`ROOT_UNKNOWN`, `ROOT_NOT_PROVABLE`, `BAD_NAME`, …) as
   *   `SsgkrError`s with their codes and details.
   */
  async proveRead(name: string, root: ArrayLike<number>, profile: ReadProfile): Promise<NameProof<ReadStatementJson>> {
    const reply = await this.submit({ kind: "read", name, root: Array.from(root), profile });
    return (reply as { read: NameProof<ReadStatementJson> }).read;
  }

  /**
   * Part `part` of committed batch `batch`'s profile v3 block, replayed and proved on a worker.
   * @throws ProvingError as `proveRead`; the registry's errors of the replay or proof
   *   (`ROOT_NOT_PROVABLE`, `CHANGES_NOT_RECORDED`, `PROOF_FAILED`, `DB_CORRUPT`).
   */
  async proveBlockPart(batch: number, part: number): Promise<ProvedBlockPart> {
    const reply = await this.submit({ kind: "block", batch, part });
    return (reply as { block: ProvedBlockPart }).block;
  }

  /** What the pool holds and has done. */
  stats(): ProvingPoolStats {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job !== undefined || s.starting).length,
      queued: { read: this.queues.read.length, block: this.queues.block.length },
      done: { ...this.done },
      retried: this.retried,
      replaced: this.replaced,
    };
  }

  /** Ends every worker; jobs not yet done reject with `PROVER_CLOSED`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const gone = new ProvingError("PROVER_CLOSED", "the proving pool was closed");
    for (const q of Object.values(this.queues)) for (const p of q.splice(0)) p.reject(gone);
    for (const s of this.slots) {
      s.job?.reject(gone);
      s.job = undefined;
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private submit(payload: Payload): Promise<PoolReply> {
    if (this.closed) return Promise.reject(new ProvingError("PROVER_CLOSED", "the proving pool is closed"));
    const q = this.queues[payload.kind];
    if (q.length >= this.maxQueued[payload.kind])
      return Promise.reject(
        new ProvingError("PROVER_BUSY", `${q.length} ${payload.kind} proofs already wait for a worker; retry later`, {
          kind: payload.kind,
          queued: q.length,
        }),
      );
    return new Promise<PoolReply>((resolve, reject) => {
      q.push({ id: this.nextId++, payload, resolve, reject, tries: 0 });
      this.dispatch();
    });
  }

  /** Hands waiting jobs to free workers (see the file comment for the order). */
  private dispatch(): void {
    for (;;) {
      const free = this.slots.find((s) => s.job === undefined && !s.starting);
      if (free === undefined) return;
      const kind = this.nextKind();
      if (kind === undefined) return;
      const job = this.queues[kind].shift()!;
      this.lastKind = kind;
      this.run(free, job);
    }
  }

  private nextKind(): Kind | undefined {
    const reads = this.queues.read.length > 0;
    const blocks = this.queues.block.length > 0;
    const busyBlocks = this.slots.filter((s) => s.job?.payload.kind === "block").length;
    const blockOk = blocks && busyBlocks < this.blockCapacity;
    if (reads && blockOk) return this.lastKind === "read" ? "block" : "read";
    if (reads) return "read";
    if (blockOk) return "block";
    return undefined;
  }

  private run(slot: Slot, job: Pending): void {
    slot.job = job;
    job.tries++;
    slot.worker.postMessage({ id: job.id, ...job.payload } as PoolJob);
  }

  /** Listens to a worker: replies settle its job; an exit or error replaces it and retries the job once. */
  private watch(slot: Slot): Slot {
    const w = slot.worker;
    w.on("message", (m: PoolReply) => {
      const job = slot.job;
      if (job === undefined || m.id !== job.id) return;
      slot.job = undefined;
      this.done[job.payload.kind]++;
      if (m.ok) job.resolve(m);
      else job.reject(new SsgkrError(m.code, m.message, m.details));
      this.dispatch();
    });
    let gone = false;
    const lost = (why: string) => {
      if (this.closed || gone) return;
      gone = true;
      const job = slot.job;
      void w.terminate();
      this.replaced++;
      // the slot keeps its job (retried on the new worker) and takes no other until that one is ready
      slot.starting = true;
      spawn(this.dir, this.prepareReads).then(
        ({ worker }) => {
          if (this.closed) return void worker.terminate();
          slot.worker = worker;
          slot.job = undefined;
          slot.starting = false;
          this.watch(slot);
          if (job !== undefined) {
            if (job.tries >= 2)
              job.reject(
                new ProvingError("WORKER_CRASHED", `the worker proving this ${job.payload.kind} proof ${why}, twice`),
              );
            else {
              this.retried++;
              this.run(slot, job);
              return;
            }
          }
          this.dispatch();
        },
        (e: unknown) => {
          slot.job = undefined;
          job?.reject(e);
          // the slot stays starting: a pool whose workers cannot start proves with the others
        },
      );
    };
    w.on("error", (e) => lost(`failed (${e.message})`));
    w.on("exit", (code) => lost(`exited (${code})`));
    return slot;
  }
}
