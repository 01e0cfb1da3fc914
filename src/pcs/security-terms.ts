/**
 * The error terms of WHIR's round-by-round soundness (Arnon, Chiesa, Fenzi, Yogev, "WHIR:
 * Reed–Solomon Proximity Testing with Super-Fast Verification", EUROCRYPT 2025, ePrint 2024/1586,
 * Theorem 5.2), each as bits (−log2 of the error), for a Reed–Solomon code of 2^m message
 * symbols at rate ρ = 2^−r over the degree-4 extension K (|K| = p^4 ≈ 2^124). docs/pcs.md §5
 * gives every formula with its source; the regimes fix the proximity parameter δ and the list
 * size ℓ:
 *
 * - unique decoding: δ = (1 − ρ)/2, ℓ = 1; proximity gaps error |L|/|K| (BCIKS20 Thm 1.2).
 * - Johnson bound: δ = 1 − √ρ − η with η = √ρ/20, ℓ = 1/(2η√ρ); proximity gaps error
 *   2^(2m)·(2·min(η, √ρ/20))^−7 / |K| (BCIKS20 Thm 1.5 as WHIR §4 applies it).
 * - capacity (conjectured): δ = 1 − ρ − η with η = ρ/20, ℓ = 2^m/(ρη) (STIR Conjecture 5.6);
 *   proximity gaps error 2^m/(ηρ²) / |K| (the correlated-agreement conjecture, BCIKS20 Conj. 8.4).
 */
import { P } from "../field/koalabear.js";
import type { SoundnessRegime } from "./regime.js";

/** log2 |K| for K = F_p[X]/(X^4 − 3): 4·log2 p ≈ 123.95. */
export const EXTENSION_FIELD_BITS = 4 * Math.log2(P);

/** A plain sumcheck round over the final polynomial: a degree-2 round polynomial, error 2/|K|. */
export const FINAL_SUMCHECK_ERROR_BITS = EXTENSION_FIELD_BITS - 1;

/** Collision resistance of the Merkle trees with the compat-v1 leaves: Poseidon2-16 with capacity 8 elements (8·log2 p / 2 bits). */
export const MERKLE_BITS = (8 * Math.log2(P)) / 2;

/**
 * Collision resistance of a set's Merkle trees (docs/pcs.md §5.1): the birthday bound on the
 * smaller of the leaf sponge's capacity (width − rate words) and the 8-word digest, and on the
 * node compression's 8-word output. Both leaf sponges keep 8 words of capacity (16 − 8 and
 * 24 − 16), so both give (8·log2 p)/2 ≈ 123.9 bits.
 */
export function merkleBits(leafWidth: 16 | 24): number {
  const rate = leafWidth === 24 ? 16 : 8;
  const capacity = leafWidth - rate;
  return (Math.min(capacity, 8) * Math.log2(P)) / 2;
}

/** log2 η by default: the gap between δ and the regime's bound (0 in unique decoding, where η is not used). */
export function defaultLogEta(regime: SoundnessRegime, r: number): number {
  if (regime === "johnson-bound") return -(0.5 * r + Math.log2(20));
  if (regime === "capacity") return -(r + Math.log2(20));
  return 0;
}

/** log2 ℓ: the list size of RS[2^m, ρ = 2^−r] at the regime's δ. */
export function listSizeBits(regime: SoundnessRegime, m: number, r: number, logEta: number): number {
  if (regime === "unique-decoding") return 0;
  if (regime === "johnson-bound") return 0.5 * r - 1 - logEta;
  return m + r - logEta;
}

/** log2 of 1/(1 − δ): the bits one in-domain query contributes. */
export function queryBitsPerSample(regime: SoundnessRegime, r: number, logEta: number): number {
  const rate = 2 ** -r;
  const eta = 2 ** logEta;
  const oneMinusDelta =
    regime === "unique-decoding" ? (1 + rate) / 2 : regime === "johnson-bound" ? Math.sqrt(rate) + eta : rate + eta;
  return -Math.log2(oneMinusDelta);
}

/** Bits of the proximity-gaps error of folding two functions of RS[2^m, 2^−r] with one random coefficient. */
export function proximityGapsBits(regime: SoundnessRegime, m: number, r: number, logEta: number): number {
  let err: number;
  if (regime === "unique-decoding") err = m + r;
  else if (regime === "johnson-bound") err = 2 * m + 7 * (Math.min(1 + Math.log2(10) + 0.5 * r, -logEta) - 1);
  else err = m + 2 * r - logEta;
  return EXTENSION_FIELD_BITS - err;
}

/** Bits of the sumcheck term of a folding round: d·ℓ/|K| with round polynomials of degree d = 2. */
export function sumcheckRoundBits(regime: SoundnessRegime, m: number, r: number, logEta: number): number {
  return EXTENSION_FIELD_BITS - (listSizeBits(regime, m, r, logEta) + 1);
}

/** ε_fold of Theorem 5.2 in bits: the smaller of the proximity-gaps and sumcheck terms. */
export function foldErrorBits(regime: SoundnessRegime, m: number, r: number, logEta: number): number {
  return Math.min(proximityGapsBits(regime, m, r, logEta), sumcheckRoundBits(regime, m, r, logEta));
}

/**
 * ε_out in bits for t out-of-domain samples of a function in RS[2^m, 2^−r]: (ℓ choose 2)·(2^m/|K|)^t,
 * bounded by ℓ²·2^(m·t)/(2·|K|^t) (STIR Lemma 4.5). Unique decoding (ℓ = 1) needs none: +∞.
 */
export function oodErrorBits(regime: SoundnessRegime, m: number, r: number, logEta: number, t: number): number {
  if (regime === "unique-decoding") return Infinity;
  return t * EXTENSION_FIELD_BITS + 1 - (2 * listSizeBits(regime, m, r, logEta) + m * t);
}

/** The combination term of ε_shift in bits: ℓ·(t + 1)/|K| for t constraints combined with one random coefficient. */
export function combinationErrorBits(
  regime: SoundnessRegime,
  m: number,
  r: number,
  logEta: number,
  constraints: number,
): number {
  return EXTENSION_FIELD_BITS - (Math.log2(constraints + 1) + listSizeBits(regime, m, r, logEta));
}

/**
 * log2 η of a capacity-regime round: the default ρ/20, raised where that default would ask for more
 * than `foldPowBudget` bits of grinding per folding challenge (low rates make the conjectured
 * proximity-gaps term 2^m/(ηρ²) large): the smallest η with proximity-gaps bits ≥ λ − budget.
 * More queries pay for it (1 − δ = ρ + η). Other regimes keep their default.
 */
export function roundLogEta(
  regime: SoundnessRegime,
  m: number,
  r: number,
  lambda: number,
  foldPowBudget: number,
): number {
  const base = defaultLogEta(regime, r);
  if (regime !== "capacity") return base;
  const needed = lambda - foldPowBudget - EXTENSION_FIELD_BITS + m + 2 * r;
  return Math.max(base, Math.ceil(needed * 4) / 4);
}
