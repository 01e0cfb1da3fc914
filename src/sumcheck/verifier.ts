/**
 * Sumcheck verifier with the compat-v1 schedule (§10.5 step 2.2–2.3). It never evaluates the
 * polynomial itself: it returns the subclaim (point, expected value) for the caller's end check.
 * Untrusted round polynomials are read defensively; every failure is a typed rejection, never an
 * exception.
 */
import { P, isCanonical } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { extMulSplitTo } from "../field/ext-split.js";
import { ROUND_POLY_COEFFS } from "./interpolate.js";

/** Every rejection code of the sumcheck verifier (meanings in docs/errors.md). */
export const SUMCHECK_REJECT_CODES = [
  "ROUND_COUNT",
  "MALFORMED_ROUND",
  "DEGREE_TOO_HIGH",
  "NON_CANONICAL",
  "ROUND_SUM_MISMATCH",
] as const;

/** Stable rejection codes of the sumcheck verifier. */
export type SumcheckRejectCode = (typeof SUMCHECK_REJECT_CODES)[number];

/** A rejection of the sumcheck verifier: its code (`SumcheckRejectCode`, docs/errors.md), a reason and the round. */
export interface SumcheckRejection {
  readonly ok: false;
  readonly code: SumcheckRejectCode;
  readonly reason: string;
  /** Round index, when the failure belongs to one round. */
  readonly round?: number;
}

/** What an accepted sumcheck leaves to check: the point (one challenge per variable) and the claimed value of the polynomial there. */
export interface SumcheckSubclaim {
  readonly ok: true;
  /** Challenges r_0..r_{n−1}. */
  readonly point: Ext[];
  /** The value the polynomial must take at `point` (g_{n−1}(r_{n−1}), or the claim when n = 0). */
  readonly value: Ext;
  /** The validated round polynomials (as observed). */
  readonly rounds: Ext[][];
}

/** The verdict of `verifySumcheck`: a subclaim, or a rejection. */
export type SumcheckVerifyResult = SumcheckSubclaim | SumcheckRejection;

/**
 * Verifies `rounds` (untrusted) for the claim Σ_{b ∈ {0,1}^n} P(b) = claim.
 *
 * Order (compat-v1 §10.5): the round count must equal `numVariables` (checked before any round);
 * then per round: an array of at most 5 coefficients (more → `DEGREE_TOO_HIGH`), each a canonical
 * extension element, g(0) + g(1) = claim checked before observing, observe_ext of each present
 * coefficient, r ← sample_ext(), claim ← g(r). Fewer than 5 coefficients are accepted.
 * The arithmetic is that of `roundSum` and `evalRoundPoly` (src/sumcheck/interpolate.ts), written
 * without allocation: exact double sums for g(0) + g(1) and the split extension product for g(r).
 *
 * @param transcript mutated (observes and samples); after a rejection its state is unspecified.
 */
