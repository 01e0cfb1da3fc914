/**
 * GKR verifier (compat-v1 §10.5), run after the caller's §11 steps 1–5 on the transcript. It
 * never throws on a malformed proof object or claimed outputs: every failure is a typed
 * rejection naming the layer and round where it applies.
 */
import { isCanonical } from "../field/koalabear.js";
import { EXT_ONE, EXT_ZERO, extAdd, extEq, extSub, type Ext } from "../field/extension.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { extMulSplit as extMul } from "../field/ext-split.js";
import { betaAt, mleEvalBase } from "../sumcheck/mle.js";
import { mleEvalTrimmed } from "./mle-split.js";
import { parseExt, untrustedProperty as field } from "../sumcheck/untrusted.js";
import { type SumcheckRejectCode, verifySumcheck } from "../sumcheck/verifier.js";
import type { Claim } from "./claims.js";
import type { InputClaim } from "./proof.js";
import { type CircuitShape, shapeInputBits } from "./shape.js";
import { type WiringOracle, combinedConst, combinedPredicates } from "./wiring/oracle.js";

/** Largest table width the verifier will allocate eq tables for (matches `validateCircuit`). */
const MAX_WIDTH_BITS = 30;

/** `verifyGkr`'s own rejection codes (meanings in docs/errors.md); a layer's sumcheck adds its codes. */
export const GKR_REJECT_CODES = [
  "BAD_SHAPE",
  "EMPTY_CIRCUIT",
  "MALFORMED_PROOF",
  "LAYER_COUNT",
  "OUTPUT_WIDTH_TOO_LARGE",
  "OUTPUT_LENGTH",
  "NON_CANONICAL_OUTPUT",
  "MALFORMED_EVAL",
  "END_CHECK_FAILED",
  "VERIFIER_EXCEPTION",
] as const;

/** Stable rejection codes of `verifyGkr`: its own and those of a layer's sumcheck. */
export type GkrRejectCode = (typeof GKR_REJECT_CODES)[number] | SumcheckRejectCode;

/** A rejection of `verifyGkr`: its code (`GkrRejectCode`, docs/errors.md), a reason, and the layer and round where it failed when known. */
export interface GkrRejection {
  readonly ok: false;
  readonly code: GkrRejectCode;
  readonly reason: string;
  readonly layer?: number;
  readonly round?: number;
}

/** The verdict of `verifyGkr`: the claim left on the input vector's MLE, or a `GkrRejection`. */
export type GkrVerifyResult = { readonly ok: true; readonly inputClaim: InputClaim } | GkrRejection;

function reject(code: GkrRejectCode, reason: string, where: { layer?: number; round?: number } = {}): GkrRejection {
  return { ok: false, code, reason, ...where };
}

/**
 * Claimed outputs that are all zero, given without a vector: the verifier's target MLE(outputs)(z_0)
 * is 0 and no 2^s_out(0) values are read (profile v3, whose claimed outputs are a constant of the
 * circuit and not absorbed). Same verdicts as a vector of zeros.
 */
export const ZERO_OUTPUTS: { readonly zeroOutputs: true } = Object.freeze({ zeroOutputs: true as const });

/**
 * Verifies a GKR proof (untrusted, any value) for `claimedOutputs` against a circuit given by its
 * shape and wiring oracle.
 *
 * Order: shape sanity (`BAD_SHAPE`); D = 0 (`EMPTY_CIRCUIT`); proof.layers an array
 * (`MALFORMED_PROOF`) of D layer proofs (`LAYER_COUNT`); s_out(0) ≥ 64 (`OUTPUT_WIDTH_TOO_LARGE`);
 * 2^s_out(0) claimed outputs (`OUTPUT_LENGTH`), each canonical (`NON_CANONICAL_OUTPUT`). Then
 * z_0 ← s_out(0) × sample_ext, target MLE(outputs)(z_0), and per layer: claim = Σ c_k·(t_k −
 * const~(z_k)); the 2s-round sumcheck (round count before any round, ≤ 5 coefficients, g(0) + g(1)
 * before observing); eval_x, eval_y canonical (`MALFORMED_EVAL`) and observed; the end check
 * (`END_CHECK_FAILED`); unless last, r ← sample_ext() and incoming [(x*, 1), (y*, r)].
 *
 * @param claimedOutputs the output vector the transcript observed (the compat verifier uses zeros),
 *   or `ZERO_OUTPUTS`.
 * @param transcript mutated; after a rejection its state is unspecified.
 * @returns `{ok: true, inputClaim}` for the caller to discharge against its input vector, or a
 *   rejection. Unexpected exceptions (from a faulty wiring oracle, say) become `VERIFIER_EXCEPTION`.
 */
