/**
 * The worker seam of the polynomial commitment: a pool of worker threads (src/pcs-workers) may
 * share the prover's work. A pool that runs kernel calls on this thread's kernel memory
 * (`PcsKernelWorkers`) is the active kernel runner (src/pcs/backend.ts) while a commitment or an
 * opening runs (`withPcsWorkers`), and the WASM backend spreads its bulk operations — NTT,
 * Möbius transform, folds, sumcheck rounds, eq tables, Horner evaluation, lifts, Merkle trees —
 * over it; otherwise the pool hashes the Merkle trees of codeword rows (leaf sponges and tree
 * layers, docs/pcs.md §4.3) in chunks. Every result is the same either way, so the commitment and
 * every proof are byte-identical with and without a pool (test/pcs/pool.test.ts).
 *
 * Which pool a prover uses: the `workers` option of `whirCommit` / `whirOpen` (a pool, or `null`
 * for this thread only); without the option, the default pool, which only the public entry
 * `statesync-gkr/pcs` (src/pcs.ts) installs, and only on a machine with more than one core.
 * Importing this folder installs nothing.
 */
import { PcsError } from "./errors.js";
import {
  currentPcsBackend,
  pcsMerkle,
  withKernelRunner,
  type MerkleTree,
  type PcsKernelRunner,
  type PcsMerkleFn,
} from "./backend.js";
import type { LeafWidth } from "./params.js";

/**
 * What the prover asks of a pool: the Merkle tree of a natural-order codeword's rows of 2^k
 * elements, computed synchronously (the calling thread waits, and hashes a share itself).
 * `createPcsPool` (src/pcs-workers) makes one.
 */
export interface PcsMerkleWorkers {
  /** Worker threads of the pool (the calling thread hashes besides them). */
  readonly threads: number;
  /** True once the pool was closed: a call that names it throws `PCS_POOL_CLOSED` before any work. */
  readonly closed: boolean;
  /** The tree `pcsMerkle(codeword, width, logDomain, k, leafWidth)` gives (src/pcs/backend.ts). @throws PcsError `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED`. */
  merkle(codeword: Uint32Array, width: number, logDomain: number, k: number, leafWidth?: LeafWidth): MerkleTree;
}

/**
 * A pool that can also run kernel calls on the caller's kernel memory (`PcsKernelRunner`,
 * src/pcs/backend.ts): the backend then spreads the NTT, the Möbius transform, folds, the
 * sumcheck round, eq tables, Horner evaluation and the Merkle trees over it.
 */
export interface PcsKernelWorkers extends PcsMerkleWorkers, PcsKernelRunner {}

/** Whether a pool can run kernel calls on the caller's kernel memory (`PcsKernelWorkers`). */
export function sharesKernels(workers: PcsMerkleWorkers | null): workers is PcsKernelWorkers {
  return workers !== null && typeof (workers as { kernelCalls?: unknown }).kernelCalls === "function";
}

/**
 * Runs `fn` with `workers` as the pool the backend's bulk operations may spread over, when it
 * shares the kernels' memory (`withKernelRunner`, src/pcs/backend.ts). The prover's commitment
 * and opening run inside it.
 */
export function withPcsWorkers<T>(workers: PcsMerkleWorkers | null, fn: () => T): T {
  return withKernelRunner(sharesKernels(workers) ? workers : null, fn);
}

/** The default pool: a pool, or a provider called on first use (returning `null` for none). */
export type PcsWorkersProvider = () => PcsMerkleWorkers | null;

let provider: PcsWorkersProvider | null = null;
let current: PcsMerkleWorkers | null = null;

/**
 * Sets the pool the prover uses when a call gives no `workers` option: a pool, a provider called
 * on first use, or `null` for none (this thread's backend only, the initial state).
 * @example useDefaultPcsWorkers(null); // one thread from now on
 */
export function useDefaultPcsWorkers(workers: PcsMerkleWorkers | PcsWorkersProvider | null): void {
  if (typeof workers === "function") {
    provider = workers;
    current = null;
  } else {
    provider = null;
    current = workers;
  }
}

/** The default pool (made by its provider on first call), or `null`. */
export function defaultPcsWorkers(): PcsMerkleWorkers | null {
  if (current === null && provider !== null) {
    current = provider();
    provider = null;
  }
  return current;
}

/**
 * The pool a call uses: `option` when given (`null`: none), else the default pool (none once
 * the default pool was closed).
 * @throws PcsError `PCS_BAD_OPTION` when `option` is neither a pool nor `null`/`undefined`; `PCS_POOL_CLOSED` for a closed pool.
 */
export function resolvePcsWorkers(option: PcsMerkleWorkers | null | undefined): PcsMerkleWorkers | null {
  if (option === undefined) {
    const d = defaultPcsWorkers();
    return d !== null && d.closed ? null : d; // a closed default pool: this thread only
  }
  if (option === null) return null;
  if (typeof option !== "object" || typeof (option as { merkle?: unknown }).merkle !== "function") {
    throw new PcsError("PCS_BAD_OPTION", "workers must be a pool made by createPcsPool, or null for one thread");
  }
  if (option.closed) throw new PcsError("PCS_POOL_CLOSED", "this commitment worker pool was closed");
  return option;
}

/** The Merkle tree of a codeword's rows (leaves by the sponge of `leafWidth`) on `workers` when given, else on this thread's backend; `alongside` as in `PcsBackend.merkle`. */
export function merkleOn(workers: PcsMerkleWorkers | null, ...args: Parameters<PcsMerkleFn>): MerkleTree {
  if (workers === null) return pcsMerkle(...args);
  // A pool that shares the kernels' memory hashes through the backend, which spreads the tree over it.
  if (sharesKernels(workers) && currentPcsBackend().name === "wasm")
    return withPcsWorkers(workers, () => pcsMerkle(...args));
  const [codeword, width, logDomain, k, leafWidth = 16, alongside] = args;
  const tree = workers.merkle(codeword, width, logDomain, k, leafWidth);
  alongside?.();
  return tree;
}

/** A copy of `values` in a SharedArrayBuffer (what a pool's workers read in place). */
export function sharedCopy(values: Uint32Array): Uint32Array {
  const out = new Uint32Array(new SharedArrayBuffer(values.byteLength));
  out.set(values);
  return out;
}