export function verifySumcheck(
  claim: Ext,
  rounds: unknown,
  numVariables: number,
  transcript: DuplexChallenger,
): SumcheckVerifyResult {
  if (!Array.isArray(rounds))
    return { ok: false, code: "MALFORMED_ROUND", reason: "round polynomials are not an array" };
  if (rounds.length !== numVariables) {
    return {
      ok: false,
      code: "ROUND_COUNT",
      reason: `expected ${numVariables} round polynomials, got ${rounds.length}`,
    };
  }
  const point: Ext[] = [];
  // The validated coefficients, 4 words each, ROUND_POLY_COEFFS slots per round (each value read
  // once from the untrusted input), and each round's count: the rounds of the subclaim.
  const words = new Uint32Array(4 * ROUND_POLY_COEFFS * numVariables);
  const counts = new Uint8Array(numVariables);
  let c0 = claim[0],
    c1 = claim[1],
    c2 = claim[2],
    c3 = claim[3];
  const g = HORNER;
  for (let j = 0; j < numVariables; j++) {
    const raw: unknown = rounds[j];
    if (!Array.isArray(raw))
      return {
        ok: false,
        code: "MALFORMED_ROUND",
        reason: `round ${j}: the polynomial is not an array of coefficients`,
        round: j,
      };
    if (raw.length > ROUND_POLY_COEFFS) {
      return {
        ok: false,
        code: "DEGREE_TOO_HIGH",
        reason: `round ${j}: ${raw.length} coefficients, at most ${ROUND_POLY_COEFFS} (degree ≤ 4)`,
        round: j,
      };
    }
    const base = 4 * ROUND_POLY_COEFFS * j;
    const n = raw.length;
    // g(0) + g(1) = 2·a_0 + a_1 + … + a_m, summed exactly (≤ 6 canonical values) and reduced once.
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    for (let k = 0; k < n; k++) {
      const a: unknown = raw[k];
      const ok = Array.isArray(a) && a.length === 4;
      const a0: unknown = ok ? a[0] : undefined,
        a1: unknown = ok ? a[1] : undefined,
        a2: unknown = ok ? a[2] : undefined,
        a3: unknown = ok ? a[3] : undefined;
      if (!isCanonical(a0) || !isCanonical(a1) || !isCanonical(a2) || !isCanonical(a3))
        return {
          ok: false,
          code: "NON_CANONICAL",
          reason: `round ${j} coefficient ${k}: not four canonical field elements`,
          round: j,
        };
      const o = base + 4 * k;
      words[o] = a0;
      words[o + 1] = a1;
      words[o + 2] = a2;
      words[o + 3] = a3;
      const w = k === 0 ? 2 : 1;
      s0 += w * a0;
      s1 += w * a1;
      s2 += w * a2;
      s3 += w * a3;
    }
    counts[j] = n;
    if (s0 % P !== c0 || s1 % P !== c1 || s2 % P !== c2 || s3 % P !== c3) {
      return {
        ok: false,
        code: "ROUND_SUM_MISMATCH",
        reason: `round ${j}: g(0) + g(1) differs from the running claim`,
        round: j,
      };
    }
    // observe_ext of each coefficient in order, as one run (whole blocks through the hash backend)
    const obs = OBSERVED[n]!;
    for (let i = 0; i < 4 * n; i++) obs[i] = words[base + i]!;
    transcript.observeAllUnchecked(obs);
    const r = transcript.sampleExt();
    // claim ← g(r) by Horner's rule from the highest non-zero coefficient (y rounds have degree 2).
    let top = n - 1;
    while (top >= 0 && isZeroAt(words, base + 4 * top)) top--;
    g[0] = 0;
    g[1] = 0;
    g[2] = 0;
    g[3] = 0;
    if (top >= 0) {
      const o = base + 4 * top;
      g[0] = words[o]!;
      g[1] = words[o + 1]!;
      g[2] = words[o + 2]!;
      g[3] = words[o + 3]!;
    }
    for (let k = top - 1; k >= 0; k--) {
      const o = base + 4 * k;
      extMulSplitTo(g, 0, 1, r[0], r[1], r[2], r[3], g[0]!, g[1]!, g[2]!, g[3]!);
      g[0] = (g[0]! + words[o]!) % P;
      g[1] = (g[1]! + words[o + 1]!) % P;
      g[2] = (g[2]! + words[o + 2]!) % P;
      g[3] = (g[3]! + words[o + 3]!) % P;
    }
    c0 = g[0]!;
    c1 = g[1]!;
    c2 = g[2]!;
    c3 = g[3]!;
    point.push(r);
  }
  return {
    ok: true,
    point,
    value: [c0, c1, c2, c3],
    get rounds(): Ext[][] {
      return Array.from({ length: numVariables }, (_, j) =>
        Array.from({ length: counts[j]! }, (_, k) => {
          const o = 4 * (ROUND_POLY_COEFFS * j + k);
          return [words[o]!, words[o + 1]!, words[o + 2]!, words[o + 3]!] as Ext;
        }),
      );
    },
  };
}

function isZeroAt(words: Uint32Array, o: number): boolean {
  return words[o] === 0 && words[o + 1] === 0 && words[o + 2] === 0 && words[o + 3] === 0;
}

/** Running value of Horner's rule (one verifier at a time; no re-entrancy). */
const HORNER = new Float64Array(4);

/** The coefficients of one round as base elements, by coefficient count (views of one buffer). */
const OBSERVED_WORDS = new Uint32Array(4 * ROUND_POLY_COEFFS);
const OBSERVED = Array.from({ length: ROUND_POLY_COEFFS + 1 }, (_, n) => OBSERVED_WORDS.subarray(0, 4 * n));
