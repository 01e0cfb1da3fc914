/**
 * Verifier side of the structured linear family (docs/profile-v2.md §4.4): wiring predicates of a
 * structured circuit = those of its plain gates (any `WiringOracle` over the same circuit, e.g.
 * `TableWiring` or `DerivedRegularWiring`) plus the groups' terms, evaluated either
 *
 * - `"table"`: per block, t = Mᵀ·w_o (w = claim weights over the output layer) and
 *   Σ_x t[x]·eq(x*, i + x) — O(2^s_out + 2^s + blocks·terms); or
 * - `"closed-form"`: for a group whose block bases are progressions o_b = (O | b·2^α)·2^lb,
 *   i_b = (I | b·2^β)·2^lb (b < count, the bits of b clear in O and I), the sum over blocks
 *   factorises:
 *     lin~(z, x) = E_O(z_hi)·E_I(x_hi)·S_count(z_b, x_b)·B_lin(z_lo, x_lo),
 *   where E_O / E_I are the eq factors of the fixed bits, S_count = Σ_{b<count} eq(z_b, b)·eq(x_b, b)
 *   (O(log count) by a scan of count's bits) and B_lin = Σ_{z,x linear lane} M[z][x]·eq(z_lo, z)·eq(x_lo, x)
 *   (one Mᵀ on the lane eq table). Its cost does not grow with the number of blocks. A group
 *   that is not such a progression is evaluated as in table mode. A layer whose plain gates are
 *   a few runs of Lin copies out = O + b ← in = I + b (aligned, one coefficient each) and which has
 *   no constants (the check copies of the v2 round layers) takes them in closed form as well
 *   (one-lane blocks of the identity map), and the base oracle is not asked for that layer.
 *   The evaluation is allocation-free (src/gkr/structured/closed-form.ts).
 *
 * Both modes return exactly the field values of `TableWiring` over `expandStructuredCircuit`.
 */
import { EXT_ONE, EXT_ZERO, extAdd, extMul, type Ext } from "../../field/extension.js";
import type { ExtVector } from "../../field/ext-vector.js";
import { extMulAddTo } from "../../field/ext-inline.js";
import { eqTable } from "../../sumcheck/mle.js";
import { GateKind, inputBitsOf } from "../circuit.js";
import { type Claim, claimWeights } from "../claims.js";
import { CircuitError } from "../errors.js";
import {
  type BlockProgression,
  type ClosedTerm,
  addClosedConsts,
  addClosedPredicates,
  closedTerm,
} from "./closed-form.js";
import {
  type LinearBlockGroup,
  type StructuredCircuit,
  type StructuredLayer,
  isCubedLane,
  validateStructuredCircuit,
} from "./linear.js";
import { identityMap } from "./maps.js";
import { type LayerPredicates, type WiringOracle, combinedConst, combinedPredicates } from "../wiring/oracle.js";

export type { BlockProgression } from "./closed-form.js";

export type StructuredWiringMode = "table" | "closed-form";

/**
 * The progression of block bases (wire bases divided by 2^laneBits), or null when they are not
 * one: q_b = q_0 + b·2^shift with the bits shift..shift+bits−1 of q_0 clear (bits = ⌈log2 count⌉).
 */
export function blockProgression(bases: Uint32Array, laneBits: number): BlockProgression | null {
  const n = bases.length;
  if (n === 0) return null;
  const q0 = bases[0]! >>> laneBits;
  if (n === 1) return { base: q0, shift: 0, bits: 0 };
  const d = (bases[1]! >>> laneBits) - q0;
  if (d <= 0 || (d & (d - 1)) !== 0) return null;
  const shift = Math.log2(d);
  for (let b = 0; b < n; b++) if (bases[b]! >>> laneBits !== q0 + b * d) return null;
  let bits = 0;
  while (2 ** bits < n) bits++;
  if (Math.floor(q0 / 2 ** shift) % 2 ** bits !== 0) return null;
  return { base: q0, shift, bits };
}

interface GroupPlan {
  readonly group: LinearBlockGroup;
  readonly out: BlockProgression | null;
  readonly inp: BlockProgression | null;
}

