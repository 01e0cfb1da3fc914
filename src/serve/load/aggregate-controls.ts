/**
 * The frontend's controls for profile v2 (docs/serving.md "Profile v2"), run before any offer:
 * for each kind of the mixture, the aggregate of fixtures 0 … control-samples − 1 (proved here,
 * on the calling thread) must be accepted by `verifyAggregate` in the verification pool, and
 * these variants rejected: one appended byte (`aggregate_appended_byte`), eval_x of layer 0 + 1
 * re-encoded (`aggregate_eval_x_layer0_plus_1`), value_digest[0] + 1 in operation 0's request
 * (`aggregate_value_digest0_plus_1`) and, with two or more operations, the requests in reverse
 * order (`aggregate_reversed`). Served aggregates depend on how the server batched the jobs, so
 * there are no control reference hashes.
 */
import { decodeAggregateV2 } from "../../codec/v2/decode.js";
import { encodeAggregateV2 } from "../../codec/v2/encode.js";
import { SsgkrError } from "../../errors.js";
import { add } from "../../field/koalabear.js";
import type { OpRequest } from "../../smt/operation.js";
import type { OpKindName } from "../../statement/types.js";
import { proveAggregate } from "../../sync/v2/aggregate.js";
import { prepareV2 } from "../../sync/v2/prepared.js";
import type { ControlCheck, ControlsReport } from "./controls.js";
import { LoadError } from "./errors.js";
import type { VerifyPool } from "./verify-pool.js";

function tamperEvalX(bytes: Uint8Array): Uint8Array {
  const d = decodeAggregateV2(bytes);
  const layers = d.proof.layers.map((l, i) =>
    i === 0 ? { ...l, evalX: [add(l.evalX[0], 1), l.evalX[1], l.evalX[2], l.evalX[3]] as const } : l,
  );
  return encodeAggregateV2(d.identity, d.statementChecks, { layers });
}

/**
 * Runs the v2 controls for `kinds` (each once) at `depth`: aggregates proved on this thread,
 * verified on `pool` (which must have the kinds attached with `attachV2`).
 * @throws LoadError `CONTROLS` if an honest aggregate cannot be produced.
 */
export async function runAggregateControls(
  pool: VerifyPool,
  fixture: (kind: OpKindName, fixtureId: number) => OpRequest,
  kinds: readonly OpKindName[],
  samples: number,
  depth: number,
): Promise<ControlsReport> {
  const t0 = performance.now();
  const checks: ControlCheck[] = [];
  if (samples === 0) return { status: "CONTROLS_PASS", references: new Map(), checks, ms: 0 };
  const pending: Promise<void>[] = [];
  for (const kind of new Set(kinds)) {
    const requests = Array.from({ length: samples }, (_, i) => fixture(kind, i));
    let bytes: Uint8Array;
    try {
      bytes = proveAggregate(prepareV2(kind, { depth }), requests);
    } catch (err) {
      if (err instanceof SsgkrError)
        throw new LoadError("CONTROLS", `control aggregate of ${kind} failed: ${err.code}: ${err.message}`, { kind });
      throw err;
    }
    const appended = new Uint8Array(bytes.length + 1);
    appended.set(bytes);
    const r0 = requests[0]!;
    const bumped = Uint32Array.from(r0.publicInputs.valueDigest);
    bumped[0] = add(bumped[0]!, 1);
    const items: { requests: readonly OpRequest[]; bytes: Uint8Array; check: string }[] = [
      { requests, bytes, check: "aggregate_honest" },
      { requests, bytes: appended, check: "aggregate_appended_byte" },
      { requests, bytes: tamperEvalX(bytes), check: "aggregate_eval_x_layer0_plus_1" },
      {
        requests: [{ ...r0, publicInputs: { ...r0.publicInputs, valueDigest: bumped } }, ...requests.slice(1)],
        bytes,
        check: "aggregate_value_digest0_plus_1",
      },
    ];
    if (samples >= 2) items.push({ requests: [...requests].reverse(), bytes, check: "aggregate_reversed" });
    for (const item of items) {
      pending.push(
        pool.verifyAggregate(kind, depth, item.requests, item.bytes).then((v) => {
          const accepted = v.ok && v.accepted;
          checks.push({
            kind,
            fixtureId: 0,
            check: item.check,
            pass: item.check === "aggregate_honest" ? accepted : v.ok && !accepted,
            code: v.code,
          });
        }),
      );
    }
  }
  await Promise.all(pending);
  const order = [
    "aggregate_honest",
    "aggregate_appended_byte",
    "aggregate_eval_x_layer0_plus_1",
    "aggregate_value_digest0_plus_1",
    "aggregate_reversed",
  ];
  checks.sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : order.indexOf(a.check) - order.indexOf(b.check)));
  return {
    status: checks.every((c) => c.pass) ? "CONTROLS_PASS" : "CONTROLS_FAIL",
    references: new Map(),
    checks,
    ms: performance.now() - t0,
  };
}
