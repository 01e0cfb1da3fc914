/**
 * Wiring oracles (compat-v1 §10.1, §10.6): the verifier's access to the predicate MLEs
 *   lin~(z, x) = Σ_{Lin} coeff·eq(z, out)·eq(x, in1), pow3~(z, x) likewise over Pow3,
 *   mul~(z, x, y) = Σ_{Mul} coeff·eq(z, out)·eq(x, in1)·eq(y, in2), const~(z) = Σ value·eq(z, wire).
 * Every implementation (explicit sparse table, derived closed form) must return identical field
 * values; implementations may add the combined evaluations, which the verifier prefers.
 */
import { EXT_ZERO, extAdd, extMul, type Ext } from "../../field/extension.js";
import { GateKind } from "../circuit.js";
import type { Claim } from "../claims.js";

/** Σ_k c_k·pred(z_k, x, y) for the three gate kinds of one layer. */
export interface LayerPredicates {
  readonly lin: Ext;
  readonly mul: Ext;
  readonly pow3: Ext;
}

/** The verifier's view of a circuit's wiring: the wiring predicates pred_kind(z, x, y) of each layer at points in the extension field, combined over the claims (compat-v1 §10.5). Implemented by `TableWiring` (explicit) and `DerivedRegularWiring` (closed form). */
export interface WiringOracle {
  /**
   * pred_kind(z, x, y) of layer `layer` (0 = output layer): z has s_out coordinates, x and y have
   * s coordinates (width bits of the layer below). y is used only for `GateKind.Mul`.
   */
  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext;
  /** const~(z) of layer `layer`. */
  evalConst(layer: number, z: readonly Ext[]): Ext;
  /** Optional: Σ_k c_k·pred(z_k, x, y) for all kinds at once (must equal the per-claim sums). */
  evalCombined?(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates;
  /** Optional: Σ_k c_k·const~(z_k) (must equal the per-claim sum). */
  evalConstCombined?(layer: number, claims: readonly Claim[]): Ext;
}

/** Σ_k c_k·pred(z_k, x, y) per kind, through `evalCombined` when the oracle has it. */
export function combinedPredicates(
  wiring: WiringOracle,
  layer: number,
  claims: readonly Claim[],
  x: readonly Ext[],
  y: readonly Ext[],
): LayerPredicates {
  if (wiring.evalCombined) return wiring.evalCombined(layer, claims, x, y);
  let lin = EXT_ZERO,
    mul = EXT_ZERO,
    pow3 = EXT_ZERO;
  for (const { point, coeff } of claims) {
    lin = extAdd(lin, extMul(coeff, wiring.evalPredicate(layer, GateKind.Lin, point, x, y)));
    mul = extAdd(mul, extMul(coeff, wiring.evalPredicate(layer, GateKind.Mul, point, x, y)));
    pow3 = extAdd(pow3, extMul(coeff, wiring.evalPredicate(layer, GateKind.Pow3, point, x, y)));
  }
  return { lin, mul, pow3 };
}

/** Σ_k c_k·const~(z_k), through `evalConstCombined` when the oracle has it. */
export function combinedConst(wiring: WiringOracle, layer: number, claims: readonly Claim[]): Ext {
  if (wiring.evalConstCombined) return wiring.evalConstCombined(layer, claims);
  let acc = EXT_ZERO;
  for (const { point, coeff } of claims) acc = extAdd(acc, extMul(coeff, wiring.evalConst(layer, point)));
  return acc;
}
