/**
 * Worker entry of the profile v2 aggregate prover (`AggregateProver`): prepares the three kinds
 * at the server's depth, runs the aggregate controls, then proves one aggregate per message.
 */
import { parentPort } from "node:worker_threads";
import { SsgkrError } from "../../errors.js";
import type { OpRequest } from "../../smt/operation.js";
import { type AggregateTimings, proveAggregate } from "../../sync/v2/aggregate.js";
import { OP_KIND_NAMES } from "../../statement/types.js";
import { type PreparedV2, prepareV2 } from "../../sync/v2/prepared.js";
import { runAggregateControls } from "./aggregate-controls.js";
import type { ControlsReport } from "./controls.js";

/** Messages to the aggregate worker. */
export type ToAggregateWorker =
  | { readonly type: "start"; readonly depth: number; readonly controlSamples: number }
  | { readonly type: "prove"; readonly seq: number; readonly kind: number; readonly requests: readonly OpRequest[] };

/** Messages from the aggregate worker. */
export type FromAggregateWorker =
  | { readonly type: "ready"; readonly controls: ControlsReport; readonly prepareMs: number }
  | { readonly type: "failed"; readonly code: string; readonly message: string }
  | {
      readonly type: "proved";
      readonly seq: number;
      readonly ok: true;
      readonly bytes: Uint8Array;
      readonly timings: AggregateTimings;
    }
  | {
      readonly type: "proved";
      readonly seq: number;
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly operation: number | null;
    };

const port = parentPort;
if (port) {
  let prepared: PreparedV2[] = [];
  port.on("message", (msg: ToAggregateWorker) => {
    if (msg.type === "start") {
      try {
        const t0 = performance.now();
        prepared = OP_KIND_NAMES.map((k) => prepareV2(k, { depth: msg.depth }));
        const prepareMs = performance.now() - t0;
        const controls =
          msg.controlSamples > 0
            ? runAggregateControls(prepared, msg.controlSamples)
            : { references: { membership: [], nonmembership: [], update: [] }, checks: 0, ms: 0 };
        port.postMessage({ type: "ready", controls, prepareMs } satisfies FromAggregateWorker);
      } catch (err) {
        port.postMessage({
          type: "failed",
          code: err instanceof SsgkrError ? err.code : "UNEXPECTED",
          message: err instanceof Error ? err.message : String(err),
        } satisfies FromAggregateWorker);
      }
      return;
    }
    try {
      let timings: AggregateTimings | null = null;
      const bytes = proveAggregate(prepared[msg.kind]!, msg.requests, (t) => {
        timings = t;
      });
      port.postMessage({
        type: "proved",
        seq: msg.seq,
        ok: true,
        bytes,
        timings: timings!,
      } satisfies FromAggregateWorker);
    } catch (err) {
      const e = err as SsgkrError;
      const operation = typeof e.details?.["operation"] === "number" ? (e.details["operation"] as number) : null;
      port.postMessage({
        type: "proved",
        seq: msg.seq,
        ok: false,
        code: err instanceof SsgkrError ? e.code : "UNEXPECTED",
        message: err instanceof Error ? err.message : String(err),
        operation,
      } satisfies FromAggregateWorker);
    }
  });
}