/**
 * Σ_{k<count} Π_j f_j(bit j of k), f_j(1) = one[j], f_j(0) = zero[j], MSB first (j = 0 is bit m−1).
 * Plain reference of `sumBelowFlat` (src/gkr/structured/closed-form.ts).
 */
export function sumBelow(one: readonly Ext[], zero: readonly Ext[], count: number): Ext {
  const m = one.length;
  if (count >= 2 ** m) {
    let acc: Ext = EXT_ONE;
    for (let j = 0; j < m; j++) acc = extMul(acc, extAdd(one[j]!, zero[j]!));
    return acc;
  }
  const suffix: Ext[] = new Array(m + 1);
  suffix[m] = EXT_ONE;
  for (let j = m - 1; j >= 0; j--) suffix[j] = extMul(suffix[j + 1]!, extAdd(one[j]!, zero[j]!));
  let total = EXT_ZERO;
  let prefix: Ext = EXT_ONE;
  for (let j = 0; j < m; j++) {
    const bit = Math.floor(count / 2 ** (m - 1 - j)) % 2;
    if (bit === 1) {
      total = extAdd(total, extMul(extMul(prefix, zero[j]!), suffix[j + 1]!));
      prefix = extMul(prefix, one[j]!);
    } else {
      prefix = extMul(prefix, zero[j]!);
    }
  }
  return total;
}

/** Plane-wise Mᵀ of an extension vector of 2^laneBits elements given as 4 planes. */
function transposeExt(g: LinearBlockGroup, planes: readonly Uint32Array[], out: readonly Uint32Array[]): void {
  for (let c = 0; c < 4; c++) g.map.applyTranspose(planes[c]!, out[c]!);
}

/**
 * The plain gates of a layer as runs of closed-form terms, or null when they are not: every gate
 * Lin, no constants, the gates sorted by output split into runs out = O + b, in = I + b (b < n)
 * with one coefficient, the low ⌈log2 n⌉ bits of O and I clear, at most `MAX_PLAIN_RUNS` runs.
 */
function plainRuns(layer: StructuredLayer, outBits: number, inBits: number): ClosedTerm[] | null {
  if (layer.constWire.length !== 0) return null;
  const n = layer.gateKind.length;
  for (let g = 0; g < n; g++) if (layer.gateKind[g] !== GateKind.Lin) return null;
  const order = Array.from({ length: n }, (_, g) => g).sort((a, b) => layer.gateOut[a]! - layer.gateOut[b]!);
  const runs: ClosedTerm[] = [];
  let g = 0;
  while (g < n) {
    const first = order[g]!;
    const o = layer.gateOut[first]!,
      i = layer.gateIn1[first]!,
      c = layer.gateCoeff[first]!;
    let len = 1;
    while (g + len < n) {
      const h = order[g + len]!;
      if (layer.gateOut[h] !== o + len || layer.gateIn1[h] !== i + len || layer.gateCoeff[h] !== c) break;
      len++;
    }
    let bits = 0;
    while (2 ** bits < len) bits++;
    if (o % 2 ** bits !== 0 || i % 2 ** bits !== 0 || runs.length === MAX_PLAIN_RUNS) return null;
    runs.push(
      closedTerm({
        map: identityMap(0),
        count: len,
        out: { base: o, shift: 0, bits },
        inp: { base: i, shift: 0, bits },
        outBits,
        inBits,
        cubeMask: 0,
        coeff: c,
        constants: null,
      }),
    );
    g += len;
  }
  return runs;
}

/** Most runs of plain gates a layer may have to be evaluated in closed form (beyond: the base oracle). */
const MAX_PLAIN_RUNS = 8;

interface LayerPlan {
  /** Groups evaluated in table mode. */
  readonly table: readonly LinearBlockGroup[];
  /** Groups (and, when `plainClosed`, runs of plain gates) in closed form. */
  readonly closed: readonly ClosedTerm[];
  /** The plain gates are among `closed`: the base oracle is not asked for this layer. */
  readonly plainClosed: boolean;
}

export class StructuredWiring implements WiringOracle {
  private readonly circuit: StructuredCircuit;
  private readonly base: WiringOracle;
  private readonly plans: GroupPlan[][];
  private readonly layerPlans: LayerPlan[];
  private weights: { layer: number; claims: readonly Claim[]; w: ExtVector } | null = null;
  private readonly acc = new Float64Array(8);

