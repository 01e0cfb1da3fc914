/**
 * Sumcheck prover with the compat-v1 transcript schedule (§10.2–§10.4, step 2.1): per round,
 * compute a_0..a_4, observe_ext(a_0) … observe_ext(a_4), r ← sample_ext(), bind.
 */
import type { Ext } from "../field/extension.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { SumcheckError } from "./errors.js";
import { ROUND_POLY_COEFFS, interpolateRoundPoly } from "./interpolate.js";
import type { SumcheckOracle } from "./oracle.js";

/** Largest degree a round polynomial may have (5 coefficients). */
export const MAX_ROUND_DEGREE = ROUND_POLY_COEFFS - 1;

/** The transcript of a sumcheck: one round polynomial per variable (5 extension coefficients each), the challenges and the final claim. */
export interface SumcheckProof {
  /** One round polynomial per variable, each exactly 5 ascending coefficients. */
  readonly rounds: Ext[][];
  /** The challenges r_0..r_{n−1} in round order (the point the oracle is now bound to). */
  readonly point: Ext[];
}

/**
 * Runs all rounds of `oracle` against `transcript` (mutated: 20 base observes and one sample_ext
 * per round).
 * @throws SumcheckError `DEGREE_TOO_HIGH` if the oracle declares degree > 4 or returns more than
 * 5 values in a round; `BAD_ROUND_MESSAGE` if it returns none.
 */
export function proveSumcheck(oracle: SumcheckOracle, transcript: DuplexChallenger): SumcheckProof {
  if (!(oracle.degree <= MAX_ROUND_DEGREE)) {
    throw new SumcheckError(
      "DEGREE_TOO_HIGH",
      `sumcheck oracle declares degree ${oracle.degree}, above the limit ${MAX_ROUND_DEGREE} (5 coefficients)`,
    );
  }
  const rounds: Ext[][] = [];
  const point: Ext[] = [];
  for (let j = 0; j < oracle.numVariables; j++) {
    const coeffs = roundCoefficients(oracle, j);
    for (const a of coeffs) transcript.observeExt(a);
    const r = transcript.sampleExt();
    oracle.bind(r);
    rounds.push(coeffs);
    point.push(r);
  }
  return { rounds, point };
}

function roundCoefficients(oracle: SumcheckOracle, round: number): Ext[] {
  const msg = oracle.roundPolynomial();
  const n = msg.values.length;
  if (n > ROUND_POLY_COEFFS || n > oracle.degree + 1) {
    throw new SumcheckError(
      "DEGREE_TOO_HIGH",
      `round ${round}: the oracle returned ${n} values for a polynomial of declared degree ${oracle.degree} (at most ${Math.min(ROUND_POLY_COEFFS, oracle.degree + 1)})`,
      { round },
    );
  }
  if (n === 0) throw new SumcheckError("BAD_ROUND_MESSAGE", `round ${round}: the oracle returned no values`, { round });
  if (msg.kind === "evaluations") return interpolateRoundPoly(msg.values);
  const out: Ext[] = msg.values.slice();
  while (out.length < ROUND_POLY_COEFFS) out.push([0, 0, 0, 0]);
  return out;
}
