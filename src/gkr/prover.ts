/**
 * GKR prover driver (compat-v1 §10.4). The caller has already run §11 steps 1–5 on the
 * transcript (statement, commitment, public inputs, claimed outputs).
 */
import { P } from "../field/koalabear.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { type Circuit, inputBitsOf, validateCircuit } from "./circuit.js";
import { driveGkr, type GkrProveResult, type LayerProveStats } from "./driver.js";

export type { GkrProveResult, LayerProveStats } from "./driver.js";
import { CircuitError } from "./errors.js";
import type { LayerOracleFactory } from "./layer-oracle.js";
import { sparseLayerOracle } from "./sparse-oracle.js";
import { type GkrKernels, gkrKernels } from "./wasm/kernels.js";
import { wasmLayerOracleFactory } from "./wasm/oracle.js";

/** Options of `proveGkr`: the layer-oracle factory (kernel choice) and progress callbacks. */
export interface ProveGkrOptions {
  /**
   * Builds the sumcheck oracle of each layer; default: `defaultLayerOracleFactory()` (the WASM
   * oracle when the kernel module is available, else the TypeScript sparse oracle
   * `sparseLayerOracle`). Every oracle gives the same proof.
   */
  readonly oracleFactory?: LayerOracleFactory;
  /** Called after each layer is proved. */
  readonly onLayer?: (stats: LayerProveStats) => void;
}

/**
 * Proves that `witness` is the evaluation of `circuit` (outputs included as they are: the prover
 * does not check that the outputs are zero).
 *
 * Schedule: that of `driveGkr` (src/gkr/driver.ts, compat-v1 §10.4), with one oracle per layer
 * from the factory.
 *
 * A circuit is validated on its first proof in this thread and must not change afterwards
 * (prepared circuits never do).
 *
 * @param witness layer vectors output first, the padded input vector last (length D + 1), as
 *   returned by `evaluateCircuit`; vector j has 2^(width bits) canonical elements. Not modified.
 * @param transcript mutated.
 * @throws CircuitError from `validateCircuit`; `WITNESS_LENGTH`, `WITNESS_WIDTH` or
 *   `WITNESS_NON_CANONICAL` for a witness of the wrong shape.
 */
export function proveGkr(
  circuit: Circuit,
  witness: readonly Uint32Array[],
  transcript: DuplexChallenger,
  options: ProveGkrOptions = {},
): GkrProveResult {
  if (!validated.has(circuit)) {
    validateCircuit(circuit);
    validated.add(circuit);
  }
  validateWitness(circuit, witness);
  const factory = options.oracleFactory ?? defaultLayerOracleFactory();
  return driveGkr(
    circuit.layers.length,
    circuit.layers[0]!.widthBits,
    transcript,
    (i, claims) => {
      const layer = circuit.layers[i]!;
      const s = inputBitsOf(circuit, i);
      return {
        oracle: factory({ layer, layerIndex: i, inputBits: s, below: witness[i + 1]!, claims }),
        outputBits: layer.widthBits,
        inputBits: s,
        gates: layer.gateKind.length,
      };
    },
    options.onLayer,
  );
}

/** Circuits that passed `validateCircuit` in an earlier proof. */
const validated = new WeakSet<Circuit>();

/** The WASM factory over the context it was made for (kept while `gkrKernels()` returns that context). */
let wasmDefault: { readonly kernels: GkrKernels; readonly factory: LayerOracleFactory } | undefined;

/**
 * The oracle factory `proveGkr` uses by default: WASM oracles over this thread's `gkrKernels()`
 * context when the kernel module is available and switched on, else `sparseLayerOracle`. Asked on
 * every proof, so it follows the installed kernel backend (`installKernelBackend`).
 */
export function defaultLayerOracleFactory(): LayerOracleFactory {
  const k = gkrKernels();
  if (k === null) return sparseLayerOracle;
  if (wasmDefault?.kernels !== k) wasmDefault = { kernels: k, factory: wasmLayerOracleFactory(k) };
  return wasmDefault.factory;
}

function validateWitness(circuit: Circuit, witness: readonly Uint32Array[]): void {
  const D = circuit.layers.length;
  if (!Array.isArray(witness) || witness.length !== D + 1) {
    throw new CircuitError(
      "WITNESS_LENGTH",
      `the witness must hold ${D + 1} vectors (${D} layers and the input), got ${Array.isArray(witness) ? witness.length : typeof witness}`,
    );
  }
  for (let j = 0; j <= D; j++) {
    const bits = j < D ? circuit.layers[j]!.widthBits : circuit.inputWidthBits;
    const v = witness[j];
    const what = j < D ? `witness vector ${j} (layer ${j})` : `witness vector ${j} (input)`;
    if (!(v instanceof Uint32Array) || v.length !== 2 ** bits) {
      throw new CircuitError(
        "WITNESS_WIDTH",
        `${what} must be a Uint32Array of 2^${bits} = ${2 ** bits} elements, got ${v instanceof Uint32Array ? v.length : typeof v}`,
        { vector: j },
      );
    }
    for (let k = 0; k < v.length; k++) {
      if (v[k]! >= P)
        throw new CircuitError("WITNESS_NON_CANONICAL", `${what}[${k}] = ${v[k]} is not canonical (< p)`, {
          vector: j,
          index: k,
        });
    }
  }
}
