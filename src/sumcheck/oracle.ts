/**
 * The prover-side view of a sumcheck instance: a polynomial over `numVariables` variables, bound
 * one variable at a time, most significant first (compat-v1 §10.2).
 */
import type { Ext } from "../field/extension.js";

/**
 * One round's polynomial g_j, given either as evaluations at T = 0, 1, …, m or as ascending
 * coefficients a_0..a_m; in both cases m ≤ 4 (at most 5 values).
 */
export type RoundMessage =
  | { readonly kind: "evaluations"; readonly values: readonly Ext[] }
  | { readonly kind: "coefficients"; readonly values: readonly Ext[] };

/** What the sumcheck prover drives (compat-v1 §8): a multivariate polynomial that gives each round's polynomial (degree ≤ 4, as evaluations or coefficients) and binds a challenge. */
export interface SumcheckOracle {
  /** Number of variables (= number of rounds). */
  readonly numVariables: number;
  /** Upper bound on the degree of every round polynomial (≤ 4 for compat-v1). */
  readonly degree: number;
  /**
   * g_j for the current round j: the sum over the remaining Boolean variables with the current
   * variable left free. Called exactly once per round, before `bind`.
   */
  roundPolynomial(): RoundMessage;
  /** Binds the current (most significant remaining) variable to the challenge r. */
  bind(r: Ext): void;
}
