/**
 * Data-parallel GKR prover for K = 2^k copies of one structured circuit (docs/profile-v2.md §6.2,
 * §10.1): the compat-v1 §10.4 schedule over the replicated circuit's shape (every width + k, the
 * copy index = the first k coordinates of every point), with the layer sumchecks of
 * `CopiesLayerOracle`, which reads one copy's gates only. The proof is the one
 * `proveStructuredGkr(replicateStructuredCircuit(circuit, k), …)` gives (tested), without
 * building the replicated circuit.
 */
import { P } from "../../field/koalabear.js";
import type { DuplexChallenger } from "../../transcript/challenger.js";
import { driveGkr } from "../driver.js";
import { inputBitsOf } from "../circuit.js";
import { CircuitError } from "../errors.js";
import type { GkrProveResult, LayerProveStats } from "../prover.js";
import { type StructuredCircuit, evaluateStructuredCircuit, validateStructuredCircuit } from "./linear.js";
import { type CopiesBackend, CopiesLayerOracle, type LayerValues, valuesOf } from "./dp-oracle.js";
import { hasCopiesKernels, wasmCopiesBackend } from "./dp-wasm.js";
import { KeptVector, ResidentCopies, evaluateCopiesWasm, hasCopiesEvalKernel } from "./dp-resident.js";

export { type LayerValues, valuesOf } from "./dp-oracle.js";
import { type GkrKernels, gkrKernels } from "../wasm/kernels.js";
import { MAX_COPY_BITS, replicateStructuredCircuit } from "./copies.js";
import { proveStructuredGkr } from "./oracle.js";

export interface CopiesProveOptions {
  /** Default `defaultCopiesBackend()`; every backend (and the fallback) gives the same proof. */
  readonly backend?: CopiesBackend;
  /** Called after each layer is proved. */
  readonly onLayer?: (stats: LayerProveStats) => void;
}

/** The WASM backend over the context it was made for (kept while `gkrKernels()` returns that context). */
let wasmDefault: { readonly kernels: GkrKernels; readonly backend: CopiesBackend | null } | undefined;

/**
 * The WASM backend over this thread's `gkrKernels()` when the module has the data-parallel
 * kernels and is switched on, else null (`proveCopiesGkr` then proves the replicated circuit with
 * the structured oracle: the TypeScript backend is a reference, far slower). Asked on every
 * proof, so it follows the installed kernel backend.
 */
export function defaultCopiesBackend(): CopiesBackend | null {
  const k = gkrKernels();
  if (k === null) return null;
  if (wasmDefault?.kernels !== k)
    wasmDefault = { kernels: k, backend: hasCopiesKernels(k) ? wasmCopiesBackend(k) : null };
  return wasmDefault.backend;
}

const replicated = new WeakMap<StructuredCircuit, Map<number, StructuredCircuit>>();

function replicatedCircuit(circuit: StructuredCircuit, k: number): StructuredCircuit {
  let m = replicated.get(circuit);
  if (!m) replicated.set(circuit, (m = new Map()));
  let c = m.get(k);
  if (!c) m.set(k, (c = k === 0 ? circuit : replicateStructuredCircuit(circuit, k)));
  return c;
}

const validated = new WeakSet<StructuredCircuit>();

/**
 * Vectors `evaluateStructuredCopies` returned (canonical by construction, the input checked there):
 * `proveCopiesGkr` checks their lengths but does not scan their values again.
 */
const canonicalVectors = new WeakSet<Uint32Array>();

/**
 * Proves that `witness` is the evaluation of 2^copyBits copies of `circuit` side by side.
 * @param witness the replicated layer vectors, output first, the input last: vector j holds the
 *   2^k copies' vectors back to back (2^(k + width bits) canonical values). Not modified. The
 *   values of vectors returned by `evaluateStructuredCopies` are not scanned again (those it keeps
 *   in kernel memory are read there).
 * @param transcript mutated (the caller has observed the statement and the claimed outputs).
 * @throws CircuitError `BAD_OPTION` (copy bits outside [0, 12]), `BAD_WIDTH` (a width + k above
 *   30), `WITNESS_LENGTH` / `WITNESS_WIDTH` / `WITNESS_NON_CANONICAL`, or from
 *   `validateStructuredCircuit`.
 */
export function proveCopiesGkr(
  circuit: StructuredCircuit,
  copyBits: number,
  witness: readonly LayerValues[],
  transcript: DuplexChallenger,
  options: CopiesProveOptions = {},
): GkrProveResult {
  if (!Number.isInteger(copyBits) || copyBits < 0 || copyBits > MAX_COPY_BITS)
    throw new CircuitError("BAD_OPTION", `copy bits must be an integer in [0, ${MAX_COPY_BITS}], got ${copyBits}`);
  if (!validated.has(circuit)) {
    validateStructuredCircuit(circuit);
    validated.add(circuit);
  }
  const k = copyBits;
  if (circuit.inputWidthBits + k > 30 || circuit.layers.some((l) => l.widthBits + k > 30))
    throw new CircuitError("BAD_WIDTH", "replicated widths would exceed 30 bits");
  validateCopiesWitness(circuit, k, witness);
  const backend = options.backend ?? defaultCopiesBackend();
  // One copy (k = 0): the structured WASM oracle has less fixed cost per layer than the two-stage
  // data-parallel one (measured, docs/profile-v2.md §6.1); same proof.
  if (backend === null || (k === 0 && options.backend === undefined))
    return proveStructuredGkr(replicatedCircuit(circuit, k), witness.map(valuesOf), transcript, {
      onLayer: options.onLayer,
    });
  return driveGkr(
    circuit.layers.length,
    circuit.layers[0]!.widthBits + k,
    transcript,
    (i, claims) => {
      const layer = circuit.layers[i]!;
      const s = inputBitsOf(circuit, i);
      const oracle = new CopiesLayerOracle(backend, {
        layer,
        layerIndex: i,
        copyBits: k,
        inputBits: s,
        below: witness[i + 1]!,
        claims,
      });
      return {
        oracle,
        outputBits: layer.widthBits + k,
        inputBits: s + k,
        gates: layer.gateKind.length,
        dispose: () => oracle.dispose(),
      };
    },
    options.onLayer,
  );
}

