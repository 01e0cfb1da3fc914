/**
 * The commitment's worker pool (`createPcsPool`): worker threads (worker.ts) that share the
 * prover's bulk work, called synchronously through the seam (src/pcs/parallel.ts).
 *
 * Kernel calls (`kernelCalls`, what the WASM backend uses): each worker attaches once to the
 * calling thread's kernel memory (the shared WebAssembly memory, its module and constants); a
 * batch of calls (writing disjoint memory, src/kernels/pcs-split.ts) is posted to every live
 * worker (its doorbell rung, so that a worker lingering after its last batch takes it at once,
 * worker.ts `linger`), the threads take calls from one atomic counter, the calling thread runs calls too and
 * then waits (`Atomics.wait`) for those the workers hold. A call is never run twice.
 *
 * Grinding (`grind`): the threads take ranges of candidates in order from one control block,
 * each searching with its own hashing kernels; the least witness found is kept (grind.ts).
 *
 * Merkle trees (`merkle`, for a backend without kernel memory):
 * One call: the codeword is shared with the workers (a SharedArrayBuffer, in place when it
 * already is one, as the kernels' memory is; else copied once), the tree is cut into aligned
 * chunks of rows (chunks.ts), the job is posted to every live worker, and the calling thread
 * takes chunks too; once every chunk is taken, it hashes those whose worker has not finished yet
 * (the first thread to finish a chunk writes it, protocol.ts), waits (`Atomics.wait`) for any
 * being written, and compresses the few levels above the chunks. Chunks are taken from an atomic
 * counter, so a slow thread takes fewer, and a descheduled worker never holds the call up. A tree of fewer than two chunks is hashed on the calling thread alone. The tree, and so
 * every commitment and proof, is the one the calling thread's backend gives alone.
 *
 * Lifecycle: the shared pool core (src/workers/pool-core.ts) with unref'd workers (they never
 * keep a process alive; the calling thread is busy while they work), crash detection and
 * respawn. A worker that dies or fails during a call makes that call throw `PCS_WORKER_CRASHED`
 * (unless the calling thread had already finished the chunk it held) and is replaced; after three crashes in a row the pool stops replacing and every call throws
 * it. After `close`, calls throw `PCS_POOL_CLOSED`.
 */
import { Worker } from "node:worker_threads";
import { PoolCore, type PoolSlot } from "../workers/pool-core.js";
import { P } from "../field/koalabear.js";
import { currentHashBackend } from "../hash/backend.js";
import { grindRanges } from "./grind.js";
import { PcsError } from "../pcs/index.js";
import { pcsMerkle, type MerkleTree, type PcsKernelCall } from "../pcs/backend.js";
import type { LeafWidth } from "../pcs/params.js";
import { sharedCopy, type PcsKernelWorkers } from "../pcs/parallel.js";
import { chunkTree, finishTree, levelsWords, writeChunk, type TreeJob } from "./chunks.js";
import {
  BY_WORKERS,
  CHUNK_DONE,
  CHUNK_OPEN,
  CHUNK_WRITING,
  CONTROL_WORDS,
  DONE,
  FAILED_EXITED,
  FAILED_KIND,
  FAILED_SLOT,
  NEXT,
  GRIND_BEST,
  GRIND_CONTROL_WORDS,
  GRIND_NONE,
  type CallsMessage,
  type GrindMessage,
  type JobMessage,
  type PoolMessage,
  type WorkerFault,
} from "./protocol.js";

/** Options of `createPcsPool`. */
export interface PcsPoolOptions {
  /** Worker threads, an integer in [1, 256] (default 1); the calling thread hashes a share besides them. */
  readonly threads?: number;
  /** Fewest rows per chunk, a power of two in [4, 2^20] (default 2^11): smaller trees stay on the calling thread. */
  readonly minChunkRows?: number;
  /**
   * Fewest elements of a kernel operation (NTT, Möbius transform, fold, sumcheck round, eq table,
   * Horner evaluation, lift; Merkle rows × 16, tree nodes × 8) spread over the pool, a power of two
   * in [4, 2^30] (default 2^15): smaller ones run on the calling thread.
   */
  readonly minCallElements?: number;
}

/** Options of the process that start a script a worker cannot take (`-e` / `-p` code, `--input-type`), each with whether it takes the next argument. */
const SCRIPT_OPTIONS: Readonly<Record<string, boolean>> = {
  "-e": true,
  "--eval": true,
  "-p": true,
  "--print": true,
  "--input-type": true,
};

