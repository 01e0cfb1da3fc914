/**
 * Compilation of a layer's audited block-pattern form (block-pattern.ts, block-pattern-audit.ts)
 * into the data that pattern-eval.ts evaluates: one term per pattern with all its placements, the
 * pattern's rows (entries grouped by low output offset), and the explicit residue of the groups
 * that failed the audit.
 */
import { sub } from "../../field/koalabear.js";
import { GateKind, type Layer } from "../circuit.js";
import type { GatePattern, LayerForm } from "./block-pattern.js";
import type { LayerAudit } from "./block-pattern-audit.js";

/** One pattern with all its placements, ready to evaluate. */
export interface CompiledTerm {
  readonly kind: GateKind;
  /** Distinct out offsets a (rows) and each row's entry range [rowStart[r], rowStart[r+1]). */
  readonly rowA: Int32Array;
  readonly rowStart: Int32Array;
  /**
   * Per row: an earlier row r' whose value the row's entries are added to (the entries are then
   * the difference of the two rows), or −1 when the entries are the whole row.
   */
  readonly rowBase: Int32Array;
  readonly b: Int32Array;
  readonly c: Int32Array;
  readonly coeff: Uint32Array;
  readonly oh: Int32Array;
  readonly ih: Int32Array;
  readonly ih2: Int32Array;
}

export interface CompiledConstTerm {
  readonly a: Int32Array;
  readonly value: Uint32Array;
  readonly oh: Int32Array;
}

/** A layer's evaluation data: pattern terms plus the explicit residue (gates and constants). */
export interface CompiledLayer {
  readonly outBits: number;
  readonly inBits: number;
  readonly outLo: number;
  readonly inLo: number;
  readonly hasMul: boolean;
  /** 1 + the largest high index read from a claim point (out side) and from x or y (in side); at least 1. */
  readonly zHiBound: number;
  readonly xHiBound: number;
  readonly terms: readonly CompiledTerm[];
  readonly constTerms: readonly CompiledConstTerm[];
  readonly residue: {
    readonly kind: Uint8Array;
    readonly out: Uint32Array;
    readonly in1: Uint32Array;
    readonly in2: Uint32Array;
    readonly coeff: Uint32Array;
  };
  readonly constResidue: { readonly wire: Uint32Array; readonly value: Uint32Array };
}

/**
 * Builds the evaluation data of a layer: the placements of the groups that passed the audit are
 * collected per pattern; the gates and constants of failed groups (all of them if the groups do
 * not partition the layer) become the residue.
 */
