/**
 * Indexed batches (compat-v1 §15): independent jobs of one kind, each with its own witness,
 * transcript and proof, byte-identical to the single path; results in input order.
 */
import type { OpRequest } from "../smt/operation.js";
import type { PreparedSync } from "./prepared.js";
import { provePrepared, type SyncResult } from "./prove.js";

/** One job's outcome: its input index and either a result or the error that stopped it. */
export type BatchOutcome =
  | { readonly index: number; readonly ok: true; readonly result: SyncResult }
  | { readonly index: number; readonly ok: false; readonly error: Error };

/**
 * prove_batch_prepared: proves every job in input order on this thread. A failing job does not
 * stop the others; its outcome carries the error.
 */
export function proveBatchSequential(prepared: PreparedSync, jobs: readonly OpRequest[]): BatchOutcome[] {
  return jobs.map((job, index) => {
    try {
      return { index, ok: true, result: provePrepared(prepared, job) };
    } catch (err) {
      return { index, ok: false, error: err as Error };
    }
  });
}
