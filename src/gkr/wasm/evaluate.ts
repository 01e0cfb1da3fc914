/**
 * Circuit evaluation (witness generation, compat-v1 §7) on the WASM kernels: every layer vector
 * is computed in WASM memory in Montgomery form (`gkr_eval_layer`, one call per layer, reading the
 * cached layer images) and copied out canonical. Same result as `evaluateCircuit`
 * (src/gkr/circuit.ts), which is the reference (test/gkr/wasm-evaluate.test.ts).
 */
import { type Circuit, evaluateCircuit, inputBitsOf, padInput } from "../circuit.js";
import { CircuitError } from "../errors.js";
import type { LayerImage } from "./image.js";
import { type GkrKernels, gkrKernels } from "./kernels.js";

/**
 * Evaluates every layer, like `evaluateCircuit`: `input` may be shorter than 2^inputWidthBits
 * (zero-padded); returns the layer vectors output first and the padded input last, canonical.
 * Falls back to `evaluateCircuit` when the kernels are not available.
 * @param kernels the context to run on (default: this thread's `gkrKernels()`).
 * @throws CircuitError `INPUT_WIDTH` for an input longer than 2^inputWidthBits or holding a
 *   non-canonical value; `EMPTY_CIRCUIT`, `BAD_WIDTH` and the gate codes of `checkLayer` for a
 *   malformed circuit (checked once per layer object while its image is cached).
 */
export function evaluateCircuitFast(
  circuit: Circuit,
  input: ArrayLike<number>,
  kernels: GkrKernels | null = gkrKernels(),
): Uint32Array[] {
  if (kernels === null) return evaluateCircuit(circuit, input);
  const D = circuit.layers.length;
  if (D === 0) throw new CircuitError("EMPTY_CIRCUIT", "circuit has no layers");
  const bitsOf = (j: number) => (j < D ? circuit.layers[j]!.widthBits : circuit.inputWidthBits);
  const offsets: number[] = [];
  let total = 0;
  for (let j = 0; j <= D; j++) {
    const b = bitsOf(j);
    if (!Number.isInteger(b) || b < 0 || b > 30)
      throw new CircuitError(
        "BAD_WIDTH",
        `${j < D ? `layer ${j}` : "input"} width bits must be an integer in [0, 30], got ${b}`,
      );
    offsets.push(total);
    total += Math.ceil(2 ** b / 4) * 4;
  }
  const padded = padInput(circuit, input);
  const images: LayerImage[] = [];
  const region = kernels.acquire(total);
  try {
    for (let i = 0; i < D; i++) images.push(kernels.pinImage(circuit.layers[i]!, inputBitsOf(circuit, i), i));
    const raw = kernels.raw;
    const base = region.ptr;
    const at = (j: number) => base + 4 * offsets[j]!;
    let w = kernels.words();
    w.set(padded, at(D) >>> 2);
    raw.to_mont(at(D), at(D), padded.length);
    for (let i = D - 1; i >= 0; i--) {
      raw.gkr_eval_layer(images[i]!.desc, at(i + 1), at(i), 2 ** bitsOf(i + 1), 2 ** bitsOf(i));
    }
    raw.from_mont(base, base, offsets[D]!);
    w = kernels.words();
    const out: Uint32Array[] = new Array(D + 1);
    for (let j = 0; j < D; j++) {
      const o = at(j) >>> 2;
      out[j] = w.slice(o, o + 2 ** bitsOf(j));
    }
    out[D] = padded;
    return out;
  } finally {
    for (const image of images) kernels.unpin(image);
    kernels.giveBack(region);
  }
}