export function compileLayer(
  layer: Layer,
  form: LayerForm,
  audit: LayerAudit,
  rowsCache = new PatternRowsCache(),
): CompiledLayer {
  const n = form.patterns.length;
  const placements: { oh: number[]; ih: number[]; ih2: number[] }[] = Array.from({ length: n }, () => ({
    oh: [],
    ih: [],
    ih2: [],
  }));
  const residueGates: number[] = [];
  if (!audit.partitionOk) {
    for (let g = 0; g < layer.gateKind.length; g++) residueGates.push(g);
  } else {
    form.groups.forEach((grp, gi) => {
      if (!audit.groupOk[gi]) {
        residueGates.push(...grp.gates);
        return;
      }
      for (let t = 0; t < grp.pattern.length; t++) {
        const pl = placements[grp.pattern[t]!]!;
        pl.oh.push(grp.oh[t]!);
        pl.ih.push(grp.ih[t]!);
        pl.ih2.push(grp.ih2[t]!);
      }
    });
  }
  const terms: CompiledTerm[] = [];
  form.patterns.forEach((p, id) => {
    const pl = placements[id]!;
    if (pl.oh.length === 0) return;
    terms.push({
      ...rowsCache.get(p, 2 ** form.inLo),
      oh: Int32Array.from(pl.oh),
      ih: Int32Array.from(pl.ih),
      ih2: Int32Array.from(pl.ih2),
    });
  });

  const constPlacements: number[][] = Array.from({ length: form.constPatterns.length }, () => []);
  const residueConsts: number[] = [];
  if (!audit.partitionOk) {
    for (let c = 0; c < layer.constWire.length; c++) residueConsts.push(c);
  } else {
    form.constGroups.forEach((grp, gi) => {
      if (!audit.constGroupOk[gi]) {
        residueConsts.push(...grp.consts);
        return;
      }
      for (let t = 0; t < grp.pattern.length; t++) constPlacements[grp.pattern[t]!]!.push(grp.oh[t]!);
    });
  }
  const constTerms: CompiledConstTerm[] = [];
  form.constPatterns.forEach((p, id) => {
    const oh = constPlacements[id]!;
    if (oh.length > 0)
      constTerms.push({ a: Int32Array.from(p.a), value: Uint32Array.from(p.value), oh: Int32Array.from(oh) });
  });

  const pick = <T extends Uint8Array | Uint32Array>(src: T, idx: number[], make: (n: number) => T): T => {
    const out = make(idx.length);
    idx.forEach((g, j) => (out[j] = src[g]!));
    return out;
  };
  const u32 = (k: number) => new Uint32Array(k);
  const residue = {
    kind: pick(layer.gateKind, residueGates, (k) => new Uint8Array(k)),
    out: pick(layer.gateOut, residueGates, u32),
    in1: pick(layer.gateIn1, residueGates, u32),
    in2: pick(layer.gateIn2, residueGates, u32),
    coeff: pick(layer.gateCoeff, residueGates, u32),
  };
  const constResidue = {
    wire: pick(layer.constWire, residueConsts, u32),
    value: pick(layer.constValue, residueConsts, u32),
  };
  let hasMul = false;
  for (let g = 0; g < layer.gateKind.length; g++) if (layer.gateKind[g] === GateKind.Mul) hasMul = true;
  return withBounds({
    outBits: form.outBits,
    inBits: form.inBits,
    outLo: form.outLo,
    inLo: form.inLo,
    hasMul,
    terms,
    constTerms,
    residue,
    constResidue,
  });
}

/** A compiled layer from the gate part of `gates` and the constant part of `consts` (same widths). */
export function combineParts(gates: CompiledLayer, consts: CompiledLayer): CompiledLayer {
  return withBounds({ ...gates, constTerms: consts.constTerms, constResidue: consts.constResidue });
}

/** Adds the hi bounds: 1 + the largest high index read on the out side and on the in side. */
function withBounds(l: Omit<CompiledLayer, "zHiBound" | "xHiBound">): CompiledLayer {
  let zHi = 0,
    xHi = 0;
  for (const t of l.terms) {
    for (let j = 0; j < t.oh.length; j++) {
      zHi = Math.max(zHi, t.oh[j]!);
      xHi = Math.max(xHi, t.ih[j]!, t.ih2[j]!);
    }
  }
  for (const t of l.constTerms) for (let j = 0; j < t.oh.length; j++) zHi = Math.max(zHi, t.oh[j]!);
  const { residue, constResidue } = l;
  for (let g = 0; g < residue.out.length; g++) {
    zHi = Math.max(zHi, residue.out[g]! >>> l.outLo);
    xHi = Math.max(xHi, residue.in1[g]! >>> l.inLo, residue.in2[g]! >>> l.inLo);
  }
  for (let c = 0; c < constResidue.wire.length; c++) zHi = Math.max(zHi, constResidue.wire[c]! >>> l.outLo);
  return { ...l, zHiBound: zHi + 1, xHiBound: xHi + 1 };
}

/** Relative cost of an entry in `unaryRows`: an addition for coefficient 1, else a product. */
function entryCost(coeff: number): number {
  return coeff === 1 ? 1 : 3;
}

type PatternRows = Pick<CompiledTerm, "kind" | "rowA" | "rowStart" | "rowBase" | "b" | "c" | "coeff">;

/**
 * Evaluation rows of patterns, shared across layers (the same Poseidon2 matrix pattern recurs in
 * most layers): a pattern is looked up by a hash of its content and compared exactly.
 */
export class PatternRowsCache {
  private readonly byHash = new Map<number, { p: GatePattern; inSize: number; rows: PatternRows }[]>();

