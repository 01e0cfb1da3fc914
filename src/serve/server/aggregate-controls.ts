/**
 * Startup controls of a profile v2 server (docs/serving.md "Profile v2"), per kind on one
 * aggregate of corpus fixtures 0 … samples − 1: `verifyAggregate` accepts the honest aggregate
 * against its requests and rejects it with one byte appended, with eval_x of layer 0 plus one
 * (changed in the decoded proof, then re-encoded), against the requests with value_digest[0] of
 * operation 0 plus one, and — with at least two operations — against the requests in reverse
 * order. The SHA-256 of each honest aggregate is reported as the kind's control reference.
 */
import { add } from "../../field/koalabear.js";
import { decodeAggregateV2 } from "../../codec/v2/decode.js";
import { encodeAggregateV2 } from "../../codec/v2/encode.js";
import type { OpRequest } from "../../smt/operation.js";
import { corpusRequest } from "../fixtures/corpus.js";
import { proveAggregate, verifyAggregate } from "../../sync/v2/aggregate.js";
import type { PreparedV2 } from "../../sync/v2/prepared.js";
import { sha256Hex } from "../protocol/reply.js";
import type { ControlsReport } from "./controls.js";
import { ServerError } from "./errors.js";

function appendByte(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

function evalXPlusOne(bytes: Uint8Array): Uint8Array {
  const d = decodeAggregateV2(bytes);
  const [first, ...rest] = d.proof.layers;
  const e = first!.evalX;
  const layers = [{ ...first!, evalX: [add(e[0], 1), e[1], e[2], e[3]] as const }, ...rest];
  return encodeAggregateV2(d.identity, d.statementChecks, { layers });
}

function valueDigestPlusOne(r: OpRequest): OpRequest {
  const v = Uint32Array.from(r.publicInputs.valueDigest);
  v[0] = add(v[0]!, 1);
  return { ...r, publicInputs: { ...r.publicInputs, valueDigest: v } };
}

/**
 * Runs the controls for the three kinds (indexed by kind tag) on aggregates of `samples` fixtures.
 * @throws ServerError `CONTROLS_FAILED` naming the kind and the control that failed.
 */
export function runAggregateControls(prepared: readonly PreparedV2[], samples: number): ControlsReport {
  const t0 = performance.now();
  const references: Record<string, string[]> = {};
  let checks = 0;
  for (const p of prepared) {
    const name = p.kind;
    const requests = Array.from({ length: samples }, (_, i) => corpusRequest(p.kind, i, p.config));
    const bytes = proveAggregate(p, requests);
    const expect = (what: string, ok: boolean): void => {
      if (!ok)
        throw new ServerError("CONTROLS_FAILED", `control failed: ${name} aggregate of ${samples}: ${what}`, {
          kind: name,
          check: what,
        });
      checks++;
    };
    expect("honest aggregate accepted", verifyAggregate(p, requests, bytes).ok);
    expect("appended byte rejected", !verifyAggregate(p, requests, appendByte(bytes)).ok);
    expect("eval_x of layer 0 + 1 rejected", !verifyAggregate(p, requests, evalXPlusOne(bytes)).ok);
    expect(
      "value_digest[0] + 1 rejected",
      !verifyAggregate(p, [valueDigestPlusOne(requests[0]!), ...requests.slice(1)], bytes).ok,
    );
    if (samples >= 2) expect("reversed operations rejected", !verifyAggregate(p, [...requests].reverse(), bytes).ok);
    references[name] = [sha256Hex(bytes)];
  }
  return { references: references as unknown as ControlsReport["references"], checks, ms: performance.now() - t0 };
}
