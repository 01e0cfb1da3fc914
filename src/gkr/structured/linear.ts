/**
 * The structured linear gate family of profile v2 (docs/profile-v2.md §4).
 *
 * A structured layer is a plain layer (gates and constants as in compat-v1 §7) plus groups of
 * blocks. A group applies one linear map M of 2^b lanes (src/gkr/structured/maps.ts), after an
 * optional cube on chosen input lanes, plus one constant vector, to every block:
 *
 *   V_i[outBase + z] += Σ_x M[z][x]·f_x(V[inBase + x]) + c[z],   f_x(v) = v³ if lane x is cubed else v,
 *
 * for z, x < 2^b. Block bases are multiples of 2^b (so a wire splits into block bits and lane
 * bits). The group is the same polynomial as the 2^(2b) Lin/Pow3 gates of its dense form (the
 * expansion `expandStructuredCircuit` gives), so every wiring predicate is unchanged in meaning;
 * only its cost changes.
 *
 * A structured circuit is a `Circuit` whose layers carry `linear` groups; compat-v1 code that
 * ignores the groups must not be given one (use the functions here and in oracle.ts).
 */
import { P, add, mul } from "../../field/koalabear.js";
import {
  type Circuit,
  type Gate,
  type Layer,
  GateKind,
  evaluateLayer,
  inputBitsOf,
  makeLayer,
  padInput,
  validateCircuit,
} from "../circuit.js";
import { CircuitError } from "../errors.js";
import { type LinearMap, isKnownLinearMap } from "./maps.js";

/** One group of blocks sharing a linear map, cube mask and constant vector. */
export interface LinearBlockGroup {
  readonly map: LinearMap;
  /** Bit x set: input lane x is cubed before the map (a Pow3 tap). Below 2^(2^laneBits). */
  readonly cubeMask: number;
  /** c[z], one canonical value per output lane (2^laneBits entries), added in every block. */
  readonly constants: Uint32Array;
  /** Output wire of lane 0 of each block (multiples of 2^laneBits). */
  readonly outBase: Uint32Array;
  /** Input wire (in the layer below) of lane 0 of each block, same length as outBase. */
  readonly inBase: Uint32Array;
}

export interface StructuredLayer extends Layer {
  readonly linear: readonly LinearBlockGroup[];
}

export interface StructuredCircuit extends Circuit {
  readonly layers: readonly StructuredLayer[];
}

/** A structured layer from a plain layer and its groups (the plain parts are shared, not copied). */
export function structuredLayer(base: Layer, linear: readonly LinearBlockGroup[]): StructuredLayer {
  return { ...base, linear };
}

/** True iff the lane of input x is cubed in the group. */
export function isCubedLane(group: LinearBlockGroup, x: number): boolean {
  return ((group.cubeMask >>> x) & 1) === 1;
}

/**
 * Rejects malformed structured circuits: everything `validateCircuit` rejects, plus groups with
 * an unknown map, a cube mask or constant vector of the wrong size, non-canonical constants,
 * outBase/inBase of different lengths, bases that are not multiples of the lane count, or blocks
 * that do not fit their layer.
 * @throws CircuitError (`BAD_LINEAR_GROUP` for the group rules) naming the layer and group.
 */
export function validateStructuredCircuit(circuit: StructuredCircuit): void {
  validateCircuit(circuit);
  circuit.layers.forEach((layer, i) => {
    if (!Array.isArray(layer.linear))
      throw new CircuitError("BAD_LINEAR_GROUP", `layer ${i}: linear groups must be an array`, { layer: i });
    const outSize = 2 ** layer.widthBits;
    const inSize = 2 ** inputBitsOf(circuit, i);
    layer.linear.forEach((g, k) => {
      const where = `layer ${i} linear group ${k}`;
      const bad = (rule: string) => new CircuitError("BAD_LINEAR_GROUP", `${where}: ${rule}`, { layer: i, group: k });
      if (!isKnownLinearMap(g.map)) throw bad("unknown linear map");
      const lanes = 2 ** g.map.laneBits;
      if (!Number.isInteger(g.cubeMask) || g.cubeMask < 0 || g.cubeMask >= 2 ** lanes)
        throw bad(`cube mask ${g.cubeMask} outside [0, 2^${lanes})`);
      if (!(g.constants instanceof Uint32Array) || g.constants.length !== lanes)
        throw bad(`constants must be a Uint32Array of ${lanes} values`);
      for (const c of g.constants) if (c >= P) throw bad(`constant ${c} ≥ p`);
      if (
        !(g.outBase instanceof Uint32Array) ||
        !(g.inBase instanceof Uint32Array) ||
        g.outBase.length !== g.inBase.length
      ) {
        throw bad("outBase and inBase must be Uint32Arrays of the same length");
      }
      for (let b = 0; b < g.outBase.length; b++) {
        const o = g.outBase[b]!,
          x = g.inBase[b]!;
        if (o % lanes !== 0 || x % lanes !== 0) throw bad(`block ${b}: bases ${o}, ${x} are not multiples of ${lanes}`);
        if (o + lanes > outSize)
          throw bad(`block ${b}: output lanes ${o}..${o + lanes - 1} outside the layer width ${outSize}`);
        if (x + lanes > inSize)
          throw bad(`block ${b}: input lanes ${x}..${x + lanes - 1} outside the width ${inSize} of the layer below`);
      }
    });
  });
}