  get(p: GatePattern, inSize: number): PatternRows {
    let h = Math.imul(p.kind + 1, 0x9e3779b1) ^ inSize;
    for (let e = 0; e < p.a.length; e++) {
      h = Math.imul(h ^ p.a[e]!, 0x01000193);
      h = Math.imul(h ^ p.b[e]!, 0x01000193);
      h = Math.imul(h ^ p.c[e]!, 0x01000193);
      h = Math.imul(h ^ p.coeff[e]!, 0x01000193);
    }
    let list = this.byHash.get(h);
    if (!list) this.byHash.set(h, (list = []));
    for (const x of list) if (x.inSize === inSize && samePattern(x.p, p)) return x.rows;
    const rows = patternRows(p, inSize);
    list.push({ p, inSize, rows });
    return rows;
  }
}

function samePattern(x: GatePattern, y: GatePattern): boolean {
  if (x.kind !== y.kind || x.a.length !== y.a.length) return false;
  for (let e = 0; e < x.a.length; e++) {
    if (x.a[e] !== y.a[e] || x.b[e] !== y.b[e] || x.c[e] !== y.c[e] || x.coeff[e] !== y.coeff[e]) return false;
  }
  return true;
}

/**
 * Rows of a pattern for evaluation. Unary patterns express a row as an earlier row plus the
 * entries where the two differ when that is cheaper (a Poseidon2 internal matrix row differs from
 * another in one entry); Mul patterns keep whole rows. `inSize` = 2^L_in bounds the b offsets.
 */
function patternRows(p: GatePattern, inSize: number): PatternRows {
  const rowA: number[] = [],
    rowStart: number[] = [];
  for (let e = 0; e < p.a.length; e++) {
    if (e === 0 || p.a[e] !== p.a[e - 1]) {
      rowA.push(p.a[e]!);
      rowStart.push(e);
    }
  }
  rowStart.push(p.a.length);
  const R = rowA.length;
  const whole = (): PatternRows => ({
    kind: p.kind,
    rowA: Int32Array.from(rowA),
    rowStart: Int32Array.from(rowStart),
    rowBase: new Int32Array(R).fill(-1),
    b: Int32Array.from(p.b),
    c: Int32Array.from(p.c),
    coeff: Uint32Array.from(p.coeff),
  });
  if (p.kind === GateKind.Mul) return whole();
  // Dense rows (coefficient per b, 0 = absent; patterns hold no zero coefficients) and their costs.
  const dense = new Uint32Array(R * inSize);
  const cost = new Array<number>(R).fill(0);
  for (let r = 0; r < R; r++) {
    for (let e = rowStart[r]!; e < rowStart[r + 1]!; e++) {
      dense[r * inSize + p.b[e]!] = p.coeff[e]!;
      cost[r]! += entryCost(p.coeff[e]!);
    }
  }
  const base = new Array<number>(R).fill(-1);
  let any = false;
  for (let r = 1; r < R; r++) {
    let best = cost[r]!;
    if (best <= 2) continue;
    for (let q = 0; q < r; q++) {
      let c = 1;
      for (let b = 0; b < inSize && c < best; b++) {
        const x = dense[r * inSize + b]!,
          y = dense[q * inSize + b]!;
        if (x !== y) c += entryCost(sub(x, y));
      }
      if (c < best) {
        best = c;
        base[r] = q;
      }
    }
    if (base[r]! >= 0) any = true;
  }
  if (!any) return whole();
  const b: number[] = [],
    coeff: number[] = [],
    starts = [0];
  for (let r = 0; r < R; r++) {
    const q = base[r]!;
    for (let j = 0; j < inSize; j++) {
      const v = q < 0 ? dense[r * inSize + j]! : sub(dense[r * inSize + j]!, dense[q * inSize + j]!);
      if (v !== 0) {
        b.push(j);
        coeff.push(v);
      }
    }
    starts.push(b.length);
  }
  return {
    kind: p.kind,
    rowA: Int32Array.from(rowA),
    rowStart: Int32Array.from(starts),
    rowBase: Int32Array.from(base),
    b: Int32Array.from(b),
    c: Int32Array.from(b),
    coeff: Uint32Array.from(coeff),
  };
}
