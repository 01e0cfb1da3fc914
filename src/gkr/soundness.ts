/**
 * The soundness error of one GKR proof as the verifier of compat-v1 §10.5 checks it, from the
 * circuit's shape (docs/security.md gives the derivation):
 *
 *   ε ≤ (s_out(0) + 4·R + (D − 1)) / |K|,   |K| = p^4,
 *
 * where R = Σ_i 2·s_in(i) is the number of sumcheck rounds, D the layer count and s_out(0) the
 * output layer's width bits. Terms: the random output point z_0 (a non-zero multilinear polynomial
 * in s_out(0) variables vanishes there with probability ≤ s_out(0)/|K|); each round polynomial of
 * degree ≤ 4 (the verifier accepts up to 5 coefficients in every round, x and y rounds alike);
 * each of the D − 1 random combinations of the two claims (eval_x, eval_y) into one. The final
 * input claims are checked exactly (the verifier evaluates the MLE of the input itself).
 */
import { P } from "../field/koalabear.js";
import { type CircuitShape, shapeInputBits } from "./shape.js";

/** Most coefficients − 1 the verifier accepts in a round polynomial. */
export const ROUND_DEGREE_BOUND = 4;

/** log2 |K| = 4·log2 p ≈ 123.95 for the degree-4 extension of KoalaBear. */
export const LOG2_CHALLENGE_FIELD = 4 * Math.log2(P);

/** The terms of the bound for one circuit. */
export interface SoundnessBound {
  /** Layer count D. */
  readonly layers: number;
  /** s_out(0). */
  readonly outputBits: number;
  /** Sumcheck rounds R = Σ 2·s_in(i). */
  readonly rounds: number;
  /** s_out(0) + 4·R + (D − 1). */
  readonly numerator: number;
  /** log2 ε = log2(numerator) − log2 |K|. */
  readonly log2Error: number;
}

/** The bound for a circuit shape (see the module comment). */
export function gkrSoundnessBound(shape: CircuitShape): SoundnessBound {
  const layers = shape.layerWidthBits.length;
  let rounds = 0;
  for (let i = 0; i < layers; i++) rounds += 2 * shapeInputBits(shape, i);
  const outputBits = shape.layerWidthBits[0] ?? 0;
  const numerator = outputBits + ROUND_DEGREE_BOUND * rounds + Math.max(layers - 1, 0);
  return { layers, outputBits, rounds, numerator, log2Error: Math.log2(numerator) - LOG2_CHALLENGE_FIELD };
}
