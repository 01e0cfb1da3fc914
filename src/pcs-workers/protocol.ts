/**
 * What the pool (pool.ts) posts to its workers (worker.ts) and the control words they share.
 * A job's control block is an Int32Array on a SharedArrayBuffer: the threads take chunks from
 * `NEXT` (Atomics.add), count finished chunks in `DONE` (and notify on it), and a thread that
 * fails writes its slot in `FAILED_SLOT` and how in `FAILED_KIND` (then notifies on `DONE`).
 *
 * Each chunk also has a state word (`JobMessage.states`): `CHUNK_OPEN` until a thread that has
 * its subtree wins it (compare-and-exchange to `CHUNK_WRITING`), writes it into the levels buffer
 * and marks it `CHUNK_DONE`. Only the winner writes, so the calling thread may hash a chunk a
 * slow worker still holds (it takes the chunk's state first) and a worker that loses simply drops
 * its subtree: once the call returns, no worker writes into its tree.
 */
import type { PcsKernelCall } from "../pcs/backend.js";
import type { TreeJob } from "./chunks.js";

/** Index of the next chunk to take. */
export const NEXT = 0;
/** Chunks hashed so far (the calling thread waits on this word). */
export const DONE = 1;
/** 1 + the slot of the first worker that failed (0: none). */
export const FAILED_SLOT = 2;
/** How it failed: `FAILED_THREW` or `FAILED_EXITED`. */
export const FAILED_KIND = 3;
/** Chunks hashed by the workers (the rest by the calling thread). */
export const BY_WORKERS = 4;
/** Words of a control block. */
export const CONTROL_WORDS = 5;

/** The worker caught an exception while hashing (it stays alive). */
export const FAILED_THREW = 1;
/** The worker's thread ended while it held a chunk. */
export const FAILED_EXITED = 2;

/** A chunk no thread has written yet. */
export const CHUNK_OPEN = 0;
/** A thread is writing the chunk's subtree. */
export const CHUNK_WRITING = 1;
/** The chunk's subtree is in the levels buffer. */
export const CHUNK_DONE = 2;

/** A fault a test makes a worker commit on its reserved chunk (pool.ts `injectWorkerFault`). */
export type WorkerFault = "exit" | "throw";

/** One tree job, as posted to every live worker. */
export interface JobMessage {
  readonly kind: "tree";
  readonly job: TreeJob;
  readonly control: Int32Array;
  /** One state word per chunk (`CHUNK_OPEN`, `CHUNK_WRITING`, `CHUNK_DONE`). */
  readonly states: Int32Array;
  readonly chunks: number;
  /** A chunk reserved for this worker before the others take from `NEXT` (fault injection only). */
  readonly reserved?: number;
  readonly fault?: WorkerFault;
}

/**
 * Attaches the worker to the calling thread's kernel memory (`Kernels.share()`, src/kernels):
 * the kernel calls that follow address it. Sent before the first calls job, and again when the
 * calling thread's kernels change.
 */
export interface AttachMessage {
  readonly kind: "attach";
  /** The `SharedKernels` of the calling thread (module, shared memory, constants region). */
  readonly shared: object;
}

/**
 * One batch of kernel calls on the attached memory: the threads take calls from `NEXT`, count
 * finished ones in `DONE` (and notify on it); a call is never taken twice, so the calling thread
 * waits for the calls its workers hold. A failure is reported as for trees.
 */
export interface CallsMessage {
  readonly kind: "calls";
  readonly calls: readonly PcsKernelCall[];
  readonly control: Int32Array;
  /** A call reserved for this worker before the others take from `NEXT` (fault injection only). */
  readonly reserved?: number;
  readonly fault?: WorkerFault;
}

/** Word of a grinding job's control block holding the least witness found so far (`GRIND_NONE`: none). */
export const GRIND_BEST = 5;
/** Words of a grinding job's control block. */
export const GRIND_CONTROL_WORDS = 6;
/** `GRIND_BEST` before any witness is found. */
export const GRIND_NONE = 0x7fffffff;

/**
 * One grinding search (docs/pcs.md §4.6): the threads take ranges of `chunk` candidates in order
 * from `NEXT`, search each with their hashing backend's `grindSearch`, lower `GRIND_BEST` to the
 * least witness they find, and count each range they took in `DONE`; a range above the best
 * witness is skipped. Every range below the least witness is searched, so the result is the least
 * witness whatever the order ranges finish in.
 */
export interface GrindMessage {
  readonly kind: "grind";
  readonly template: Uint32Array;
  readonly lane: number;
  readonly mask: number;
  readonly chunk: number;
  readonly control: Int32Array;
}

/** Every message the pool posts to a worker. */
export type PoolMessage = JobMessage | AttachMessage | CallsMessage | GrindMessage;

/** What a worker posts once its kernels are installed. */
export interface ReadyMessage {
  readonly kind: "ready";
}

/** How long (ms) a worker waits on its doorbell after a message before it returns to its event loop (worker.ts `linger`). */
export const LINGER_MS = 25;
