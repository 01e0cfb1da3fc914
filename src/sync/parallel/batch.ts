/**
 * One-call parallel batches (compat-v1 §13.3 prove_batch_parallel, §15): on a given pool, or on
 * a pool started for the call and closed after it.
 */
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../prepared.js";
import {
  createSyncPool,
  type ProveOutcome,
  type SyncPool,
  type SyncPoolOptions,
  type VerifyItem,
  type VerifyOutcome,
} from "./pool.js";

/** Options of the one-call `proveBatch` / `verifyBatch`: a pool to use, or the options of one started for the call. */
export interface ParallelBatchOptions extends SyncPoolOptions {
  /** Run on this pool (its own worker count applies); otherwise a pool is started and closed. */
  readonly pool?: SyncPool;
}

async function withPool<T>(options: ParallelBatchOptions, run: (pool: SyncPool) => Promise<T>): Promise<T> {
  if (options.pool) return run(options.pool);
  const pool = createSyncPool(options);
  try {
    return await run(pool);
  } finally {
    await pool.close();
  }
}

/**
 * Proves a batch of jobs of one kind in worker threads: witness, proof and inner-proof-v1 bytes
 * per job, outcomes in input order, bytes identical to the sequential path for any worker count.
 * Starting a pool costs one module load per worker and one sharing of the prepared circuit;
 * for repeated batches keep a pool (`createSyncPool`) and pass it as `options.pool`.
 * @throws ParallelError `BAD_OPTION`, `POOL_CLOSED`, `POOL_BROKEN`.
 */
export function proveBatch(
  prepared: PreparedSync,
  jobs: readonly OpRequest[],
  options: ParallelBatchOptions = {},
): Promise<ProveOutcome[]> {
  return withPool(options, (pool) => pool.proveBatch(prepared, jobs));
}

/**
 * Verifies encoded proofs against their requests in worker threads (`verifyEncoded` per item),
 * verdicts in input order.
 * @throws ParallelError `BAD_OPTION`, `POOL_CLOSED`, `POOL_BROKEN`.
 */
export function verifyBatch(
  prepared: PreparedSync,
  items: readonly VerifyItem[],
  options: ParallelBatchOptions = {},
): Promise<VerifyOutcome[]> {
  return withPool(options, (pool) => pool.verifyBatch(prepared, items));
}
