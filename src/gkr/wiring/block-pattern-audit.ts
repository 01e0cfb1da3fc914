/**
 * Audit of a derived block-pattern form (block-pattern.ts, compat-v1 §10.6 "derived closed form"):
 * every group's derived form is re-expanded and its weighted gate multiset (kind, out, in1, in2,
 * summed coefficient) compared with the group's own gates; a group that differs is kept as
 * explicit gates (the residue). Tags only choose the groups, so wrong tags cost speed, never
 * results.
 */
import { P, add, sub } from "../../field/koalabear.js";
import { GateKind, type Layer } from "../circuit.js";
import type { GateGroupForm, LayerForm } from "./block-pattern.js";

/**
 * Signed weights of gate keys (out, in1, in2, kind): the original gates add their coefficients,
 * the re-expanded form subtracts its own; the two weighted multisets are equal iff every key's
 * weight sums to zero. Entries are bucketed by out wire (stable counting sort); in each bucket the
 * added run and the subtracted run are sorted by (in1, in2, kind) on their own (both usually
 * arrive sorted) and merged, so the check is about linear.
 */
class WeightBalance {
  n = 0;
  readonly out: Uint32Array;
  /** Sort key of (in1, in2, kind): exact when 2·inBits + 2 ≤ 53, else ties are broken by `exact`. */
  readonly key: Float64Array;
  readonly in1: Uint32Array;
  readonly in2: Uint32Array;
  readonly kind: Uint8Array;
  readonly weight: Uint32Array;
  private added = 0;
  private readonly exactKeys: boolean;

  /** @param capacity number of entries to come. */
  constructor(
    private readonly outSize: number,
    inBits: number,
    capacity: number,
  ) {
    this.out = new Uint32Array(capacity);
    this.key = new Float64Array(capacity);
    this.in1 = new Uint32Array(capacity);
    this.in2 = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.weight = new Uint32Array(capacity);
    this.exactKeys = 2 * inBits + 2 <= 53;
  }

  /** Adds an entry of weight w (canonical). */
  push(kind: number, out: number, in1: number, in2: number, w: number): void {
    const i = this.n++;
    this.out[i] = out;
    this.in1[i] = in1;
    this.in2[i] = in2;
    this.kind[i] = kind;
    this.key[i] = (in1 * 1073741824 + in2) * 4 + kind;
    this.weight[i] = w;
  }

  /** Marks the end of the added entries (subtracted entries follow). */
  endAdded(): void {
    this.added = this.n;
  }

  private cmp(p: number, q: number): number {
    const d = this.key[p]! - this.key[q]!;
    if (d !== 0 || this.exactKeys) return d;
    return this.in1[p]! - this.in1[q]! || this.in2[p]! - this.in2[q]! || this.kind[p]! - this.kind[q]!;
  }

  balanced(): boolean {
    const n = this.n;
    const { out, weight } = this;
    let order: Uint32Array;
    if (this.outSize <= 1 << 22) {
      const start = new Int32Array(this.outSize + 1);
      for (let i = 0; i < n; i++) start[out[i]! + 1]!++;
      for (let o = 0; o < this.outSize; o++) start[o + 1]! += start[o]!;
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[start[out[i]!]!++] = i;
    } else {
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((p, q) => out[p]! - out[q]! || p - q);
    }
    const added = this.added;
    for (let s = 0; s < n; ) {
      let e = s + 1;
      while (e < n && out[order[e]!] === out[order[s]!]) e++;
      let m = s;
      while (m < e && order[m]! < added) m++;
      this.sortRun(order, s, m);
      this.sortRun(order, m, e);
      let i = s,
        j = m;
      while (i < m || j < e) {
        // The smallest key among the two run heads; its total weight over both runs must be 0.
        const k = i < m && (j >= e || this.cmp(order[i]!, order[j]!) <= 0) ? order[i]! : order[j]!;
        let w = 0;
        while (i < m && this.cmp(order[i]!, k) === 0) w = add(w, weight[order[i++]!]!);
        while (j < e && this.cmp(order[j]!, k) === 0) w = add(w, weight[order[j++]!]!);
        if (w !== 0) return false;
      }
      s = e;
    }
    return true;
  }

  /** Insertion sort of order[s..e): linear on sorted input. */
  private sortRun(order: Uint32Array, s: number, e: number): void {
    for (let j = s + 1; j < e; j++) {
      const v = order[j]!;
      let k = j - 1;
      while (k >= s && this.cmp(order[k]!, v) > 0) {
        order[k + 1] = order[k]!;
        k--;
      }
      order[k + 1] = v;
    }
  }
}

/** Result of auditing a layer form against its layer. */
export interface LayerAudit {
  /** Per gate group (same order as form.groups): true if its derived form expands to its own gates. */
  readonly groupOk: readonly boolean[];
  readonly constGroupOk: readonly boolean[];
  /** The groups cover every gate (and constant) index exactly once. */
  readonly partitionOk: boolean;
}

/**
 * Audits a derived form: every group's re-expanded weighted gate multiset (kind, out, in1, in2,
 * summed coefficient; Lin and Pow3 with in2 = in1) must equal the multiset of the gates it claims,
 * and the groups must partition the layer's gates and constants. A group with a placement or
 * pattern outside the layer's wire ranges, or of another kind, fails.
 */
