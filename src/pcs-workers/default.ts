/**
 * The default pool of the commitment: installed only by the public entry `statesync-gkr/pcs`
 * (src/pcs.ts) or an explicit `installDefaultPcsPool()`, and only when the machine has more than
 * one core. The pool itself is made on first use (the first Merkle tree a prover hashes without a
 * `workers` option), so importing the entry starts no thread.
 */
import { availableParallelism } from "node:os";
import { PcsError } from "../pcs/index.js";
import { useDefaultPcsWorkers } from "../pcs/parallel.js";
import { createPcsPool } from "./pool.js";

/** Worker threads of the default pool on this machine: one less than the available cores (the calling thread hashes too), at least 1. */
export function defaultPcsThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Makes a pool of `threads` workers (default `defaultPcsThreads()`) the one every commitment and
 * opening uses when it gives no `workers` option, created on first use; does nothing on a
 * machine with one core. Returns whether a default pool was installed. The pool's workers are
 * unref'd: it never keeps the process alive.
 * @throws PcsError `PCS_BAD_OPTION` for `threads` not an integer in [1, 256].
 * @example installDefaultPcsPool({ threads: 2 }); // whirCommit(evals) now hashes on 2 workers + this thread
 */
export function installDefaultPcsPool(options: { readonly threads?: number } = {}): boolean {
  const threads = options.threads ?? defaultPcsThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new PcsError("PCS_BAD_OPTION", `threads must be an integer in [1, 256], got ${String(threads)}`, { threads });
  }
  if (availableParallelism() <= 1) return false;
  useDefaultPcsWorkers(() => createPcsPool({ threads }));
  return true;
}

/** Removes the default pool (closing nothing: a pool already made stays usable as an explicit `workers` option until closed). */
export function uninstallDefaultPcsPool(): void {
  useDefaultPcsWorkers(null);
}
