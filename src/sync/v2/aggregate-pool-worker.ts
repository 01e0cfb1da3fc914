/**
 * Worker entry of the aggregate pool (aggregate-pool.ts): the sync pool's jobs, plus profile v2
 * circuits prepared here (`prepareV2`, commitment checked against the owner's) and one
 * `proveAggregate` per job.
 */
import { digestEquals } from "../../hash/digest.js";
import type { OpRequest } from "../../smt/operation.js";
import { ParallelError, decodeJobs, serveSyncJobs } from "../parallel/index.js";
import { type AggregateTimings, proveAggregate } from "./aggregate.js";
import type { AggregateCircuitBody, AggregateJobBody, AggregateJobTimings } from "./aggregate-pool.js";
import { type PreparedV2, prepareV2 } from "./prepared.js";

const circuits = new Map<number, PreparedV2>();

serveSyncJobs({
  attach(id, body) {
    const b = body as AggregateCircuitBody;
    const p = prepareV2(b.kind, { depth: b.depth, leafMaxFields: b.leafMaxFields });
    if (!digestEquals(p.commitment, b.commitment)) {
      throw new ParallelError(
        "BAD_SHARED",
        `the worker's profile v2 circuit (${b.kind}, depth ${b.depth}, B ${b.leafMaxFields}) has another commitment than the owner's`,
      );
    }
    circuits.set(id, p);
  },
  detach(id) {
    circuits.delete(id);
  },
  run(id, body, buffer) {
    const t0 = performance.now();
    const job = body as AggregateJobBody;
    const requests: readonly OpRequest[] = job.packed ? decodeJobs(buffer!) : job.requests;
    const decodeMs = performance.now() - t0;
    let phases: AggregateTimings | null = null;
    const bytes = proveAggregate(circuits.get(id)!, requests, (t) => {
      phases = t;
    });
    const result: AggregateJobTimings = { ...phases!, decodeMs };
    return { result, bytes };
  },
});
