/**
 * One compute batch of a profile v2 server (docs/serving.md "Profile v2"): the batch's requests
 * proved as one aggregate (docs/profile-v2.md §10) in the aggregate worker, then one served
 * aggregate per job (the aggregate, the batch's job inputs, the job's operation index).
 *
 * Phase fields: the batch's wall time (flush → served aggregates built) is split in proportion to
 * the worker's circuit + witness, GKR, and encoding times (encoding also counts building the
 * served aggregates on this thread).
 */
import type { OpRequest } from "../../smt/operation.js";
import { nowUnixNs } from "../protocol/clock.js";
import type { JobInput } from "../protocol/job.js";
import { stringifyJson } from "../protocol/json.js";
import { WITNESS_ERROR_PREFIX } from "../protocol/refusals.js";
import { servedAggregateBatchPart, servedAggregateFor } from "../protocol/served-aggregate.js";
import type { AggregateProver } from "./aggregate-prover.js";
import { type BatchResult, splitPhases } from "./compute.js";

/**
 * Proves the batch (`requests[i]` built from `inputs[i]`) as one aggregate. A witness failure
 * fails every job with `witness: …`, any other failure every job with `prove: <CODE>: <message>`
 * (one proof covers them all).
 */
export async function computeAggregateBatch(
  prover: AggregateProver,
  kind: number,
  requests: readonly OpRequest[],
  inputs: readonly JobInput[],
  flushUnixNs: bigint = nowUnixNs(),
): Promise<BatchResult> {
  const o = await prover.prove(kind, requests);
  const t0 = performance.now();
  if (!o.ok) {
    const error =
      o.code === "WITNESS"
        ? o.message.startsWith(WITNESS_ERROR_PREFIX)
          ? o.message
          : WITNESS_ERROR_PREFIX + o.message
        : `prove: ${o.code}: ${o.message}`;
    return {
      results: requests.map(() => ({ ok: false, error })),
      times: phaseTimes(flushUnixNs, nowUnixNs(), 0, 0, 0),
      workerMs: 0,
    };
  }
  let results: BatchResult["results"];
  try {
    const part = servedAggregateBatchPart(requests.length, o.bytes, Buffer.from(stringifyJson(inputs), "utf8"));
    results = requests.map((_, i) => ({ ok: true, bytes: servedAggregateFor(part, i) }));
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const error = `prove: ${e.code ?? "ERROR"}: ${e.message ?? String(err)}`;
    results = requests.map(() => ({ ok: false, error }));
  }
  const t = o.timings;
  const envelopeMs = performance.now() - t0;
  return {
    results,
    times: phaseTimes(flushUnixNs, nowUnixNs(), t.circuitMs + t.witnessMs, t.proveMs, t.encodeMs + envelopeMs),
    workerMs: t.circuitMs + t.witnessMs + t.proveMs + t.encodeMs,
  };
}

function phaseTimes(flush: bigint, end: bigint, w: number, p: number, e: number): BatchResult["times"] {
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
