/**
 * A test-only simulator of the zero-knowledge GKR (docs/profile-v3.md §11.6, step 1): given the
 * verifier's challenges in advance (an honest verifier), it outputs the layer messages of an
 * accepting interactive transcript without the witness — per layer the sum of its own random mask,
 * round polynomials drawn uniformly among those of the degree bounds whose g(0) + g(1) is the
 * running claim, uniform V̇(x*), V̇(y*), and ν solved from the end check.
 */
import { EXT_ONE, EXT_ZERO, extAdd, extMul, extSub, extInverse, type Ext } from "../../src/field/extension.js";
import type { Claim } from "../../src/gkr/claims.js";
import { type CircuitShape, shapeInputBits } from "../../src/gkr/shape.js";
import { type WiringOracle, combinedConst, combinedPredicates } from "../../src/gkr/wiring/oracle.js";
import { drawLayerMasks, maskSum, zkRoundDegrees } from "../../src/gkr/zk/masks.js";
import { evalRoundPoly } from "../../src/sumcheck/interpolate.js";
import { betaAt } from "../../src/sumcheck/mle.js";
import type { ZkGkrProof, ZkLayerProof } from "../../src/gkr/zk/proof.js";

/** The verifier's randomness in order: what the prover's and the verifier's transcripts draw. */
export interface Challenges {
  sampleExt(): Ext;
}

/** A transcript that ignores what it observes and draws `challenges`: the interactive protocol with an honest verifier. */
export function scriptedTranscript(challenges: Challenges) {
  return {
    observe(): void {},
    observeExt(): void {},
    observeExtsUnchecked(): void {},
    sampleExt: () => challenges.sampleExt(),
  };
}

/** Challenges from a seeded stream (xorshift over canonical words). */
export function seededChallenges(seed: number): Challenges {
  let s = seed >>> 0 || 1;
  const word = (): number => {
    for (;;) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      const v = s >>> 1;
      if (v < 0x7f000001) return v;
    }
  };
  return { sampleExt: () => [word(), word(), word(), word()] };
}

const HALF = extInverse([2, 0, 0, 0]);

/** Simulates the layer messages for a circuit of zero outputs given by shape and wiring (no witness). */
export function simulateZkGkr(
  shape: CircuitShape,
  wiring: WiringOracle,
  challenges: Challenges,
  random: (out: Uint32Array) => void,
): ZkGkrProof {
  const ext = (): Ext => {
    const w = new Uint32Array(4);
    random(w);
    return [w[0]!, w[1]!, w[2]!, w[3]!];
  };
  const D = shape.layerWidthBits.length;
  const z0: Ext[] = [];
  for (let j = 0; j < shape.layerWidthBits[0]!; j++) z0.push(challenges.sampleExt());
  let claims: Claim[] = [{ point: z0, coeff: EXT_ONE }];
  let targets: Ext[] = [EXT_ZERO];
  const layers: ZkLayerProof[] = [];
  for (let i = 0; i < D; i++) {
    const nx = shapeInputBits(shape, i);
    let claim: Ext = EXT_ZERO;
    claims.forEach((c, k) => {
      claim = extAdd(claim, extMul(c.coeff, targets[k]!));
    });
    claim = extSub(claim, combinedConst(wiring, i, claims));
    const maskSumValue = maskSum(drawLayerMasks(nx, true, random));
    const rho = challenges.sampleExt();
    claim = extAdd(claim, extMul(rho, maskSumValue));
    const point: Ext[] = [];
    const rounds = zkRoundDegrees(nx).map((d) => {
      const high = Array.from({ length: d }, ext);
      let rest: Ext = EXT_ZERO;
      for (const a of high) rest = extAdd(rest, a);
      const coeffs = [extMul(extSub(claim, rest), HALF), ...high];
      const r = challenges.sampleExt();
      claim = evalRoundPoly(coeffs, r);
      point.push(r);
      return coeffs;
    });
    const evalX = ext(),
      evalY = ext();
    const x = point.slice(0, nx),
      y = point.slice(nx);
    const pred = combinedPredicates(wiring, i, claims, x, y);
    const beta = betaAt(y);
    const p = extAdd(
      extAdd(extMul(extMul(pred.lin, evalX), beta), extMul(extMul(pred.mul, evalX), evalY)),
      extMul(extMul(pred.pow3, extMul(extMul(evalX, evalX), evalX)), beta),
    );
    layers.push({ maskSum: maskSumValue, rounds, evalX, evalY, maskValue: extSub(claim, p) });
    if (i < D - 1) {
      const r = challenges.sampleExt();
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: r },
      ];
      targets = [evalX, evalY];
    }
  }
  return { layers };
}
