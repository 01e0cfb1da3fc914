/**
 * The zero-knowledge GKR verifier (docs/profile-v3.md §11.4), for circuits with zero outputs. It
 * never throws on a malformed proof object: every failure is a typed rejection naming the layer
 * and round. It returns the claims the caller proves by the opening: the input claim and, per
 * layer, the claim ν_i on the layer's masks, whose weights it computes (masks.ts).
 *
 * Per layer i: claim = Σ_k c_k·(t_k − const~(z_k)) (t_0 = 0); G_i canonical (`MALFORMED_EVAL`),
 * observed; ρ_i ← sample_ext(); claim += ρ_i·G_i; per round j exactly δ_j + 1 coefficients
 * (`MALFORMED_ROUND`), canonical (`NON_CANONICAL`), g(0) + g(1) = claim (`ROUND_SUM_MISMATCH`)
 * before they are observed, r_j ← sample_ext(), claim ← g(r_j); V̇(x*), V̇(y*), ν_i canonical
 * (`MALFORMED_EVAL`) and observed; the end check claim = lin~·V̇(x*)·β(y*) + mul~·V̇(x*)·V̇(y*) +
 * pow3~·V̇(x*)³·β(y*) + ν_i (`END_CHECK_FAILED`); unless last, r ← sample_ext().
 */
import { EXT_ONE, EXT_ZERO, extAdd, extEq, extMul, extSub, type Ext } from "../../field/extension.js";
import { evalRoundPoly } from "../../sumcheck/interpolate.js";
import { betaAt, mleEvalBase } from "../../sumcheck/mle.js";
import { parseExt, untrustedProperty as field } from "../../sumcheck/untrusted.js";
import type { DuplexChallenger } from "../../transcript/challenger.js";
import type { Claim } from "../claims.js";
import { type CircuitShape, shapeInputBits } from "../shape.js";
import type { GkrRejection } from "../verifier.js";
import { type WiringOracle, combinedConst, combinedPredicates } from "../wiring/oracle.js";
import { maskClaimWeights, ZK_MIN_INPUT_BITS, zkRoundDegrees } from "./masks.js";
import type { ZkGkrClaims, ZkMaskClaim } from "./proof.js";

/** Largest width the verifier accepts (as `verifyGkr`). */
const MAX_WIDTH_BITS = 30;

/** The verdict of `verifyZkGkr`: the claims left for the opening, or a rejection. */
export type ZkGkrVerifyResult = { readonly ok: true; readonly claims: ZkGkrClaims } | GkrRejection;

function reject(
  code: GkrRejection["code"],
  reason: string,
  where: { layer?: number; round?: number } = {},
): GkrRejection {
  return { ok: false, code, reason, ...where };
}

/**
 * Verifies a zero-knowledge GKR proof (untrusted, any value) of a circuit with zero outputs given
 * by its shape (widths with the copies' bits) and wiring oracle.
 * @param outputs the claimed output vector (2^s_out(0) canonical values) when it is not all zero
 *   (tests of circuits with other outputs); default zero, whatever the circuit.
 * @param transcript mutated; after a rejection its state is unspecified.
 * @returns the claims to discharge (`ZkGkrClaims`), or a rejection; unexpected exceptions become
 *   `VERIFIER_EXCEPTION`.
 */
