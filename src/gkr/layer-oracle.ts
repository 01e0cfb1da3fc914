/**
 * The sumcheck oracle of one GKR layer (compat-v1 §10.1–§10.4) and the factory the prover
 * driver uses to build it, so the production (sparse) oracle and the test-only dense oracle are
 * interchangeable.
 */
import type { Ext } from "../field/extension.js";
import type { SumcheckOracle } from "../sumcheck/oracle.js";
import type { Layer } from "./circuit.js";
import type { Claim } from "./claims.js";

/** What a `LayerOracleFactory` gets for one layer: the layer and its index, the values of the layer below, and the combined claims (points in the extension field, weights from the transcript). */
export interface LayerOracleInput {
  /** The layer being reduced (gates read the layer below). */
  readonly layer: Layer;
  /** Its index (0 = output layer). */
  readonly layerIndex: number;
  /** s: width bits of the layer below (or the circuit's input width bits for the last layer). */
  readonly inputBits: number;
  /** V: the layer-below vector, 2^s canonical base elements (not modified). */
  readonly below: Uint32Array;
  /** Incoming claims (z_k, c_k); each z_k has layer.widthBits coordinates. */
  readonly claims: readonly Claim[];
}

/**
 * A sumcheck oracle over the 2s variables (x block, then y block; variable 0 = MSB of x) of
 * P(x, y) = Σ_k c_k·[lin~(z_k,x)·V(x)·β(y) + mul~(z_k,x,y)·V(x)·V(y) + pow3~(z_k,x)·V(x)³·β(y)].
 */
export interface LayerSumcheckOracle extends SumcheckOracle {
  /** V(x*) once the x block is bound. */
  evalX(): Ext;
  /** V(y*) once every variable is bound. */
  evalY(): Ext;
  /** Bytes of typed arrays this oracle has allocated so far (its own tables, not the inputs). */
  readonly allocatedBytes: number;
}

/** Builds the sumcheck oracle of one layer from its gates, the layer below and the claims on it; the prover's seam for its kernels (TypeScript `SparseLayerOracle` or WASM `WasmLayerOracle`). */
export type LayerOracleFactory = (input: LayerOracleInput) => LayerSumcheckOracle;
