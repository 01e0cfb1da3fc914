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
 *   that is not such a progression is evaluated as in table mode.
 *
 * Both modes return exactly the field values of `TableWiring` over `expandStructuredCircuit`.
 */
import { P, mul } from "../../field/koalabear.js";
import { EXT_ONE, EXT_ZERO, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";
import type { ExtVector } from "../../field/ext-vector.js";
import { extMulAddTo, extMulTo } from "../../field/ext-inline.js";
import { eqTable } from "../../sumcheck/mle.js";
import { GateKind, inputBitsOf } from "../circuit.js";
import { type Claim, claimWeights } from "../claims.js";
import { CircuitError } from "../errors.js";
import { type LinearBlockGroup, type StructuredCircuit, isCubedLane, validateStructuredCircuit } from "./linear.js";
import { type LayerPredicates, type WiringOracle, combinedConst, combinedPredicates } from "../wiring/oracle.js";

export type StructuredWiringMode = "table" | "closed-form";

/** Block-index progression q_b = base | (b << shift), b < count, with count ≤ 2^bits. */
export interface BlockProgression {
  readonly base: number;
  readonly shift: number;
  readonly bits: number;
}

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
 * Plain reference of `sumBelowTo`.
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

/** dst[d..d+4) = a[ao..ao+4)·b[bo..bo+4) (4-word extension elements; dst may alias a or b). */
function mulAt(dst: Uint32Array, d: number, a: Uint32Array, ao: number, b: Uint32Array, bo: number): void {
  extMulTo(dst, d, 1, a[ao]!, a[ao + 1]!, a[ao + 2]!, a[ao + 3]!, b[bo]!, b[bo + 1]!, b[bo + 2]!, b[bo + 3]!);
}

/**
 * `sumBelow` without allocation: one and zero hold m extension elements of 4 words each (element
 * j at 4j); the result goes to out[0..4); `suffix` has room for 4(m + 1) words.
 */
export function sumBelowTo(out: Uint32Array, one: Uint32Array, zero: Uint32Array, m: number, count: number, suffix: Uint32Array): void {
  // suffix[j] = Π_{i ≥ j} (one_i + zero_i)
  suffix.fill(0, 4 * m, 4 * m + 4);
  suffix[4 * m] = 1;
  for (let j = m - 1; j >= 0; j--) {
    const o = 4 * j;
    const s0 = (one[o]! + zero[o]!) % P, s1 = (one[o + 1]! + zero[o + 1]!) % P, s2 = (one[o + 2]! + zero[o + 2]!) % P, s3 = (one[o + 3]! + zero[o + 3]!) % P;
    const n = o + 4;
    extMulTo(suffix, o, 1, suffix[n]!, suffix[n + 1]!, suffix[n + 2]!, suffix[n + 3]!, s0, s1, s2, s3);
  }
  if (count >= 2 ** m) {
    for (let i = 0; i < 4; i++) out[i] = suffix[i]!;
    return;
  }
  // prefix in out[4..8) of a local scratch, total in t
  let t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  const pre = PREFIX;
  pre[0] = 1; pre[1] = 0; pre[2] = 0; pre[3] = 0;
  for (let j = 0; j < m; j++) {
    const bit = Math.floor(count / 2 ** (m - 1 - j)) % 2;
    const o = 4 * j;
    if (bit === 1) {
      mulAt(pre, 4, pre, 0, zero, o);
      mulAt(pre, 4, pre, 4, suffix, o + 4);
      t0 = (t0 + pre[4]!) % P; t1 = (t1 + pre[5]!) % P; t2 = (t2 + pre[6]!) % P; t3 = (t3 + pre[7]!) % P;
      mulAt(pre, 0, pre, 0, one, o);
    } else {
      mulAt(pre, 0, pre, 0, zero, o);
    }
  }
  out[0] = t0; out[1] = t1; out[2] = t2; out[3] = t3;
}

const PREFIX = new Uint32Array(8);

/** eq of one coordinate with one bit. */
function eqBit(c: Ext, bit: number): Ext {
  return bit === 1 ? c : extSub(EXT_ONE, c);
}

/**
 * Coordinates of the block-index bits and the eq factor of the fixed bits of a progression, for
 * a point of `nBits` coordinates (MSB first) whose low `laneBits` coordinates are the lane.
 */
function progressionFactors(point: readonly Ext[], laneBits: number, prog: BlockProgression): { fixed: Ext; index: Ext[] } {
  const nHi = point.length - laneBits;
  let fixed: Ext = EXT_ONE;
  const index: Ext[] = [];
  for (let p = nHi - 1; p >= 0; p--) {
    const c = point[nHi - 1 - p]!;
    if (p >= prog.shift && p < prog.shift + prog.bits) index.push(c);
    else fixed = extMul(fixed, eqBit(c, Math.floor(prog.base / 2 ** p) % 2));
  }
  return { fixed, index };
}

/** Plane-wise Mᵀ of an extension vector of 2^laneBits elements given as 4 planes. */
function transposeExt(g: LinearBlockGroup, planes: readonly Uint32Array[], out: readonly Uint32Array[]): void {
  for (let c = 0; c < 4; c++) g.map.applyTranspose(planes[c]!, out[c]!);
}

export class StructuredWiring implements WiringOracle {
  private readonly circuit: StructuredCircuit;
  private readonly base: WiringOracle;
  private readonly plans: GroupPlan[][];
  private readonly mode: StructuredWiringMode;
  private weights: { layer: number; claims: readonly Claim[]; w: ExtVector } | null = null;

  /**
   * @param base wiring oracle of the circuit's plain gates and constants (the groups are not seen by it).
   * @param mode `"closed-form"` (default) or `"table"`.
   * @throws CircuitError from `validateStructuredCircuit`.
   */
  constructor(circuit: StructuredCircuit, base: WiringOracle, mode: StructuredWiringMode = "closed-form") {
    validateStructuredCircuit(circuit);
    this.circuit = circuit;
    this.base = base;
    this.mode = mode;
    this.plans = circuit.layers.map((layer) =>
      layer.linear.map((group) => {
        const out = mode === "closed-form" ? blockProgression(group.outBase, group.map.laneBits) : null;
        const inp = out ? blockProgression(group.inBase, group.map.laneBits) : null;
        return inp && out && inp.bits === out.bits ? { group, out, inp } : { group, out: null, inp: null };
      }),
    );
  }

  /** Groups evaluated in closed form, and all groups, over the circuit. */
  get closedFormGroups(): { closed: number; total: number } {
    let closed = 0, total = 0;
    for (const l of this.plans) for (const p of l) { total++; if (p.out) closed++; }
    return { closed, total };
  }

  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    const basePart = this.base.evalPredicate(layer, kind, z, x, y);
    if (kind === GateKind.Mul) return basePart;
    const g = this.groupPredicates(layer, [{ point: z, coeff: EXT_ONE }], x);
    return extAdd(basePart, kind === GateKind.Lin ? g.lin : g.pow3);
  }

  evalConst(layer: number, z: readonly Ext[]): Ext {
    return extAdd(this.base.evalConst(layer, z), this.groupConsts(layer, [{ point: z, coeff: EXT_ONE }]));
  }

  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    const b = combinedPredicates(this.base, layer, claims, x, y);
    const g = this.groupPredicates(layer, claims, x);
    return { lin: extAdd(b.lin, g.lin), mul: b.mul, pow3: extAdd(b.pow3, g.pow3) };
  }

  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    return extAdd(combinedConst(this.base, layer, claims), this.groupConsts(layer, claims));
  }

  private checkLayer(layer: number, claims: readonly Claim[], x: readonly Ext[] | null): void {
    if (!Number.isInteger(layer) || layer < 0 || layer >= this.circuit.layers.length) {
      throw new CircuitError("BAD_LAYER_INDEX", `layer index ${layer} outside [0, ${this.circuit.layers.length})`);
    }
    const bits = this.circuit.layers[layer]!.widthBits;
    claims.forEach((c, k) => {
      if (c.point.length !== bits) throw new CircuitError("BAD_POINT", `claim ${k} has a point of ${c.point.length} coordinates, the layer has ${bits} width bits`, { claim: k });
    });
    const s = inputBitsOf(this.circuit, layer);
    if (x !== null && x.length !== s) throw new CircuitError("BAD_POINT", `layer ${layer}: x has ${x.length} coordinates, the layer below has ${s} width bits`);
  }

  private weightsFor(layer: number, claims: readonly Claim[]): ExtVector {
    const c = this.weights;
    if (c && c.layer === layer && c.claims === claims) return c.w;
    const w = claimWeights(claims, this.circuit.layers[layer]!.widthBits);
    this.weights = { layer, claims, w };
    return w;
  }

  /** Σ_k c_k·(group terms of lin~ and pow3~)(z_k, x). */
  private groupPredicates(layer: number, claims: readonly Claim[], x: readonly Ext[]): { lin: Ext; pow3: Ext } {
    this.checkLayer(layer, claims, x);
    const plans = this.plans[layer]!;
    const acc = new Uint32Array(8); // lin at 0, pow3 at 4
    if (plans.length === 0) return { lin: EXT_ZERO, pow3: EXT_ZERO };
    const tablePlans = plans.filter((p) => p.out === null);
    if (tablePlans.length > 0) {
      const w = this.weightsFor(layer, claims);
      const ex = eqTable(x);
      for (const p of tablePlans) this.tableGroup(p.group, w, ex, acc);
    }
    const lanes = new Map<string, Uint32Array>();
    const loTable = (point: readonly Ext[], lb: number, tag: string): Uint32Array => {
      const key = `${tag}/${lb}`;
      let t = lanes.get(key);
      if (!t) lanes.set(key, (t = eqTable(point.slice(point.length - lb)).data));
      return t;
    };
    for (const p of plans) if (p.out !== null) this.closedGroup(p, claims, x, acc, loTable);
    return { lin: [acc[0]!, acc[1]!, acc[2]!, acc[3]!], pow3: [acc[4]!, acc[5]!, acc[6]!, acc[7]!] };
  }

  private tableGroup(g: LinearBlockGroup, w: ExtVector, ex: ExtVector, acc: Uint32Array): void {
    const lanes = 2 ** g.map.laneBits;
    const W = w.length, n = ex.length;
    const wd = w.data, e = ex.data;
    const planes = [0, 1, 2, 3].map(() => new Uint32Array(lanes));
    const t = [0, 1, 2, 3].map(() => new Uint32Array(lanes));
    for (let b = 0; b < g.outBase.length; b++) {
      const ob = g.outBase[b]!, ib = g.inBase[b]!;
      for (let c = 0; c < 4; c++) for (let z = 0; z < lanes; z++) planes[c]![z] = wd[c * W + ob + z]!;
      transposeExt(g, planes, t);
      for (let x = 0; x < lanes; x++) {
        const i = ib + x;
        extMulAddTo(acc, isCubedLane(g, x) ? 4 : 0, 1, t[0]![x]!, t[1]![x]!, t[2]![x]!, t[3]![x]!, e[i]!, e[n + i]!, e[2 * n + i]!, e[3 * n + i]!);
      }
    }
  }

  private readonly planes = [0, 1, 2, 3].map(() => new Uint32Array(16));
  private readonly transposed = [0, 1, 2, 3].map(() => new Uint32Array(16));
  private readonly bil = new Uint32Array(8);
  private scratch: { one: Uint32Array; zero: Uint32Array; suffix: Uint32Array; sc: Uint32Array } | null = null;

  private scratchFor(m: number): { one: Uint32Array; zero: Uint32Array; suffix: Uint32Array; sc: Uint32Array } {
    if (this.scratch === null || this.scratch.one.length < 4 * m) {
      const n = Math.max(m, 32);
      this.scratch = { one: new Uint32Array(4 * n), zero: new Uint32Array(4 * n), suffix: new Uint32Array(4 * n + 4), sc: new Uint32Array(4) };
    }
    return this.scratch;
  }

  private closedGroup(p: GroupPlan, claims: readonly Claim[], x: readonly Ext[], acc: Uint32Array, loTable: (point: readonly Ext[], lb: number, tag: string) => Uint32Array): void {
    const g = p.group;
    const lb = g.map.laneBits;
    const lanes = 2 ** lb;
    const count = g.outBase.length;
    const xf = progressionFactors(x, lb, p.inp!);
    const exLo = loTable(x, lb, "x");
    const planes = this.planes;
    const t = this.transposed;
    const m = xf.index.length;
    const { one, zero, suffix, sc } = this.scratchFor(m);
    for (let k = 0; k < claims.length; k++) {
      const { point, coeff } = claims[k]!;
      const zf = progressionFactors(point, lb, p.out!);
      for (let j = 0; j < m; j++) {
        const zc = zf.index[j]!, xc = xf.index[j]!;
        extMulTo(one, 4 * j, 1, zc[0], zc[1], zc[2], zc[3], xc[0], xc[1], xc[2], xc[3]);
        extMulTo(zero, 4 * j, 1, (1 + P - zc[0]) % P, (P - zc[1]) % P, (P - zc[2]) % P, (P - zc[3]) % P, (1 + P - xc[0]) % P, (P - xc[1]) % P, (P - xc[2]) % P, (P - xc[3]) % P);
      }
      sumBelowTo(sc, one, zero, m, count, suffix);
      const f = extMul(coeff, extMul(zf.fixed, xf.fixed));
      extMulTo(sc, 0, 1, sc[0]!, sc[1]!, sc[2]!, sc[3]!, f[0], f[1], f[2], f[3]);
      const scale = sc;
      // B(z_lo, x_lo) per lane kind: Σ_x (Mᵀ·eq(z_lo))[x]·eq(x_lo, x)
      const ezLo = loTable(point, lb, `z${k}`);
      for (let c = 0; c < 4; c++) for (let z = 0; z < lanes; z++) planes[c]![z] = ezLo[c * lanes + z]!;
      transposeExt(g, planes, t);
      const bil = this.bil;
      bil.fill(0);
      for (let xl = 0; xl < lanes; xl++) {
        extMulAddTo(bil, isCubedLane(g, xl) ? 4 : 0, 1, t[0]![xl]!, t[1]![xl]!, t[2]![xl]!, t[3]![xl]!, exLo[xl]!, exLo[lanes + xl]!, exLo[2 * lanes + xl]!, exLo[3 * lanes + xl]!);
      }
      extMulAddTo(acc, 0, 1, bil[0]!, bil[1]!, bil[2]!, bil[3]!, scale[0]!, scale[1]!, scale[2]!, scale[3]!);
      extMulAddTo(acc, 4, 1, bil[4]!, bil[5]!, bil[6]!, bil[7]!, scale[0]!, scale[1]!, scale[2]!, scale[3]!);
    }
  }

  /** Σ_k c_k·Σ_blocks Σ_z c[z]·eq(z_k, o_b + z). */
  private groupConsts(layer: number, claims: readonly Claim[]): Ext {
    this.checkLayer(layer, claims, null);
    const plans = this.plans[layer]!.filter((p) => p.group.constants.some((c) => c !== 0));
    if (plans.length === 0) return EXT_ZERO;
    const acc = new Uint32Array(4);
    for (const p of plans) {
      const g = p.group;
      const lb = g.map.laneBits, lanes = 2 ** lb;
      if (p.out === null) {
        const w = this.weightsFor(layer, claims);
        const W = w.length, wd = w.data;
        for (let b = 0; b < g.outBase.length; b++) {
          for (let z = 0; z < lanes; z++) {
            const cz = g.constants[z]!;
            if (cz === 0) continue;
            const o = g.outBase[b]! + z;
            extMulAddTo(acc, 0, 1, cz, 0, 0, 0, wd[o]!, wd[W + o]!, wd[2 * W + o]!, wd[3 * W + o]!);
          }
        }
        continue;
      }
      for (const { point, coeff } of claims) {
        const zf = progressionFactors(point, lb, p.out);
        const m = zf.index.length;
        const { one, zero, suffix, sc } = this.scratchFor(m);
        for (let j = 0; j < m; j++) {
          const zc = zf.index[j]!;
          for (let i = 0; i < 4; i++) one[4 * j + i] = zc[i]!;
          zero[4 * j] = (1 + P - zc[0]) % P;
          for (let i = 1; i < 4; i++) zero[4 * j + i] = (P - zc[i]!) % P;
        }
        sumBelowTo(sc, one, zero, m, g.outBase.length, suffix);
        const f = extMul(coeff, zf.fixed);
        extMulTo(sc, 0, 1, sc[0]!, sc[1]!, sc[2]!, sc[3]!, f[0], f[1], f[2], f[3]);
        const scale: Ext = [sc[0]!, sc[1]!, sc[2]!, sc[3]!];
        const ezLo = eqTable(point.slice(point.length - lb)).data;
        let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        for (let z = 0; z < lanes; z++) {
          const cz = g.constants[z]!;
          if (cz === 0) continue;
          c0 = (c0 + mul(cz, ezLo[z]!)) % P;
          c1 = (c1 + mul(cz, ezLo[lanes + z]!)) % P;
          c2 = (c2 + mul(cz, ezLo[2 * lanes + z]!)) % P;
          c3 = (c3 + mul(cz, ezLo[3 * lanes + z]!)) % P;
        }
        extMulAddTo(acc, 0, 1, c0, c1, c2, c3, scale[0], scale[1], scale[2], scale[3]);
      }
    }
    return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
  }
}