/** Evaluates one structured layer from the vector below. */
export function evaluateStructuredLayer(layer: StructuredLayer, below: Uint32Array): Uint32Array {
  const out = evaluateLayer(layer, below);
  const v = new Uint32Array(16);
  const r = new Uint32Array(16);
  for (const g of layer.linear) {
    const lanes = 2 ** g.map.laneBits;
    for (let b = 0; b < g.outBase.length; b++) {
      const ib = g.inBase[b]!,
        ob = g.outBase[b]!;
      for (let x = 0; x < lanes; x++) {
        const a = below[ib + x]!;
        v[x] = isCubedLane(g, x) ? mul(mul(a, a), a) : a;
      }
      g.map.apply(v, r);
      for (let z = 0; z < lanes; z++) out[ob + z] = add(out[ob + z]!, add(r[z]!, g.constants[z]!));
    }
  }
  return out;
}

/**
 * Evaluates every layer (as `evaluateCircuit`): layer vectors output first, the padded input last.
 * @throws CircuitError `INPUT_WIDTH` for an input longer than 2^inputWidthBits or non-canonical.
 */
export function evaluateStructuredCircuit(circuit: StructuredCircuit, input: ArrayLike<number>): Uint32Array[] {
  const values: Uint32Array[] = new Array(circuit.layers.length + 1);
  values[circuit.layers.length] = padInput(circuit, input);
  for (let i = circuit.layers.length - 1; i >= 0; i--)
    values[i] = evaluateStructuredLayer(circuit.layers[i]!, values[i + 1]!);
  return values;
}

/**
 * The dense form of a structured layer: its plain gates and constants, then for every group and
 * block the 2^(2b) gates (Pow3 for cubed input lanes, Lin otherwise, coefficient M[z][x], zero
 * entries omitted) and the non-zero constants. Reference for the oracles and wiring tests.
 */
export function expandStructuredLayer(layer: StructuredLayer): Layer {
  const gates: Gate[] = [];
  for (let g = 0; g < layer.gateKind.length; g++) {
    gates.push({
      kind: layer.gateKind[g] as GateKind,
      out: layer.gateOut[g]!,
      in1: layer.gateIn1[g]!,
      in2: layer.gateIn2[g]!,
      coeff: layer.gateCoeff[g]!,
    });
  }
  const consts: { wire: number; value: number }[] = [];
  for (let c = 0; c < layer.constWire.length; c++)
    consts.push({ wire: layer.constWire[c]!, value: layer.constValue[c]! });
  for (const grp of layer.linear) {
    const lanes = 2 ** grp.map.laneBits;
    for (let b = 0; b < grp.outBase.length; b++) {
      for (let z = 0; z < lanes; z++) {
        for (let x = 0; x < lanes; x++) {
          const coeff = grp.map.dense[z]![x]!;
          if (coeff === 0) continue;
          const in1 = grp.inBase[b]! + x;
          gates.push({
            kind: isCubedLane(grp, x) ? GateKind.Pow3 : GateKind.Lin,
            out: grp.outBase[b]! + z,
            in1,
            in2: in1,
            coeff,
          });
        }
        if (grp.constants[z] !== 0) consts.push({ wire: grp.outBase[b]! + z, value: grp.constants[z]! });
      }
    }
  }
  return makeLayer(layer.widthBits, gates, consts);
}

/** The dense form of a structured circuit (a compat-v1 style circuit with the same values). */
export function expandStructuredCircuit(circuit: StructuredCircuit): Circuit {
  return { inputWidthBits: circuit.inputWidthBits, layers: circuit.layers.map(expandStructuredLayer) };
}

/** Gate terms of a layer: plain gates plus, per block, its map's factored terms. */
export function layerGateTerms(layer: StructuredLayer): number {
  let n = layer.gateKind.length;
  for (const g of layer.linear) n += g.outBase.length * g.map.terms;
  return n;
}

/** Gate terms of a circuit (sum over its layers). */
export function circuitGateTerms(circuit: StructuredCircuit): number {
  let n = 0;
  for (const l of circuit.layers) n += layerGateTerms(l);
  return n;
}
