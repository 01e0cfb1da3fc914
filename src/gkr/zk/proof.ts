/**
 * In-memory proof objects of the zero-knowledge GKR (docs/profile-v3.md §11.4).
 */
import type { Ext } from "../../field/extension.js";

/** Proof of one layer: G_i, the 2·n_x round polynomials (δ_j + 1 coefficients each), V̇(x*), V̇(y*) and the mask claim's value ν_i. */
export interface ZkLayerProof {
  /** G_i = Σ over the hypercube of the sumcheck mask g_i. */
  readonly maskSum: Ext;
  /** Round j's polynomial: exactly δ_j + 1 ascending coefficients (`zkRoundDegrees`). */
  readonly rounds: readonly (readonly Ext[])[];
  /** V̇_(i+1)(x*), V̇_(i+1)(y*): the masked values of the layer below (the input layer is not masked: its committed half holds random lanes instead). */
  readonly evalX: Ext;
  readonly evalY: Ext;
  /** ν_i = β(x*)·β(y*_(1..))·T(y*_0) + ρ_i·g_i(x*, y*), a linear function of the layer's masks proved by the opening. */
  readonly maskValue: Ext;
}

/** A zero-knowledge GKR proof: one layer proof per circuit layer, output layer first. */
export interface ZkGkrProof {
  readonly layers: readonly ZkLayerProof[];
}

/** A claim on one layer's masks: Σ_c weights[c]·coefficient_c = value (coefficients in `maskCoefficients` order). */
export interface ZkMaskClaim {
  readonly layer: number;
  readonly weights: readonly Ext[];
  readonly value: Ext;
}

/** What the zero-knowledge GKR leaves to the opening: the input claim (on the unmasked input vector) and one claim per layer on its masks. */
export interface ZkGkrClaims {
  readonly input: import("../proof.js").InputClaim;
  readonly masks: readonly ZkMaskClaim[];
}