/** The process's options without those that give it a script (the workers inherit the rest, e.g. `--import`). */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!;
    if (a.startsWith("--input-type=") || a.startsWith("--eval=") || a.startsWith("--print=")) continue;
    if (SCRIPT_OPTIONS[a] !== undefined) {
      if (SCRIPT_OPTIONS[a]) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Chunks per participating thread the pool aims for (more, smaller chunks balance a loaded machine). */
const CHUNKS_PER_THREAD = 16;
/** Crashes in a row after which the pool stops replacing workers. */
const MAX_CRASHES = 3;
/** Longest single wait of the calling thread, ms (it re-reads the control block after each). */
const WAIT_SLICE_MS = 50;
/** Most candidates per range of a grinding search (about 1.4 ms of permutations). */
const GRIND_CHUNK_MAX = 1 << 12;
/** Fewest candidates per range of a grinding search. */
const GRIND_CHUNK_MIN = 1 << 8;

/**
 * Candidates per range of a search of `bits` bits: about a sixteenth of the 2^bits candidates it
 * takes on average (so that every thread takes ranges before the witness is found), between
 * GRIND_CHUNK_MIN and GRIND_CHUNK_MAX.
 */
export function grindChunk(bits: number): number {
  return Math.min(GRIND_CHUNK_MAX, Math.max(GRIND_CHUNK_MIN, 2 ** (bits - 4)));
}

/** Each worker's doorbell (worker.ts `linger`), by worker. */
const doors = new WeakMap<Worker, Int32Array>();

/** Posts a message to a worker and rings its doorbell, which wakes it if it lingers after its last message. */
function post(worker: Worker, message: PoolMessage): void {
  worker.postMessage(message);
  const door = doors.get(worker);
  if (door === undefined) return;
  Atomics.add(door, 0, 1);
  Atomics.notify(door, 0);
}

interface SlotState {
  ready: boolean;
  /** The worker ended during a call: no job goes to it until its replacement starts. */
  dead: boolean;
  /** The kernel memory it is attached to (`kernelCalls`), or null. */
  memory: object | null;
}

/**
 * A pool of worker threads that hash Merkle trees of codeword rows for the WHIR prover (see the
 * module comment). Pass it as the `workers` option of `whirCommit` / `whirOpen`; close it when done
 * (an unclosed pool does not keep the process alive).
 * @example
 *   const pool = createPcsPool({ threads: 3 });
 *   const committed = whirCommit(evaluations, { workers: pool });
 *   const proof = whirOpen(committed, claims, { workers: pool }); // the same bytes as without the pool
 *   await pool.close();
 */
export class PcsPool implements PcsKernelWorkers {
  /** Worker threads. */
  readonly threads: number;
  /** Fewest rows per chunk. */
  readonly minChunkRows: number;
  /** Fewest elements of a kernel operation spread over the pool. */
  readonly minCallElements: number;
  private readonly core: PoolCore<SlotState>;
  private brokenReason: string | null = null;
  private fault: WorkerFault | null = null;
  private readonly readyWaiters: (() => void)[] = [];
  private counts = { trees: 0, chunks: 0, workerChunks: 0, batches: 0, calls: 0, workerCalls: 0, grinds: 0 };

  /** @throws PcsError `PCS_BAD_OPTION` (see `PcsPoolOptions`). */
  constructor(options: PcsPoolOptions = {}) {
    if (options === null || typeof options !== "object")
      throw new PcsError("PCS_BAD_OPTION", "pool options must be an object");
    const threads = options.threads ?? 1;
    if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
      throw new PcsError("PCS_BAD_OPTION", `threads must be an integer in [1, 256], got ${String(threads)}`, {
        threads,
      });
    }
    const minChunkRows = options.minChunkRows ?? 1 << 11;
    if (
      !Number.isInteger(minChunkRows) ||
      minChunkRows < 4 ||
      minChunkRows > 1 << 20 ||
      (minChunkRows & (minChunkRows - 1)) !== 0
    ) {
      throw new PcsError(
        "PCS_BAD_OPTION",
        `minChunkRows must be a power of two in [4, 2^20], got ${String(minChunkRows)}`,
        { minChunkRows },
      );
    }
    const minCallElements = options.minCallElements ?? 1 << 15;
    if (
      !Number.isInteger(minCallElements) ||
      minCallElements < 4 ||
      minCallElements > 2 ** 30 ||
      (minCallElements & (minCallElements - 1)) !== 0
    ) {
      throw new PcsError(
        "PCS_BAD_OPTION",
        `minCallElements must be a power of two in [4, 2^30], got ${String(minCallElements)}`,
        { minCallElements },
      );
    }
    this.threads = threads;
    this.minChunkRows = minChunkRows;
    this.minCallElements = minCallElements;
    const url = new URL("./worker.js", import.meta.url);
    this.core = new PoolCore<SlotState>({
      size: threads,
      maxConsecutiveCrashes: MAX_CRASHES,
      unrefIdle: true,
      spawn: (slot) => {
        // The worker's doorbell (worker.ts `linger`): rung after each message posted to it.
        const door = new Int32Array(new SharedArrayBuffer(4));
        const worker = new Worker(url, { workerData: { slot, door }, execArgv: workerExecArgv(process.execArgv) });
        doors.set(worker, door);
        return worker;
      },
      initialState: () => ({ ready: false, dead: false, memory: null }),
      onMessage: (slot, message) => {
        if ((message as { kind?: unknown }).kind !== "ready") return;
        slot.state.ready = true;
        this.wakeReady();
      },
      onCrash: (slot) => {
        slot.state.dead = true;
      },
      onRespawn: (_previous, fresh) => {
        if (this.readyWaiters.length > 0) this.core.busy(fresh);
        else this.core.idle(fresh);
      },
      onBroken: ({ crashes, reason }) => {
        this.brokenReason = `${crashes} workers crashed in a row (last: ${reason})`;
        this.wakeReady();
      },
    });
    // The core unrefs a new worker before it attaches its 'message' listener, which refs the port again.
    for (const slot of this.core.slots) this.core.idle(slot);
  }

  /**
   * Since the pool started: trees hashed in chunks, their chunks, and how many of those the
   * workers hashed (the rest: the calling thread); batches of kernel calls, their calls, and how
   * many of those the workers ran; grinding searches.
   */
  get stats(): {
    readonly trees: number;
    readonly chunks: number;
    readonly workerChunks: number;
    readonly batches: number;
    readonly calls: number;
    readonly workerCalls: number;
    readonly grinds: number;
  } {
    return { ...this.counts };
  }

  /**
   * Runs each of `calls` once on the workers, attached to the calling thread's kernel memory
   * (`shared`, `Kernels.share()`), and on the calling thread (`local`), which takes calls from the
   * same counter and then waits (`Atomics.wait`) for those the workers hold. The calls of one batch
   * write disjoint memory (src/kernels/pcs-split.ts). `alongside` runs once on the calling thread
   * after the workers have the batch, before it takes calls.
   * @throws PcsError `PCS_POOL_CLOSED` after `close`; `PCS_WORKER_CRASHED` when a worker died or
   *   failed during the call, or the pool stopped replacing crashed workers.
   */
  kernelCalls(
    shared: object,
    calls: readonly PcsKernelCall[],
    local: (call: PcsKernelCall) => void,
    alongside?: () => void,
  ): void {
    this.checkOpen();
    const live = this.core.slots.filter((s) => !s.state.dead);
    if (live.length === 0 || calls.length < 2) {
      alongside?.();
      for (const c of calls) local(c);
      return;
    }
    const memory = (shared as { memory: object }).memory;
    const control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS));
    const fault = this.fault;
    this.fault = null;
    if (fault !== null) Atomics.store(control, NEXT, 1); // call 0 is the faulty worker's
    live.forEach((slot, i) => {
      if (slot.state.memory !== memory) {
        post(slot.worker, { kind: "attach", shared });
        slot.state.memory = memory;
      }
      const message: CallsMessage =
        fault !== null && i === 0
          ? { kind: "calls", calls, control, reserved: 0, fault }
          : { kind: "calls", calls, control };
      post(slot.worker, message);
    });
    let localTaken = 0;
    try {
      alongside?.();
      for (
        let i = Atomics.add(control, NEXT, 1);
        i < calls.length && Atomics.load(control, FAILED_SLOT) === 0;
        i = Atomics.add(control, NEXT, 1)
      ) {
        localTaken++;
        local(calls[i]!);
        Atomics.add(control, DONE, 1);
      }
    } catch (e) {
      // No call starts any more; the workers finish those they hold before the caller frees their memory.
      const taken = Math.min(calls.length, Atomics.exchange(control, NEXT, calls.length));
      const workersTaken = taken - localTaken;
      while (Atomics.load(control, FAILED_SLOT) === 0) {
        const byWorkers = Atomics.load(control, BY_WORKERS);
        if (byWorkers >= workersTaken) break;
        Atomics.wait(control, DONE, Atomics.load(control, DONE), WAIT_SLICE_MS);
      }
      throw e;
    }
    for (;;) {
      const failed = Atomics.load(control, FAILED_SLOT);
      if (failed !== 0) this.crashed(failed - 1, Atomics.load(control, FAILED_KIND));
      const done = Atomics.load(control, DONE);
      if (done >= calls.length) break;
      Atomics.wait(control, DONE, done, WAIT_SLICE_MS);
    }
    this.core.noteSuccess();
    this.counts.batches++;
    this.counts.calls += calls.length;
    this.counts.workerCalls += Atomics.load(control, BY_WORKERS);
  }

  /**
   * The least grinding witness of `bits` bits for the transcript state `template` (witness at lane
   * `lane`), searched in ranges of `grindChunk(bits)` candidates by the workers and the calling thread
   * with their hashing backends' `grindSearch` (src/pcs/backend.ts `PcsKernelRunner.grind`): the
   * witness `DuplexChallenger.grind` finds.
   * @throws PcsError `PCS_POOL_CLOSED` after `close`; `PCS_WORKER_CRASHED` when a worker died or
   *   failed during the search, or the pool stopped replacing crashed workers; `PCS_BAD_OPTION`
   *   when this thread's hashing backend has no `grindSearch`.
   */
  grind(template: Uint32Array, lane: number, bits: number): number {
    this.checkOpen();
    const search = currentHashBackend().grindSearch;
    if (search === undefined)
      throw new PcsError("PCS_BAD_OPTION", "this thread's hashing backend cannot search grinding witnesses");
    const backend = currentHashBackend();
    const local = (t: Uint32Array, l: number, m: number, start: number, count: number): number =>
      search.call(backend, t, l, m, start, count);
    const mask = ((1 << bits) - 1) >>> 0;
    const control = new Int32Array(new SharedArrayBuffer(4 * GRIND_CONTROL_WORDS));
    Atomics.store(control, GRIND_BEST, GRIND_NONE);
    const live = this.core.slots.filter((s) => !s.state.dead);
    const chunk = grindChunk(bits);
    const message: GrindMessage = { kind: "grind", template, lane, mask, chunk, control };
    for (const slot of live) post(slot.worker, message);
    grindRanges(control, template, lane, mask, chunk, local, false);
    const ranges = Math.ceil(P / chunk);
    for (;;) {
      const failed = Atomics.load(control, FAILED_SLOT);
      if (failed !== 0) this.crashed(failed - 1, Atomics.load(control, FAILED_KIND));
      const done = Atomics.load(control, DONE);
      if (done >= Math.min(Atomics.load(control, NEXT), ranges)) break;
      Atomics.wait(control, DONE, done, WAIT_SLICE_MS);
    }
    const best = Atomics.load(control, GRIND_BEST);
    if (best === GRIND_NONE) throw new PcsError("PCS_WORKER_CRASHED", `no grinding witness for ${bits} bits below p`);
    this.core.noteSuccess();
    this.counts.grinds++;
    return best;
  }

  private checkOpen(): void {
    if (this.core.closed) throw new PcsError("PCS_POOL_CLOSED", "this commitment worker pool was closed");
    if (this.brokenReason !== null)
      throw new PcsError(
        "PCS_WORKER_CRASHED",
        `the commitment worker pool stopped replacing workers: ${this.brokenReason}`,
      );
  }

  /** True once `close` was called. */
  get closed(): boolean {
    return this.core.closed;
  }

  /** Resolves once every worker has started and installed its kernels (calls before that simply give the started workers less work). */
  ready(): Promise<void> {
    if (this.allReady()) return Promise.resolve();
    // The workers keep the process alive while it waits for them.
    for (const s of this.core.slots) this.core.busy(s);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private allReady(): boolean {
    return this.brokenReason !== null || this.core.closed || this.core.slots.every((s) => s.state.ready);
  }

  private wakeReady(): void {
    if (!this.allReady()) return;
    if (!this.core.closed) for (const s of this.core.slots) this.core.idle(s);
    for (const w of this.readyWaiters.splice(0)) w();
  }

  /**
   * The Merkle tree of a natural-order codeword's rows of 2^k values, hashed by the workers and
   * the calling thread, leaves hashed by the sponge of `leafWidth`: the tree `pcsMerkle` gives (src/pcs/backend.ts).
   * @throws PcsError `PCS_POOL_CLOSED` after `close`; `PCS_WORKER_CRASHED` when a worker died or
   *   failed during the call, or the pool stopped replacing crashed workers.
   */
  merkle(codeword: Uint32Array, width: number, logDomain: number, k: number, leafWidth: LeafWidth = 16): MerkleTree {
    this.checkOpen();
    const logRows = logDomain - k;
    const participants = this.threads + 1;
    const target = Math.ceil(Math.log2(CHUNKS_PER_THREAD * participants));
    const logChunk = Math.min(logRows, Math.max(Math.log2(this.minChunkRows), logRows - target));
    const live = this.core.slots.filter((s) => !s.state.dead);
    if (logChunk >= logRows || live.length === 0) return pcsMerkle(codeword, width, logDomain, k, leafWidth);
    const shared = codeword.buffer instanceof SharedArrayBuffer ? codeword : sharedCopy(codeword);
    const job: TreeJob = {
      codeword: shared,
      width,
      logDomain,
      k,
      logChunk,
      levels: new Uint32Array(new SharedArrayBuffer(4 * levelsWords(logRows))),
      leafWidth,
    };
    const chunks = 1 << (logRows - logChunk);
    const control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS));
    const states = new Int32Array(new SharedArrayBuffer(4 * chunks));
    const fault = this.fault;
    this.fault = null;
    if (fault !== null) Atomics.store(control, NEXT, 1); // chunk 0 is the faulty worker's
    live.forEach((slot, i) => {
      const message: JobMessage =
        fault !== null && i === 0
          ? { kind: "tree", job, control, states, chunks, reserved: 0, fault }
          : { kind: "tree", job, control, states, chunks };
      post(slot.worker, message);
    });
    const take = (chunk: number): void => {
      if (Atomics.compareExchange(states, chunk, CHUNK_OPEN, CHUNK_WRITING) !== CHUNK_OPEN) return;
      writeChunk(job, chunk, chunkTree(job, chunk));
      Atomics.store(states, chunk, CHUNK_DONE);
      Atomics.add(control, DONE, 1);
    };
    for (
      let chunk = Atomics.add(control, NEXT, 1);
      chunk < chunks && Atomics.load(control, FAILED_SLOT) === 0;
      chunk = Atomics.add(control, NEXT, 1)
    )
      take(chunk);
    // Every chunk is taken: rather than wait for a worker that is slow (a loaded machine), hash what is still open here.
    // Not with an injected fault, whose chunk must stay the faulty worker's.
    if (fault === null)
      for (let chunk = chunks - 1; chunk >= 0 && Atomics.load(control, FAILED_SLOT) === 0; chunk--)
        if (Atomics.load(states, chunk) === CHUNK_OPEN) take(chunk);
    for (;;) {
      const failed = Atomics.load(control, FAILED_SLOT);
      if (failed !== 0) this.crashed(failed - 1, Atomics.load(control, FAILED_KIND));
      const done = Atomics.load(control, DONE);
      if (done >= chunks) break;
      Atomics.wait(control, DONE, done, WAIT_SLICE_MS);
    }
    this.core.noteSuccess();
    this.counts.trees++;
    this.counts.chunks += chunks;
    this.counts.workerChunks += Atomics.load(control, BY_WORKERS);
    return finishTree(job);
  }

  private crashed(slotIndex: number, kind: number): never {
    const slot: PoolSlot<SlotState> | undefined = this.core.slots[slotIndex];
    const exited = kind === FAILED_EXITED;
    if (exited && slot !== undefined) slot.state.dead = true;
    throw new PcsError(
      "PCS_WORKER_CRASHED",
      `commitment worker ${slotIndex} ${exited ? "ended" : "failed"} while it hashed a share of a Merkle tree; the call was abandoned${exited ? " and the worker is replaced" : ""}`,
      { slot: slotIndex, exited },
    );
  }

  /** Test hook: the next call that uses the workers (a tree or a batch of kernel calls) makes its first live worker fail on a chunk or call reserved for it (`"exit"`: its thread ends; `"throw"`: it throws). */
  injectWorkerFault(fault: WorkerFault): void {
    this.fault = fault;
  }

  /** Stops the workers; later calls throw `PCS_POOL_CLOSED`. Idempotent. */
  close(): Promise<void> {
    // The workers keep the process alive until they have exited (a caller may await this).
    if (!this.core.closed) for (const s of this.core.slots) this.core.busy(s);
    const closing = this.core.close();
    this.wakeReady();
    return closing;
  }
}

/**
 * A pool of `threads` worker threads hashing the Merkle trees of the WHIR prover, for the
 * `workers` option of `whirCommit` / `whirOpen` (docs/pcs.md, "Worker pool"). Proofs are
 * byte-identical with and without it.
 * @throws PcsError `PCS_BAD_OPTION` for `threads` not an integer in [1, 256], `minChunkRows` not a power of two in [4, 2^20] or `minCallElements` not a power of two in [4, 2^30].
 * @example
 *   const pool = createPcsPool({ threads: Math.max(1, availableParallelism() - 1) });
 *   const committed = whirCommit(evaluations, { workers: pool });
 */
export function createPcsPool(options: PcsPoolOptions = {}): PcsPool {
  return new PcsPool(options);
}
