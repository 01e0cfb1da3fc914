/**
 * One compute batch (compat-v1 §16.4): witnesses, proofs and inner-proof-v1 encodings of a
 * batch of one kind, in parallel on the worker pool (`SyncPool.proveBatch`), outcomes in batch
 * order.
 *
 * In the pool the three steps run back to back per job in one worker (no barrier between them),
 * so the batch has no global witness/prove/encode boundaries. The Reply's phase fields are
 * derived from the batch's wall time (flush → last outcome) split in proportion to the worker
 * time spent in each step over the batch (witness includes decoding the job in the worker):
 * witness_end = flush + batch_witness_ns, prove_end = witness_end + batch_prove_ns,
 * encode_end = the time the last outcome arrived.
 */
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncPool } from "../../sync/parallel/pool.js";
import { nowUnixNs } from "../protocol/clock.js";
import { WITNESS_ERROR_PREFIX } from "../protocol/refusals.js";

/** Per-job result of a batch: proof bytes or an error reason for the reply. */
export type JobResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly error: string };

/** Batch-wide times of the Reply (unix ns and ns). */
export interface BatchTimes {
  readonly flushUnixNs: bigint;
  readonly witnessEndUnixNs: bigint;
  readonly proveEndUnixNs: bigint;
  readonly encodeEndUnixNs: bigint;
  readonly witnessNs: bigint;
  readonly proveNs: bigint;
  readonly encodeNs: bigint;
}

export interface BatchResult {
  readonly results: readonly JobResult[];
  readonly times: BatchTimes;
  /** Worker CPU time over the batch's jobs, ms (decode + witness + prove + encode). */
  readonly workerMs: number;
}

/**
 * Splits `total` ns into three parts proportional to the weights (last part takes the rounding).
 */
export function splitPhases(total: bigint, w: number, p: number, e: number): [bigint, bigint, bigint] {
  const sum = w + p + e;
  if (!(sum > 0) || total <= 0n) return [0n, total > 0n ? total : 0n, 0n];
  const a = BigInt(Math.round(Number(total) * (w / sum)));
  const b = BigInt(Math.round(Number(total) * (p / sum)));
  const aa = a > total ? total : a;
  const bb = aa + b > total ? total - aa : b;
  return [aa, bb, total - aa - bb];
}

/**
 * Proves a batch of requests of `prepared`'s kind on `pool`. A witness failure of any job fails
 * every job of the batch with `witness: …` (§16.3); any other failure of a job (worker crash,
 * pool closed) fails only that job with `prove: <CODE>: <message>`.
 */
export async function computeBatch(
  pool: SyncPool,
  prepared: PreparedSync,
  requests: readonly OpRequest[],
  flushUnixNs: bigint = nowUnixNs(),
): Promise<BatchResult> {
  let outcomes;
  try {
    outcomes = await pool.proveBatch(prepared, requests);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const error = `prove: ${e.code ?? "ERROR"}: ${e.message ?? String(err)}`;
    const end = nowUnixNs();
    return {
      results: requests.map(() => ({ ok: false, error })),
      times: phaseTimes(flushUnixNs, end, 0, 0, 0),
      workerMs: 0,
    };
  }
  const end = nowUnixNs();
  let w = 0,
    p = 0,
    e = 0;
  let witnessFailure: string | null = null;
  for (const o of outcomes) {
    if (o.ok) {
      w += o.timings.decodeMs + o.timings.witnessMs;
      p += o.timings.proveMs;
      e += o.timings.encodeMs;
    } else if (o.error.code === "WITNESS" && witnessFailure === null) {
      witnessFailure = o.error.message.startsWith(WITNESS_ERROR_PREFIX)
        ? o.error.message
        : WITNESS_ERROR_PREFIX + o.error.message;
    }
  }
  const times = phaseTimes(flushUnixNs, end, w, p, e);
  const results: JobResult[] = outcomes.map((o) => {
    if (witnessFailure !== null) return { ok: false, error: witnessFailure };
    if (o.ok) return { ok: true, bytes: o.bytes };
    return { ok: false, error: `prove: ${o.error.code}: ${o.error.message}` };
  });
  return { results, times, workerMs: w + p + e };
}

function phaseTimes(flush: bigint, end: bigint, w: number, p: number, e: number): BatchTimes {
  const total = end > flush ? end - flush : 0n;
  const [wn, pn, en] = splitPhases(total, w, p, e);
  return {
    flushUnixNs: flush,
    witnessEndUnixNs: flush + wn,
    proveEndUnixNs: flush + wn + pn,
    encodeEndUnixNs: flush + total,
    witnessNs: wn,
    proveNs: pn,
    encodeNs: en,
  };
}
