/**
 * The frontend's controls (compat-v1 §16.6), run before any offer: for each kind of the mixture
 * and fixtures 0 … control-samples − 1, the honest proof (proved here, on the calling thread) must
 * be accepted by strict encoded verification, and four tampered variants must be rejected:
 * eval_x of layer 0 + 1 (re-encoded), value_digest[0] + 1 and old_root[0] + 1 (in the request),
 * one appended byte. The SHA-256 of each honest proof becomes that (kind, fixture)'s control
 * reference: a served proof of a control fixture must hash to it.
 */
import { decodeProof } from "../../codec/decode.js";
import { encodeProof } from "../../codec/encode.js";
import { add } from "../../field/koalabear.js";
import type { Ext } from "../../field/extension.js";
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../../sync/prepared.js";
import { encodeSyncResult } from "../../sync/encoded.js";
import { provePrepared } from "../../sync/prove.js";
import { SsgkrError } from "../../errors.js";
import type { OpKindName } from "../../statement/types.js";
import { sha256Hex } from "../protocol/reply.js";
import type { SyncRejectCode } from "../../sync/verify.js";
import type { V2RejectCode } from "../../sync/v2/verify.js";
import { LoadError, type VerifyPoolCode } from "./errors.js";
import type { VerifyPool } from "./verify-pool.js";

/** The control references: `${kind}/${fixture}` → SHA-256 hex of the honest proof. */
export type ControlReferences = ReadonlyMap<string, string>;

/** Key of a control reference. */
export function controlKey(kind: OpKindName, fixtureId: number): string {
  return `${kind}/${fixtureId}`;
}

/** One control check's result. */
export interface ControlCheck {
  readonly kind: OpKindName;
  readonly fixtureId: number;
  /** `honest`, `eval_x_layer0_plus_1`, `value_digest0_plus_1`, `old_root0_plus_1`, `appended_byte`. */
  readonly check: string;
  /** Whether the check came out as required (honest accepted, tampered rejected). */
  readonly pass: boolean;
  /** The verifier's rejection code, if it rejected (or why the pool gave no verdict). */
  readonly code: SyncRejectCode | V2RejectCode | VerifyPoolCode | null;
}

/** Controls outcome: status `CONTROLS_PASS` iff every check passed. */
export interface ControlsReport {
  readonly status: "CONTROLS_PASS" | "CONTROLS_FAIL";
  readonly references: ControlReferences;
  readonly checks: readonly ControlCheck[];
  readonly ms: number;
}

function bumpDigest(d: Uint32Array): Uint32Array {
  const out = d.slice();
  out[0] = add(out[0]!, 1);
  return out;
}

function tamperEvalX(bytes: Uint8Array): Uint8Array {
  const decoded = decodeProof(bytes);
  const layers = decoded.proof.layers.map((l, i) => {
    if (i !== 0) return l;
    const evalX: Ext = [add(l.evalX[0], 1), l.evalX[1], l.evalX[2], l.evalX[3]];
    return { ...l, evalX };
  });
  return encodeProof({ ...decoded, proof: { layers } });
}

/**
 * Runs the controls for `kinds` (each once): proofs on this thread, verifications on `pool`.
 * @param fixture the request of (kind, fixture id).
 * @throws LoadError `CONTROLS` if an honest proof cannot be produced.
 */
export async function runControls(
  pool: VerifyPool,
  prepared: (kind: OpKindName) => PreparedSync,
  fixture: (kind: OpKindName, fixtureId: number) => OpRequest,
  kinds: readonly OpKindName[],
  samples: number,
): Promise<ControlsReport> {
  const t0 = performance.now();
  const references = new Map<string, string>();
  const checks: ControlCheck[] = [];
  if (samples === 0) return { status: "CONTROLS_PASS", references, checks, ms: 0 };
  const unique = [...new Set(kinds)];
  const pending: Promise<void>[] = [];
  for (const kind of unique) {
    const p = prepared(kind);
    for (let i = 0; i < samples; i++) {
      const request = fixture(kind, i);
      let bytes: Uint8Array;
      try {
        bytes = encodeSyncResult(p, provePrepared(p, request));
      } catch (err) {
        if (err instanceof SsgkrError)
          throw new LoadError("CONTROLS", `control proof of ${kind} fixture ${i} failed: ${err.code}: ${err.message}`, {
            kind,
            fixtureId: i,
          });
        throw err;
      }
      references.set(controlKey(kind, i), sha256Hex(bytes));
      const pi = request.publicInputs;
      const appended = new Uint8Array(bytes.length + 1);
      appended.set(bytes);
      const items: { request: OpRequest; bytes: Uint8Array; check: string }[] = [
        { request, bytes, check: "honest" },
        { request, bytes: tamperEvalX(bytes), check: "eval_x_layer0_plus_1" },
        {
          request: { ...request, publicInputs: { ...pi, valueDigest: bumpDigest(pi.valueDigest) } },
          bytes,
          check: "value_digest0_plus_1",
        },
        {
          request: { ...request, publicInputs: { ...pi, oldRoot: bumpDigest(pi.oldRoot) } },
          bytes,
          check: "old_root0_plus_1",
        },
        { request, bytes: appended, check: "appended_byte" },
      ];
      for (const item of items) {
        pending.push(
          pool.verify(p, item.request, item.bytes).then((v) => {
            const accepted = v.ok && v.accepted;
            checks.push({
              kind,
              fixtureId: i,
              check: item.check,
              pass: item.check === "honest" ? accepted : v.ok && !accepted,
              code: v.ok ? v.code : v.code,
            });
          }),
        );
      }
    }
  }
  await Promise.all(pending);
  const order = ["honest", "eval_x_layer0_plus_1", "value_digest0_plus_1", "old_root0_plus_1", "appended_byte"];
  checks.sort((a, b) =>
    a.kind < b.kind
      ? -1
      : a.kind > b.kind
        ? 1
        : a.fixtureId - b.fixtureId || order.indexOf(a.check) - order.indexOf(b.check),
  );
  return {
    status: checks.every((c) => c.pass) ? "CONTROLS_PASS" : "CONTROLS_FAIL",
    references,
    checks,
    ms: performance.now() - t0,
  };
}