export function verifyGkr(
  shape: CircuitShape,
  wiring: WiringOracle,
  claimedOutputs: unknown,
  proof: unknown,
  transcript: DuplexChallenger,
): GkrVerifyResult {
  try {
    return verifyUnguarded(shape, wiring, claimedOutputs, proof, transcript);
  } catch (e) {
    return reject("VERIFIER_EXCEPTION", `unexpected exception: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function isBits(b: unknown): b is number {
  return typeof b === "number" && Number.isInteger(b) && b >= 0;
}

function verifyUnguarded(
  shape: CircuitShape,
  wiring: WiringOracle,
  claimedOutputs: unknown,
  proof: unknown,
  transcript: DuplexChallenger,
): GkrVerifyResult {
  const widths: unknown = field(shape, "layerWidthBits");
  if (!Array.isArray(widths) || !widths.every(isBits) || !isBits(field(shape, "inputWidthBits"))) {
    return reject("BAD_SHAPE", "the circuit shape needs non-negative integer width bits for every layer and the input");
  }
  const D = widths.length;
  if (D === 0) return reject("EMPTY_CIRCUIT", "the circuit has no layers");
  const layerProofs: unknown = field(proof, "layers");
  if (!Array.isArray(layerProofs)) return reject("MALFORMED_PROOF", "proof.layers is not an array");
  if (layerProofs.length !== D)
    return reject("LAYER_COUNT", `the proof has ${layerProofs.length} layer proofs, the circuit has ${D} layers`);
  const s0 = widths[0] as number;
  if (s0 >= 64) return reject("OUTPUT_WIDTH_TOO_LARGE", `output width bits ${s0} ≥ 64`);
  const zero = claimedOutputs === ZERO_OUTPUTS;
  const outputs = zero ? null : readOutputs(claimedOutputs, 2 ** s0);
  if (outputs !== null && !(outputs instanceof Uint32Array)) return outputs;
  for (let i = 0; i <= D; i++) {
    const b = i < D ? (widths[i] as number) : shape.inputWidthBits;
    if (b > MAX_WIDTH_BITS)
      return reject("BAD_SHAPE", `${i < D ? `layer ${i}` : "input"} width bits ${b} exceed ${MAX_WIDTH_BITS}`);
  }

  const z0: Ext[] = [];
  for (let j = 0; j < s0; j++) z0.push(transcript.sampleExt());
  let claims: Claim[] = [{ point: z0, coeff: EXT_ONE }];
  // Past the zero tail only (the sync verifiers claim zero outputs); reference mleEvalBase.
  let targets: Ext[] = [
    outputs === null ? EXT_ZERO : s0 <= MAX_WIDTH_BITS ? mleEvalTrimmed(outputs, z0) : mleEvalBase(outputs, z0),
  ];

  for (let i = 0; i < D; i++) {
    const s = shapeInputBits(shape, i);
    const lp: unknown = layerProofs[i];
    if (typeof lp !== "object" || lp === null)
      return reject("MALFORMED_PROOF", `layer ${i}: the layer proof is not an object`, { layer: i });

    let claim = EXT_ZERO;
    for (let k = 0; k < claims.length; k++) claim = extAdd(claim, extMul(claims[k]!.coeff, targets[k]!));
    claim = extSub(claim, combinedConst(wiring, i, claims));

    const sc = verifySumcheck(claim, field(lp, "rounds"), 2 * s, transcript);
    if (!sc.ok) {
      const where = sc.round === undefined ? { layer: i } : { layer: i, round: sc.round };
      return reject(sc.code, `layer ${i}: ${sc.reason}`, where);
    }
    const evalX = parseExt(field(lp, "evalX"));
    const evalY = parseExt(field(lp, "evalY"));
    if (evalX === null || evalY === null) {
      return reject(
        "MALFORMED_EVAL",
        `layer ${i}: ${evalX === null ? "evalX" : "evalY"} is not four canonical field elements`,
        { layer: i },
      );
    }
    transcript.observeExt(evalX);
    transcript.observeExt(evalY);

    const x = sc.point.slice(0, s);
    const y = sc.point.slice(s);
    const pred = combinedPredicates(wiring, i, claims, x, y);
    const beta = betaAt(y);
    const ex3 = extMul(extMul(evalX, evalX), evalX);
    const expected = extAdd(
      extAdd(extMul(extMul(pred.lin, evalX), beta), extMul(extMul(pred.mul, evalX), evalY)),
      extMul(extMul(pred.pow3, ex3), beta),
    );
    if (!extEq(expected, sc.value))
      return reject(
        "END_CHECK_FAILED",
        `layer ${i}: the wiring predicates and V(x*), V(y*) do not match the final sumcheck claim`,
        { layer: i },
      );

    if (i < D - 1) {
      const r = transcript.sampleExt();
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: r },
      ];
      targets = [evalX, evalY];
    } else {
      return { ok: true, inputClaim: { x, evalX, y, evalY } };
    }
  }
  return reject("VERIFIER_EXCEPTION", "unreachable: no layer returned");
}

function readOutputs(value: unknown, expected: number): Uint32Array | GkrRejection {
  const isList = Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
  if (!isList) return reject("OUTPUT_LENGTH", "the claimed outputs are not an array");
  const list = value as ArrayLike<unknown>;
  if (list.length !== expected)
    return reject("OUTPUT_LENGTH", `expected 2^s_out(0) = ${expected} claimed outputs, got ${list.length}`);
  const out = new Uint32Array(expected);
  for (let k = 0; k < expected; k++) {
    const v = list[k];
    if (!isCanonical(v)) return reject("NON_CANONICAL_OUTPUT", `claimed output ${k} is not a canonical field element`);
    out[k] = v;
  }
  return out;
}
