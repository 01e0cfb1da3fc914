/**
 * The zero-knowledge GKR prover over K = 2^k copies of one structured circuit
 * (docs/profile-v3.md §11.4; Libra, Xie et al., CRYPTO 2019, §4). Each layer i proves
 *
 *   Σ_(x, y) [P̈_i + Q_i + ρ_i·g_i] = Σ_k c_k·(t_k − const~(z_k)) + ρ_i·G_i
 *
 * with the data-parallel layer oracle (`CopiesLayerOracle`) for P_i's rounds: V̇ = Ṽ on every
 * Boolean point, so the rounds are P_i's except the x block's last round and, with Mul gates,
 * the y block's last round, which this file computes from the oracle's length-2 tables with V̇ in
 * place of Ṽ; the y block uses V̇(x*) as its scalar (`maskX`). Q_i's and g_i's parts are closed
 * forms (masks.ts).
 *
 * Transcript per layer: observe_ext(G_i); ρ_i ← sample_ext(); per round its δ_j + 1 coefficients
 * observed, r_j ← sample_ext(); observe_ext(V̇(x*)), observe_ext(V̇(y*)), observe_ext(ν_i); unless
 * last, r ← sample_ext() and the claims (x*, 1), (y*, r). The output layer's point z_0 is drawn
 * first (s_out(0) + k challenges) and its target is 0.
 */
import { EXT_ONE, EXT_ZERO, extAdd, extEq, extMul, extSub, type Ext } from "../../field/extension.js";
import { interpolateRoundPoly } from "../../sumcheck/interpolate.js";
import { betaAt } from "../../sumcheck/mle.js";
import type { DuplexChallenger } from "../../transcript/challenger.js";
import { inputBitsOf } from "../circuit.js";
import type { Claim } from "../claims.js";
import { CircuitError } from "../errors.js";
import { InternalError } from "../../errors.js";
import { type CopiesBackend, CopiesLayerOracle, type LayerValues } from "../structured/dp-oracle.js";
import { tsCopiesBackend } from "../structured/dp-ts-backend.js";
import { defaultCopiesBackend, validateCopiesWitness } from "../structured/dp-prover.js";
import type { StructuredCircuit } from "../structured/linear.js";
import {
  claimMaskLine,
  layerMaskSum,
  maskAt,
  maskClaimWeights,
  maskCoefficients,
  maskRoundPoly,
  maskSum,
  maskedValue,
  roundMaskAt,
  vanishingAt,
  weighted,
  type ZkLayerMasks,
  zkRoundDegrees,
} from "./masks.js";
import { linePoly, polyAdd, polyMul, polyScale, type UniPoly } from "./poly.js";
import type { ZkGkrClaims, ZkGkrProof, ZkLayerProof, ZkMaskClaim } from "./proof.js";

/** Options of `proveZkCopiesGkr`. */
export interface ZkCopiesProveOptions {
  /** Default `defaultCopiesBackend()`, else the TypeScript backend; every backend gives the same proof. */
  readonly backend?: CopiesBackend;
}

/** X − X², the factor of Z in the last round of a block. */
const X_MINUS_X2: UniPoly = [EXT_ZERO, EXT_ONE, extSub(EXT_ZERO, EXT_ONE)];
/** 1 − X. */
const ONE_MINUS_X: UniPoly = [EXT_ONE, extSub(EXT_ZERO, EXT_ONE)];

/** V̇ over the last variable of a block: the line of V plus Z(bound)·M·(X − X²). */
function maskedLine(v: readonly [Ext, Ext], zm: Ext): Ext[] {
  return polyAdd(linePoly(v[0], v[1]), polyScale(X_MINUS_X2, zm));
}

/** The coefficients 0..δ of a round polynomial (higher ones must vanish). */
function trimmed(p: readonly Ext[], degree: number, layer: number, round: number): Ext[] {
  for (let e = degree + 1; e < p.length; e++)
    if (!extEq(p[e]!, EXT_ZERO))
      throw new InternalError(
        `zero-knowledge layer ${layer} round ${round}: the round polynomial exceeds degree ${degree}`,
      );
  const out = p.slice(0, degree + 1);
  while (out.length < degree + 1) out.push(EXT_ZERO);
  return out;
}

/**
 * Proves that `witness` is the evaluation of 2^copyBits copies of `circuit` with zero outputs, in
 * zero knowledge given `masks` (one per layer, from `drawLayerMasks`, committed by the caller
 * before the first challenge).
 * @param witness the replicated layer vectors, output first, input last (as `proveCopiesGkr`).
 * @param transcript mutated: the caller has absorbed the statement and the commitment.
 * @returns the proof, and the claims the opening must prove: the input claim on the input vector
 *   (unmasked: the caller's committed half holds random lanes) and one claim per layer on its masks.
 * @throws CircuitError `BAD_WIDTH` (a layer with fewer than 2 variables below, or none in one copy;
 *   masks of the wrong shape), and what `proveCopiesGkr` throws for the witness.
 */
