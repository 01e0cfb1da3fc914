/**
 * Incoming claims of a layer (compat-v1 §10.1, §10.4): pairs (z_k, c_k) with targets
 * t_k = claimed V_i(z_k). The sumcheck of layer i proves Σ_k c_k·(t_k − const~(z_k)).
 */
import type { Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { add } from "../field/koalabear.js";
import { eqTable } from "../sumcheck/mle.js";
import { CircuitError } from "./errors.js";

/** One incoming claim: a point of s_out coordinates (MSB-first) and its combination coefficient. */
export interface Claim {
  readonly point: readonly Ext[];
  readonly coeff: Ext;
}

/**
 * Weights w[o] = Σ_k c_k·eq(z_k, o) for o < 2^bits, as one extension table (plane layout).
 * Allocates 16·2^bits bytes per claim (the tables of later claims are added into the first).
 * @throws CircuitError `BAD_POINT` if a claim's point does not have `bits` coordinates.
 */
export function claimWeights(claims: readonly Claim[], bits: number): ExtVector {
  for (let k = 0; k < claims.length; k++) {
    if (claims[k]!.point.length !== bits) {
      throw new CircuitError(
        "BAD_POINT",
        `claim ${k} has a point of ${claims[k]!.point.length} coordinates, the layer has ${bits} width bits`,
        { claim: k },
      );
    }
  }
  if (claims.length === 0) return new ExtVector(2 ** bits);
  const w = eqTable(claims[0]!.point, claims[0]!.coeff);
  const d = w.data;
  for (let k = 1; k < claims.length; k++) {
    const e = eqTable(claims[k]!.point, claims[k]!.coeff).data;
    for (let i = 0; i < d.length; i++) d[i] = add(d[i]!, e[i]!);
  }
  return w;
}