/**
 * Checks the shape of a replicated witness (D + 1 vectors of 2^(width + k) canonical values;
 * vectors from `evaluateStructuredCopies` are not scanned again).
 * @throws CircuitError `WITNESS_LENGTH`, `WITNESS_WIDTH`, `WITNESS_NON_CANONICAL`.
 */
export function validateCopiesWitness(circuit: StructuredCircuit, k: number, witness: readonly LayerValues[]): void {
  const D = circuit.layers.length;
  if (!Array.isArray(witness) || witness.length !== D + 1) {
    throw new CircuitError(
      "WITNESS_LENGTH",
      `the witness must hold ${D + 1} vectors (${D} layers and the input), got ${Array.isArray(witness) ? witness.length : typeof witness}`,
    );
  }
  for (let j = 0; j <= D; j++) {
    const bits = (j < D ? circuit.layers[j]!.widthBits : circuit.inputWidthBits) + k;
    const v = witness[j];
    const what = j < D ? `witness vector ${j} (layer ${j})` : `witness vector ${j} (input)`;
    const held = v instanceof KeptVector;
    if (!(v instanceof Uint32Array || held) || v.length !== 2 ** bits) {
      throw new CircuitError(
        "WITNESS_WIDTH",
        `${what} must be a Uint32Array of 2^${bits} = ${2 ** bits} elements, got ${v instanceof Uint32Array || held ? v.length : typeof v}`,
        { vector: j },
      );
    }
    if (held || canonicalVectors.has(v)) continue;
    for (let i = 0; i < v.length; i++) {
      if (v[i]! >= P)
        throw new CircuitError("WITNESS_NON_CANONICAL", `${what}[${i}] = ${v[i]} is not canonical (< p)`, {
          vector: j,
          index: i,
        });
    }
  }
}

/**
 * The witness of 2^k copies of `circuit` from their inputs, as `evaluateStructuredCircuit` gives
 * it for the replicated circuit (vector j = the copies' vectors back to back), computed copy by
 * copy on the single circuit.
 * @param input 2^k inputs of 2^inputWidthBits values each, back to back.
 * @param keep from `residentCopies()`: the WASM evaluation keeps vectors 1..D in kernel memory
 *   (Montgomery form) and hands them out as `KeptVector`s (vector D holds `input`), which
 *   `proveCopiesGkr` reads there instead of copying them in per layer (same proof); `valuesOf`
 *   reads one out canonical. The caller must not modify the input meanwhile and must call
 *   `keep.recycle()` or `keep.release()` (in a finally).
 * @throws CircuitError `INPUT_WIDTH` for an input of the wrong length or a non-canonical value.
 */
export function evaluateStructuredCopies(
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
): Uint32Array[];
export function evaluateStructuredCopies(
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
  keep: ResidentCopies | null,
): LayerValues[];
export function evaluateStructuredCopies(
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
  keep: ResidentCopies | null = null,
): LayerValues[] {
  const K = 2 ** copyBits;
  const size = 2 ** circuit.inputWidthBits;
  if (input.length !== K * size)
    throw new CircuitError("INPUT_WIDTH", `the input of ${K} copies must hold ${K * size} values, got ${input.length}`);
  for (let i = 0; i < input.length; i++)
    if (input[i]! >= P) throw new CircuitError("INPUT_WIDTH", `input value ${i} = ${input[i]} is not canonical (< p)`);
  const kernels = gkrKernels();
  const out =
    kernels && hasCopiesEvalKernel(kernels)
      ? evaluateCopiesWasm(kernels, circuit, copyBits, input, keep !== null && keep.kernels === kernels ? keep : null)
      : evaluateCopiesTs(circuit, copyBits, input);
  for (const v of out) if (v instanceof Uint32Array) canonicalVectors.add(v);
  return out;
}

/** The TypeScript reference of `evaluateStructuredCopies` (copy by copy, `evaluateStructuredCircuit`). */
export function evaluateCopiesTs(circuit: StructuredCircuit, copyBits: number, input: Uint32Array): Uint32Array[] {
  const K = 2 ** copyBits;
  const size = 2 ** circuit.inputWidthBits;
  const D = circuit.layers.length;
  const widths = [...circuit.layers.map((l) => 2 ** l.widthBits), size];
  const out = widths.map((w) => new Uint32Array(w * K));
  for (let c = 0; c < K; c++) {
    const values = evaluateStructuredCircuit(circuit, input.subarray(c * size, (c + 1) * size));
    for (let j = 0; j <= D; j++) out[j]!.set(values[j]!, c * widths[j]!);
  }
  return out;
}

/** A keeper of the copies' layer vectors on this thread's kernels for `evaluateStructuredCopies`, or null without the data-parallel WASM kernels. */
export function residentCopies(): ResidentCopies | null {
  const k = gkrKernels();
  return k && hasCopiesEvalKernel(k) && hasCopiesKernels(k) ? new ResidentCopies(k) : null;
}