export function verifyZkGkr(
  shape: CircuitShape,
  wiring: WiringOracle,
  proof: unknown,
  transcript: DuplexChallenger,
  outputs: Uint32Array | null = null,
): ZkGkrVerifyResult {
  try {
    return verifyUnguarded(shape, wiring, proof, transcript, outputs);
  } catch (e) {
    return reject("VERIFIER_EXCEPTION", `unexpected exception: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function isBits(b: unknown): b is number {
  return typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= MAX_WIDTH_BITS;
}

function verifyUnguarded(
  shape: CircuitShape,
  wiring: WiringOracle,
  proof: unknown,
  transcript: DuplexChallenger,
  outputs: Uint32Array | null,
): ZkGkrVerifyResult {
  const widths: unknown = field(shape, "layerWidthBits");
  if (!Array.isArray(widths) || !widths.every(isBits) || !isBits(field(shape, "inputWidthBits")))
    return reject(
      "BAD_SHAPE",
      `the circuit shape needs integer width bits in [0, ${MAX_WIDTH_BITS}] for every layer and the input`,
    );
  const D = widths.length;
  if (D === 0) return reject("EMPTY_CIRCUIT", "the circuit has no layers");
  for (let i = 0; i < D; i++)
    if (shapeInputBits(shape, i) < ZK_MIN_INPUT_BITS)
      return reject(
        "BAD_SHAPE",
        `layer ${i} reads ${shapeInputBits(shape, i)} variables; zero knowledge needs ${ZK_MIN_INPUT_BITS}`,
      );
  const layerProofs: unknown = field(proof, "layers");
  if (!Array.isArray(layerProofs)) return reject("MALFORMED_PROOF", "proof.layers is not an array");
  if (layerProofs.length !== D)
    return reject("LAYER_COUNT", `the proof has ${layerProofs.length} layer proofs, the circuit has ${D} layers`);

  const z0: Ext[] = [];
  for (let j = 0; j < (widths[0] as number); j++) z0.push(transcript.sampleExt());
  let claims: Claim[] = [{ point: z0, coeff: EXT_ONE }];
  if (outputs !== null && outputs.length !== 2 ** (widths[0] as number))
    return reject(
      "OUTPUT_LENGTH",
      `expected 2^s_out(0) = ${2 ** (widths[0] as number)} outputs, got ${outputs.length}`,
    );
  let targets: Ext[] = [outputs === null ? EXT_ZERO : mleEvalBase(outputs, z0)];
  const masks: ZkMaskClaim[] = [];
  for (let i = 0; i < D; i++) {
    const nx = shapeInputBits(shape, i);
    const degrees = zkRoundDegrees(nx);
    const lp: unknown = layerProofs[i];
    if (typeof lp !== "object" || lp === null)
      return reject("MALFORMED_PROOF", `layer ${i}: the layer proof is not an object`, { layer: i });
    let claim: Ext = EXT_ZERO;
    for (let k = 0; k < claims.length; k++) claim = extAdd(claim, extMul(claims[k]!.coeff, targets[k]!));
    claim = extSub(claim, combinedConst(wiring, i, claims));
    const maskSum = parseExt(field(lp, "maskSum"));
    if (maskSum === null)
      return reject("MALFORMED_EVAL", `layer ${i}: maskSum is not four canonical field elements`, { layer: i });
    transcript.observeExt(maskSum);
    const rho = transcript.sampleExt();
    claim = extAdd(claim, extMul(rho, maskSum));

    const rounds: unknown = field(lp, "rounds");
    if (!Array.isArray(rounds)) return reject("MALFORMED_ROUND", `layer ${i}: rounds is not an array`, { layer: i });
    if (rounds.length !== 2 * nx)
      return reject("ROUND_COUNT", `layer ${i}: expected ${2 * nx} round polynomials, got ${rounds.length}`, {
        layer: i,
      });
    const point: Ext[] = [];
    for (let j = 0; j < 2 * nx; j++) {
      const raw: unknown = rounds[j];
      if (!Array.isArray(raw) || raw.length !== degrees[j]! + 1)
        return reject(
          "MALFORMED_ROUND",
          `layer ${i} round ${j}: a round polynomial has exactly ${degrees[j]! + 1} coefficients`,
          {
            layer: i,
            round: j,
          },
        );
      const coeffs: Ext[] = [];
      for (let e = 0; e < raw.length; e++) {
        const a = parseExt(raw[e]);
        if (a === null)
          return reject("NON_CANONICAL", `layer ${i} round ${j} coefficient ${e}: not four canonical field elements`, {
            layer: i,
            round: j,
          });
        coeffs.push(a);
      }
      let sum = coeffs[0]!;
      for (const a of coeffs) sum = extAdd(sum, a);
      if (!extEq(sum, claim))
        return reject("ROUND_SUM_MISMATCH", `layer ${i} round ${j}: g(0) + g(1) differs from the running claim`, {
          layer: i,
          round: j,
        });
      transcript.observeExtsUnchecked(coeffs);
      const r = transcript.sampleExt();
      claim = evalRoundPoly(coeffs, r);
      point.push(r);
    }
    const evalX = parseExt(field(lp, "evalX"));
    const evalY = parseExt(field(lp, "evalY"));
    const maskValue = parseExt(field(lp, "maskValue"));
    if (evalX === null || evalY === null || maskValue === null)
      return reject(
        "MALFORMED_EVAL",
        `layer ${i}: ${evalX === null ? "evalX" : evalY === null ? "evalY" : "maskValue"} is not four canonical field elements`,
        { layer: i },
      );
    transcript.observeExt(evalX);
    transcript.observeExt(evalY);
    transcript.observeExt(maskValue);
    const x = point.slice(0, nx),
      y = point.slice(nx);
    const pred = combinedPredicates(wiring, i, claims, x, y);
    const beta = betaAt(y);
    const ex3 = extMul(extMul(evalX, evalX), evalX);
    const expected = extAdd(
      extAdd(
        extAdd(extMul(extMul(pred.lin, evalX), beta), extMul(extMul(pred.mul, evalX), evalY)),
        extMul(extMul(pred.pow3, ex3), beta),
      ),
      maskValue,
    );
    if (!extEq(expected, claim))
      return reject(
        "END_CHECK_FAILED",
        `layer ${i}: the wiring predicates, V̇(x*), V̇(y*) and ν do not match the final sumcheck claim`,
        { layer: i },
      );
    masks.push({ layer: i, weights: maskClaimWeights(nx, rho, point, claims, i > 0), value: maskValue });
    if (i < D - 1) {
      const r = transcript.sampleExt();
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: r },
      ];
      targets = [evalX, evalY];
    } else {
      return { ok: true, claims: { input: { x, evalX, y, evalY }, masks } };
    }
  }
  return reject("VERIFIER_EXCEPTION", "unreachable: no layer returned");
}