  /**
   * @param base wiring oracle of the circuit's plain gates and constants (the groups are not seen by it).
   * @param mode `"closed-form"` (default) or `"table"`.
   * @throws CircuitError from `validateStructuredCircuit`.
   */
  constructor(circuit: StructuredCircuit, base: WiringOracle, mode: StructuredWiringMode = "closed-form") {
    validateStructuredCircuit(circuit);
    this.circuit = circuit;
    this.base = base;
    this.plans = circuit.layers.map((layer) =>
      layer.linear.map((group) => {
        const out = mode === "closed-form" ? blockProgression(group.outBase, group.map.laneBits) : null;
        const inp = out ? blockProgression(group.inBase, group.map.laneBits) : null;
        return inp && out && inp.bits === out.bits ? { group, out, inp } : { group, out: null, inp: null };
      }),
    );
    this.layerPlans = circuit.layers.map((layer, i) => {
      const outBits = layer.widthBits,
        inBits = inputBitsOf(circuit, i);
      const plans = this.plans[i]!;
      const closed = plans
        .filter((p) => p.out !== null)
        .map((p) =>
          closedTerm({
            map: p.group.map,
            count: p.group.outBase.length,
            out: p.out!,
            inp: p.inp!,
            outBits,
            inBits,
            cubeMask: p.group.cubeMask,
            coeff: 1,
            constants: p.group.constants,
          }),
        );
      const runs = mode === "closed-form" ? plainRuns(layer, outBits, inBits) : null;
      return {
        table: plans.filter((p) => p.out === null).map((p) => p.group),
        closed: runs ? [...closed, ...runs] : closed,
        plainClosed: runs !== null,
      };
    });
  }

  /** Groups evaluated in closed form, and all groups, over the circuit. */
  get closedFormGroups(): { closed: number; total: number } {
    let closed = 0,
      total = 0;
    for (const l of this.plans)
      for (const p of l) {
        total++;
        if (p.out) closed++;
      }
    return { closed, total };
  }

