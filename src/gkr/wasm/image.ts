/**
 * Layer images: one layer's gates and constants copied into WASM memory in the form the GKR
 * kernels read (src/kernels/assembly/gkr-layer.ts), checked against the widths on the way.
 *
 * Layout of an image region (u32 words): an 8-word descriptor (byte pointers and counts:
 * linPtr, nLin, mulPtr, nMul, powPtr, nPow, constPtr, nConst), then the Lin records
 * (out, in1, coeff), the Mul records (out, in1, in2, coeff), the Pow3 records (out, in1, coeff) and
 * the constants (wire, value). Coefficients and values are stored in Montgomery form
 * (x·2^32 mod p). Gates are grouped by kind; within a kind they keep emission order. Every sum the
 * kernels form is a field sum, so the grouping does not change any result.
 */
import { P, mul } from "../../field/koalabear.js";
import { MONTGOMERY_R } from "../../kernels/constants.js";
import type { Region } from "../../kernels/memory.js";
import { GateKind, type Layer } from "../circuit.js";
import { CircuitError } from "../errors.js";

/** Words of the descriptor at the start of an image. */
export const IMAGE_DESCRIPTOR_WORDS = 8;

/** Gate counts of a layer by kind. */
export interface LayerCounts {
  readonly lin: number;
  readonly mul: number;
  readonly pow: number;
  readonly consts: number;
}

/** A layer placed in WASM memory. `desc` is the byte pointer the kernels take. */
export interface LayerImage {
  readonly region: Region;
  /** Byte pointer of the descriptor (= region.ptr). */
  readonly desc: number;
  readonly counts: LayerCounts;
  /** Width bits of the layer and of the vector it reads. */
  readonly outBits: number;
  readonly inBits: number;
}

/**
 * Counts the gates of each kind and checks every gate and constant against the widths, with the
 * codes and messages of `validateCircuit` (compat-v1 §7).
 * @throws CircuitError `BAD_WIDTH`, `BAD_GATE_KIND`, `UNARY_IN2_MISMATCH`, `WIRE_OUT_OF_RANGE`,
 *   `NON_CANONICAL_COEFF`.
 */
export function checkLayer(layer: Layer, inBits: number, index: number): LayerCounts {
  const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue } = layer;
  const n = gateKind.length;
  if (gateOut.length !== n || gateIn1.length !== n || gateIn2.length !== n || gateCoeff.length !== n) {
    throw new CircuitError("BAD_WIDTH", `layer ${index}: gate arrays have different lengths`);
  }
  if (constValue.length !== constWire.length)
    throw new CircuitError("BAD_WIDTH", `layer ${index}: constant arrays have different lengths`);
  const outSize = 2 ** layer.widthBits;
  const inSize = 2 ** inBits;
  let lin = 0,
    mulCount = 0,
    pow = 0;
  for (let g = 0; g < n; g++) {
    const kind = gateKind[g]!;
    const in1 = gateIn1[g]!;
    const in2 = gateIn2[g]!;
    if (kind === GateKind.Lin) lin++;
    else if (kind === GateKind.Mul) mulCount++;
    else if (kind === GateKind.Pow3) pow++;
    else
      throw new CircuitError(
        "BAD_GATE_KIND",
        `layer ${index} gate ${g}: unknown gate kind ${kind} (0 Lin, 1 Mul, 2 Pow3)`,
        { layer: index, gate: g },
      );
    if (kind !== GateKind.Mul && in2 !== in1) {
      throw new CircuitError("UNARY_IN2_MISMATCH", `layer ${index} gate ${g}: unary gate has in2 ${in2} ≠ in1 ${in1}`, {
        layer: index,
        gate: g,
      });
    }
    if (gateOut[g]! >= outSize)
      throw new CircuitError(
        "WIRE_OUT_OF_RANGE",
        `layer ${index} gate ${g}: out wire ${gateOut[g]} outside layer width ${outSize}`,
        { layer: index, gate: g },
      );
    if (in1 >= inSize || in2 >= inSize) {
      throw new CircuitError(
        "WIRE_OUT_OF_RANGE",
        `layer ${index} gate ${g}: input wire outside the width ${inSize} of the layer below`,
        { layer: index, gate: g },
      );
    }
    if (gateCoeff[g]! >= P)
      throw new CircuitError("NON_CANONICAL_COEFF", `layer ${index} gate ${g}: coefficient ${gateCoeff[g]} ≥ p`, {
        layer: index,
        gate: g,
      });
  }
  for (let c = 0; c < constWire.length; c++) {
    if (constWire[c]! >= outSize)
      throw new CircuitError(
        "WIRE_OUT_OF_RANGE",
        `layer ${index} const ${c}: wire ${constWire[c]} outside layer width ${outSize}`,
        { layer: index, const: c },
      );
    if (constValue[c]! >= P)
      throw new CircuitError("NON_CANONICAL_COEFF", `layer ${index} const ${c}: value ${constValue[c]} ≥ p`, {
        layer: index,
        const: c,
      });
  }
  return { lin, mul: mulCount, pow, consts: constWire.length };
}

/** Words an image of a layer with these counts occupies. */
export function imageWords(c: LayerCounts): number {
  return IMAGE_DESCRIPTOR_WORDS + 3 * c.lin + 4 * c.mul + 3 * c.pow + 2 * c.consts;
}

/**
 * Writes the image of `layer` (already checked: `counts` from `checkLayer`) into `region`, which
 * must hold `imageWords(counts)` words.
 */
export function writeLayerImage(region: Region, layer: Layer, inBits: number, counts: LayerCounts): LayerImage {
  const w = region.view();
  const base = region.ptr;
  const linAt = IMAGE_DESCRIPTOR_WORDS;
  const mulAt = linAt + 3 * counts.lin;
  const powAt = mulAt + 4 * counts.mul;
  const constAt = powAt + 3 * counts.pow;
  w[0] = base + 4 * linAt;
  w[1] = counts.lin;
  w[2] = base + 4 * mulAt;
  w[3] = counts.mul;
  w[4] = base + 4 * powAt;
  w[5] = counts.pow;
  w[6] = base + 4 * constAt;
  w[7] = counts.consts;
  const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue } = layer;
  let li = linAt,
    mi = mulAt,
    pi = powAt;
  const n = gateKind.length;
  for (let g = 0; g < n; g++) {
    const kind = gateKind[g]!;
    const c = mul(gateCoeff[g]!, MONTGOMERY_R);
    if (kind === GateKind.Lin) {
      w[li] = gateOut[g]!;
      w[li + 1] = gateIn1[g]!;
      w[li + 2] = c;
      li += 3;
    } else if (kind === GateKind.Mul) {
      w[mi] = gateOut[g]!;
      w[mi + 1] = gateIn1[g]!;
      w[mi + 2] = gateIn2[g]!;
      w[mi + 3] = c;
      mi += 4;
    } else {
      w[pi] = gateOut[g]!;
      w[pi + 1] = gateIn1[g]!;
      w[pi + 2] = c;
      pi += 3;
    }
  }
  let ci = constAt;
  for (let k = 0; k < constWire.length; k++) {
    w[ci] = constWire[k]!;
    w[ci + 1] = mul(constValue[k]!, MONTGOMERY_R);
    ci += 2;
  }
  return { region, desc: base, counts, outBits: layer.widthBits, inBits };
}