export function auditLayerForm(layer: Layer, form: LayerForm): LayerAudit {
  const nGates = layer.gateKind.length,
    nConsts = layer.constWire.length;
  const so = 2 ** form.outLo,
    si = 2 ** form.inLo;
  let partitionOk = form.outBits === layer.widthBits;
  const seen = new Uint8Array(nGates);
  // Pattern validity, checked once per pattern: 0 unknown, 1 valid, 2 invalid.
  const patternOk = new Uint8Array(form.patterns.length);
  const groupOk = form.groups.map((g) => {
    for (let j = 0; j < g.gates.length; j++) {
      const i = g.gates[j]!;
      if (!(i < nGates) || seen[i]) partitionOk = false;
      else seen[i] = 1;
    }
    if (!partitionOk || !placementsInRange(form, g, patternOk)) return false;
    let size = g.gates.length;
    for (let t = 0; t < g.pattern.length; t++) size += form.patterns[g.pattern[t]!]!.a.length;
    const bal = new WeightBalance(2 ** form.outBits, form.inBits, size);
    const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = layer;
    for (let j = 0; j < g.gates.length; j++) {
      const i = g.gates[j]!;
      const k = gateKind[i]!;
      bal.push(k, gateOut[i]!, gateIn1[i]!, k === GateKind.Mul ? gateIn2[i]! : gateIn1[i]!, gateCoeff[i]! % P);
    }
    bal.endAdded();
    for (let t = 0; t < g.pattern.length; t++) {
      const p = form.patterns[g.pattern[t]!]!;
      const ob = g.oh[t]! * so,
        ib = g.ih[t]! * si,
        ib2 = g.ih2[t]! * si;
      const isMul = p.kind === GateKind.Mul;
      for (let e = 0; e < p.a.length; e++) {
        const in1 = ib + p.b[e]!;
        bal.push(p.kind, ob + p.a[e]!, in1, isMul ? ib2 + p.c[e]! : in1, sub(0, p.coeff[e]!));
      }
    }
    return bal.balanced();
  });
  for (let i = 0; i < nGates; i++) if (!seen[i]) partitionOk = false;

  const cseen = new Uint8Array(nConsts);
  const ohMax = 2 ** (form.outBits - form.outLo);
  const constGroupOk = form.constGroups.map((g) => {
    for (let j = 0; j < g.consts.length; j++) {
      const c = g.consts[j]!;
      if (!(c < nConsts) || cseen[c]) partitionOk = false;
      else cseen[c] = 1;
    }
    if (!partitionOk || g.oh.length !== g.pattern.length) return false;
    let size = g.consts.length;
    for (let t = 0; t < g.pattern.length; t++) size += form.constPatterns[g.pattern[t]!]?.a.length ?? 0;
    const bal = new WeightBalance(2 ** form.outBits, 0, size);
    for (let j = 0; j < g.consts.length; j++)
      bal.push(0, layer.constWire[g.consts[j]!]!, 0, 0, layer.constValue[g.consts[j]!]! % P);
    bal.endAdded();
    for (let t = 0; t < g.pattern.length; t++) {
      const p = form.constPatterns[g.pattern[t]!];
      if (!p || !(g.oh[t]! >= 0 && g.oh[t]! < ohMax) || p.value.length !== p.a.length) return false;
      for (let e = 0; e < p.a.length; e++) {
        if (!(p.a[e]! < so)) return false;
        bal.push(0, g.oh[t]! * so + p.a[e]!, 0, 0, sub(0, p.value[e]! % P));
      }
    }
    return bal.balanced();
  });
  for (let c = 0; c < nConsts; c++) if (!cseen[c]) partitionOk = false;
  return { groupOk, constGroupOk, partitionOk };
}

/**
 * Every placement's tile lies inside the layer widths and refers to a valid pattern of the
 * group's kind: offsets inside a tile, equal array lengths, canonical coefficients, c = b for
 * unary kinds. Pattern checks are memoised in `patternOk`.
 */
function placementsInRange(form: LayerForm, g: GateGroupForm, patternOk: Uint8Array): boolean {
  const np = g.pattern.length;
  if (g.oh.length !== np || g.ih.length !== np || g.ih2.length !== np) return false;
  const ohMax = 2 ** (form.outBits - form.outLo),
    ihMax = 2 ** (form.inBits - form.inLo);
  const so = 2 ** form.outLo,
    si = 2 ** form.inLo;
  for (let t = 0; t < np; t++) {
    const id = g.pattern[t]!;
    const p = form.patterns[id];
    if (!p || p.kind !== g.kind) return false;
    if (
      !(g.oh[t]! >= 0 && g.oh[t]! < ohMax && g.ih[t]! >= 0 && g.ih[t]! < ihMax && g.ih2[t]! >= 0 && g.ih2[t]! < ihMax)
    )
      return false;
    if (g.kind !== GateKind.Mul && g.ih2[t] !== g.ih[t]) return false;
    if (patternOk[id] === 0) {
      let ok = true;
      const n = p.a.length;
      if (p.b.length !== n || p.c.length !== n || p.coeff.length !== n) ok = false;
      for (let e = 0; ok && e < n; e++) {
        if (!(p.a[e]! < so && p.b[e]! < si && p.c[e]! < si && p.coeff[e]! < P)) ok = false;
        if (p.kind !== GateKind.Mul && p.c[e] !== p.b[e]) ok = false;
      }
      patternOk[id] = ok ? 1 : 2;
    }
    if (patternOk[id] !== 1) return false;
  }
  return true;
}