export function proveZkCopiesGkr(
  circuit: StructuredCircuit,
  copyBits: number,
  witness: readonly LayerValues[],
  transcript: DuplexChallenger,
  masks: readonly ZkLayerMasks[],
  options: ZkCopiesProveOptions = {},
): { proof: ZkGkrProof; claims: ZkGkrClaims } {
  const k = copyBits;
  const D = circuit.layers.length;
  validateCopiesWitness(circuit, k, witness);
  if (masks.length !== D) throw new CircuitError("BAD_WIDTH", `${D} layers take ${D} masks, got ${masks.length}`);
  for (let i = 0; i < D; i++) {
    const s = inputBitsOf(circuit, i);
    if (s < 1)
      throw new CircuitError("BAD_WIDTH", `layer ${i}: a zero-knowledge layer reads at least 2 values per copy`);
    const degrees = zkRoundDegrees(s + k);
    const m = masks[i]!;
    if (m.rounds.length !== degrees.length || m.rounds.some((c, j) => c.length !== degrees[j]))
      throw new CircuitError("BAD_WIDTH", `layer ${i}: the masks are not of the layer's shape`);
  }
  const backend = options.backend ?? defaultCopiesBackend() ?? tsCopiesBackend;
  const z0: Ext[] = [];
  for (let j = 0; j < circuit.layers[0]!.widthBits + k; j++) z0.push(transcript.sampleExt());
  let claims: Claim[] = [{ point: z0, coeff: EXT_ONE }];
  const layers: ZkLayerProof[] = [];
  const maskClaims: ZkMaskClaim[] = [];
  for (let i = 0; i < D; i++) {
    const s = inputBitsOf(circuit, i);
    const nx = s + k;
    const degrees = zkRoundDegrees(nx);
    const m = masks[i]!;
    const below = i + 1 < D ? masks[i + 1]!.layer : null;
    const masked = i > 0;
    const maskSumValue = maskSum(m);
    transcript.observeExt(maskSumValue);
    const rho = transcript.sampleExt();
    const [t0, t1] = masked ? claimMaskLine(m.layer, claims) : [EXT_ZERO, EXT_ZERO];
    const tSum = extAdd(t0, t1);
    const oracle = new CopiesLayerOracle(backend, {
      layer: circuit.layers[i]!,
      layerIndex: i,
      copyBits: k,
      inputBits: s,
      below: witness[i + 1]!,
      claims,
    });
    const point: Ext[] = [];
    const rounds: Ext[][] = [];
    let bound = m.constant;
    let betaX: Ext = EXT_ONE,
      betaY: Ext = EXT_ONE,
      evalX: Ext = EXT_ZERO;
    try {
      for (let j = 0; j < 2 * nx; j++) {
        let p: Ext[];
        const last = j === nx - 1 || j === 2 * nx - 1;
        const tables = last ? oracle.zkTables() : null;
        if (j === nx - 1) {
          if (tables === null)
            throw new InternalError(`zero-knowledge layer ${i}: no tables in the x block's last round`);
          const zm = below === null ? EXT_ZERO : extMul(vanishingAt(point), layerMaskSum(below, point[0]!));
          const vd = maskedLine(tables.v, zm);
          p = polyMul(vd, polyAdd(linePoly(...tables.a), polyMul(linePoly(...tables.p), polyMul(vd, vd))));
        } else if (j === 2 * nx - 1 && tables !== null) {
          const y = point.slice(nx);
          const zm = below === null ? EXT_ZERO : extMul(vanishingAt(y), layerMaskSum(below, y[0]!));
          const vd = maskedLine(tables.v, zm);
          p = polyAdd(polyScale(ONE_MINUS_X, tables.k), polyScale(polyMul(linePoly(...tables.a), vd), evalX));
        } else {
          const msg = oracle.roundPolynomial();
          p = msg.kind === "evaluations" ? interpolateRoundPoly(msg.values) : msg.values.slice();
        }
        if (masked) {
          let q: Ext[];
          if (j < nx) q = polyScale(ONE_MINUS_X, extMul(betaX, tSum));
          else if (j === nx) q = polyScale(linePoly(t0, t1), betaX);
          else {
            const ty0 = extAdd(t0, extMul(point[nx]!, extSub(t1, t0)));
            q = polyScale(ONE_MINUS_X, extMul(extMul(betaX, ty0), betaY));
          }
          p = polyAdd(p, q);
        }
        p = polyAdd(p, polyScale(maskRoundPoly(m, j, bound), rho));
        const coeffs = trimmed(p, degrees[j]!, i, j);
        for (const a of coeffs) transcript.observeExt(a);
        const r = transcript.sampleExt();
        oracle.bind(r);
        point.push(r);
        rounds.push(coeffs);
        bound = extAdd(bound, roundMaskAt(m.rounds[j]!, r));
        if (j < nx) betaX = extMul(betaX, extSub(EXT_ONE, r));
        else if (j > nx) betaY = extMul(betaY, extSub(EXT_ONE, r));
        if (j === nx - 1) {
          evalX = maskedValue(oracle.evalX(), below, point);
          oracle.maskX(evalX);
        }
      }
    } finally {
      oracle.dispose();
    }
    const x = point.slice(0, nx),
      y = point.slice(nx);
    const evalY = maskedValue(oracle.evalY(), below, y);
    const ty = extAdd(t0, extMul(y[0]!, extSub(t1, t0)));
    const maskValue = extAdd(extMul(extMul(betaAt(x), betaAt(y.slice(1))), ty), extMul(rho, maskAt(m, point)));
    const weights = maskClaimWeights(nx, rho, point, claims, masked);
    if (!extEq(weighted(weights, maskCoefficients(m)), maskValue))
      throw new InternalError(`zero-knowledge layer ${i}: the mask claim's weights do not give ν`);
    transcript.observeExt(evalX);
    transcript.observeExt(evalY);
    transcript.observeExt(maskValue);
    layers.push({ maskSum: maskSumValue, rounds, evalX, evalY, maskValue });
    maskClaims.push({ layer: i, weights, value: maskValue });
    if (i < D - 1) {
      const r = transcript.sampleExt();
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: r },
      ];
    } else {
      return { proof: { layers }, claims: { input: { x, evalX, y, evalY }, masks: maskClaims } };
    }
  }
  throw new CircuitError("BAD_WIDTH", "a circuit without layers has no proof");
}
