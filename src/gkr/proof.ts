/**
 * In-memory GKR proof objects (compat-v1 §10.4).
 */
import type { Ext } from "../field/extension.js";

/** A sumcheck round polynomial as ascending coefficients a_0..a_m (m ≤ 4; the wire format always has 5). */
export type RoundPoly = readonly Ext[];

/** Proof of one layer: 2·s_in round polynomials, then V(x*) and V(y*). */
export interface LayerProof {
  readonly rounds: readonly RoundPoly[];
  readonly evalX: Ext;
  readonly evalY: Ext;
}

/** A GKR proof: one layer proof per circuit layer, output layer first. */
export interface GkrProof {
  readonly layers: readonly LayerProof[];
}

/** The claim left for the caller to discharge against its own input vector: MLE(input)(x*) = evalX and MLE(input)(y*) = evalY. */
export interface InputClaim {
  readonly x: readonly Ext[];
  readonly evalX: Ext;
  readonly y: readonly Ext[];
  readonly evalY: Ext;
}