  /** Layers whose plain gates are evaluated in closed form here (the base oracle is not asked for them). */
  get closedPlainLayers(): number {
    return this.layerPlans.filter((l) => l.plainClosed).length;
  }

  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    this.checkLayer(layer, [], null);
    let basePart: Ext;
    if (this.layerPlans[layer]!.plainClosed) {
      if (kind !== GateKind.Lin && kind !== GateKind.Mul && kind !== GateKind.Pow3) {
        throw new CircuitError("BAD_GATE_KIND", `unknown gate kind ${kind} (0 Lin, 1 Mul, 2 Pow3)`);
      }
      basePart = EXT_ZERO;
    } else {
      basePart = this.base.evalPredicate(layer, kind, z, x, y);
    }
    if (kind === GateKind.Mul) return basePart;
    const g = this.groupPredicates(layer, [{ point: z, coeff: EXT_ONE }], x);
    return extAdd(basePart, kind === GateKind.Lin ? g.lin : g.pow3);
  }

  evalConst(layer: number, z: readonly Ext[]): Ext {
    return this.evalConstCombined(layer, [{ point: z, coeff: EXT_ONE }]);
  }

  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    const g = this.groupPredicates(layer, claims, x);
    if (this.layerPlans[layer]!.plainClosed) return { lin: g.lin, mul: EXT_ZERO, pow3: g.pow3 };
    const b = combinedPredicates(this.base, layer, claims, x, y);
    return { lin: extAdd(b.lin, g.lin), mul: b.mul, pow3: extAdd(b.pow3, g.pow3) };
  }

  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    const g = this.groupConsts(layer, claims);
    if (this.layerPlans[layer]!.plainClosed) return g;
    return extAdd(combinedConst(this.base, layer, claims), g);
  }

  private checkLayer(layer: number, claims: readonly Claim[], x: readonly Ext[] | null): void {
    if (!Number.isInteger(layer) || layer < 0 || layer >= this.circuit.layers.length) {
      throw new CircuitError("BAD_LAYER_INDEX", `layer index ${layer} outside [0, ${this.circuit.layers.length})`);
    }
    const bits = this.circuit.layers[layer]!.widthBits;
    for (let k = 0; k < claims.length; k++) {
      const c = claims[k]!;
      if (c.point.length !== bits)
        throw new CircuitError(
          "BAD_POINT",
          `claim ${k} has a point of ${c.point.length} coordinates, the layer has ${bits} width bits`,
          { claim: k },
        );
    }
    const s = inputBitsOf(this.circuit, layer);
    if (x !== null && x.length !== s)
      throw new CircuitError(
        "BAD_POINT",
        `layer ${layer}: x has ${x.length} coordinates, the layer below has ${s} width bits`,
      );
  }

  private weightsFor(layer: number, claims: readonly Claim[]): ExtVector {
    const c = this.weights;
    if (c && c.layer === layer && c.claims === claims) return c.w;
    const w = claimWeights(claims, this.circuit.layers[layer]!.widthBits);
    this.weights = { layer, claims, w };
    return w;
  }

  /** Σ_k c_k·(group terms, and closed-form plain runs, of lin~ and pow3~)(z_k, x). */
  private groupPredicates(layer: number, claims: readonly Claim[], x: readonly Ext[]): { lin: Ext; pow3: Ext } {
    this.checkLayer(layer, claims, x);
    const plan = this.layerPlans[layer]!;
    const acc = this.acc;
    acc.fill(0);
    if (plan.table.length > 0) {
      const w = this.weightsFor(layer, claims);
      const ex = eqTable(x);
      const t = new Uint32Array(8); // lin at 0, pow3 at 4
      for (const g of plan.table) this.tableGroup(g, w, ex, t);
      for (let i = 0; i < 8; i++) acc[i] = t[i]!;
    }
    for (const term of plan.closed) addClosedPredicates(term, claims, x, acc);
    return { lin: [acc[0]!, acc[1]!, acc[2]!, acc[3]!], pow3: [acc[4]!, acc[5]!, acc[6]!, acc[7]!] };
  }

  private tableGroup(g: LinearBlockGroup, w: ExtVector, ex: ExtVector, acc: Uint32Array): void {
    const lanes = 2 ** g.map.laneBits;
    const W = w.length,
      n = ex.length;
    const wd = w.data,
      e = ex.data;
    const planes = [0, 1, 2, 3].map(() => new Uint32Array(lanes));
    const t = [0, 1, 2, 3].map(() => new Uint32Array(lanes));
    for (let b = 0; b < g.outBase.length; b++) {
      const ob = g.outBase[b]!,
        ib = g.inBase[b]!;
      for (let c = 0; c < 4; c++) for (let z = 0; z < lanes; z++) planes[c]![z] = wd[c * W + ob + z]!;
      transposeExt(g, planes, t);
      for (let x = 0; x < lanes; x++) {
        const i = ib + x;
        extMulAddTo(
          acc,
          isCubedLane(g, x) ? 4 : 0,
          1,
          t[0]![x]!,
          t[1]![x]!,
          t[2]![x]!,
          t[3]![x]!,
          e[i]!,
          e[n + i]!,
          e[2 * n + i]!,
          e[3 * n + i]!,
        );
      }
    }
  }

  /** Σ_k c_k·Σ_blocks Σ_z c[z]·eq(z_k, o_b + z). */
  private groupConsts(layer: number, claims: readonly Claim[]): Ext {
    this.checkLayer(layer, claims, null);
    const plan = this.layerPlans[layer]!;
    const acc = this.acc;
    acc.fill(0);
    const table = plan.table.filter((g) => g.constants.some((c) => c !== 0));
    if (table.length > 0) {
      const t = new Uint32Array(4);
      const w = this.weightsFor(layer, claims);
      const W = w.length,
        wd = w.data;
      for (const g of table) {
        const lanes = 2 ** g.map.laneBits;
        for (let b = 0; b < g.outBase.length; b++) {
          for (let z = 0; z < lanes; z++) {
            const cz = g.constants[z]!;
            if (cz === 0) continue;
            const o = g.outBase[b]! + z;
            extMulAddTo(t, 0, 1, cz, 0, 0, 0, wd[o]!, wd[W + o]!, wd[2 * W + o]!, wd[3 * W + o]!);
          }
        }
      }
      for (let i = 0; i < 4; i++) acc[i] = t[i]!;
    }
    for (const term of plan.closed) addClosedConsts(term, claims, acc);
    return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
  }
}
