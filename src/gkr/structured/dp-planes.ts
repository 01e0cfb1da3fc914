/**
 * The tables of the data-parallel oracle's copy rounds (dp-oracle.ts): product sumchecks over
 * K-entry tables of extension elements, in plane layout (coordinate k of entry i at k·stride + i)
 * and folded in place, beside their plain references on element lists (`foldList`,
 * `productEvaluations`; test/gkr/structured-dp-fast.test.ts compares them).
 */
import { P, mul } from "../../field/koalabear.js";
import { EXT_ZERO, embed, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";

/** Folds a table of ext elements (MSB first): t[i] ← t[i] + r·(t[i+h] − t[i]). The plain reference of `foldPlanes`. */
export function foldList(t: Ext[], r: Ext): Ext[] {
  const h = t.length / 2;
  const out: Ext[] = new Array(h);
  for (let i = 0; i < h; i++) out[i] = extAdd(t[i]!, extMul(r, extSub(t[i + h]!, t[i]!)));
  return out;
}

/**
 * Σ_q Σ_i E_q,T[i]·L_q,T[i] for T = 0..m (product sumchecks over K-entry tables). The plain
 * reference of `productEvaluationsPlanes`.
 */
export function productEvaluations(pairs: readonly (readonly [Ext[], Ext[]])[], m: number): Ext[] {
  const out: Ext[] = Array.from({ length: m + 1 }, () => EXT_ZERO);
  for (const [e, l] of pairs) {
    const h = e.length / 2;
    for (let i = 0; i < h; i++) {
      const e0 = e[i]!,
        de = extSub(e[i + h]!, e0),
        l0 = l[i]!,
        dl = extSub(l[i + h]!, l0);
      let et = e0,
        lt = l0;
      for (let t = 0; t <= m; t++) {
        out[t] = extAdd(out[t]!, extMul(et, lt));
        et = extAdd(et, de);
        lt = extAdd(lt, dl);
      }
    }
  }
  return out;
}

/**
 * A table of the copy rounds' product sumchecks: `len` extension elements in plane layout with a
 * fixed plane stride (coordinate k of entry i at k·stride + i), folded in place.
 */
export interface PlaneTable {
  readonly data: Uint32Array;
  readonly stride: number;
  len: number;
}

/** A plane table of the elements of `list`. */
export function planesOf(list: readonly Ext[]): PlaneTable {
  const n = list.length;
  const data = new Uint32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const e = list[i]!;
    data[i] = e[0];
    data[n + i] = e[1];
    data[2 * n + i] = e[2];
    data[3 * n + i] = e[3];
  }
  return { data, stride: n, len: n };
}

/** The elements of a plane table (its current length). */
export function elementsOf(t: PlaneTable): Ext[] {
  const out: Ext[] = new Array(t.len);
  const d = t.data,
    st = t.stride;
  for (let i = 0; i < t.len; i++) out[i] = [d[i]!, d[st + i]!, d[2 * st + i]!, d[3 * st + i]!];
  return out;
}

/** Entry i of a plane table. */
export function planeEntry(t: PlaneTable, i: number): Ext {
  const d = t.data,
    st = t.stride;
  return [d[i]!, d[st + i]!, d[2 * st + i]!, d[3 * st + i]!];
}

/** Terms summed unreduced in a double: each adds < 10·p < 2^35 per coordinate, so 2^17 of them stay below 2^52 (exact). */
const EXACT_TERMS = 1 << 17;

/**
 * `productEvaluations` on plane tables: per pair the three sums S0 = Σ E(0)·L(0), S1 = Σ E(1)·L(1)
 * and S2 = Σ ΔE·ΔL (ΔX = X(1) − X(0)) accumulated unreduced, then g(T) = S0 + T·(S1 − S0 − S2)
 * + T²·S2 (a product of two linear functions is this quadratic). Same values (differential test).
 */
export function productEvaluationsPlanes(pairs: readonly (readonly [PlaneTable, PlaneTable])[], m: number): Ext[] {
  const s0 = new Float64Array(4),
    s1 = new Float64Array(4),
    s2 = new Float64Array(4);
  const acc = [s0, s1, s2];
  const red: number[][] = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ];
  let terms = 0;
  const flush = (): void => {
    for (let j = 0; j < 3; j++) {
      const a = acc[j]!,
        r = red[j]!;
      for (let c = 0; c < 4; c++) {
        r[c] = (r[c]! + (a[c]! % P)) % P;
        a[c] = 0;
      }
    }
    terms = 0;
  };
  for (const [E, L] of pairs) {
    const h = E.len / 2;
    const e = E.data,
      l = L.data,
      se = E.stride,
      sl = L.stride;
    for (let i = 0; i < h; i++) {
      if (terms >= EXACT_TERMS) flush();
      terms++;
      const a0 = e[i]!,
        a1 = e[se + i]!,
        a2 = e[2 * se + i]!,
        a3 = e[3 * se + i]!;
      const b0 = e[i + h]!,
        b1 = e[se + i + h]!,
        b2 = e[2 * se + i + h]!,
        b3 = e[3 * se + i + h]!;
      const c0 = l[i]!,
        c1 = l[sl + i]!,
        c2 = l[2 * sl + i]!,
        c3 = l[3 * sl + i]!;
      const d0 = l[i + h]!,
        d1 = l[sl + i + h]!,
        d2 = l[2 * sl + i + h]!,
        d3 = l[3 * sl + i + h]!;
      // S0 += E(0)·L(0)
      s0[0]! += mul(a0, c0) + 3 * (mul(a1, c3) + mul(a2, c2) + mul(a3, c1));
      s0[1]! += mul(a0, c1) + mul(a1, c0) + 3 * (mul(a2, c3) + mul(a3, c2));
      s0[2]! += mul(a0, c2) + mul(a1, c1) + mul(a2, c0) + 3 * mul(a3, c3);
      s0[3]! += mul(a0, c3) + mul(a1, c2) + mul(a2, c1) + mul(a3, c0);
      // S1 += E(1)·L(1)
      s1[0]! += mul(b0, d0) + 3 * (mul(b1, d3) + mul(b2, d2) + mul(b3, d1));
      s1[1]! += mul(b0, d1) + mul(b1, d0) + 3 * (mul(b2, d3) + mul(b3, d2));
      s1[2]! += mul(b0, d2) + mul(b1, d1) + mul(b2, d0) + 3 * mul(b3, d3);
      s1[3]! += mul(b0, d3) + mul(b1, d2) + mul(b2, d1) + mul(b3, d0);
      // S2 += ΔE·ΔL
      const x0 = b0 >= a0 ? b0 - a0 : b0 + P - a0,
        x1 = b1 >= a1 ? b1 - a1 : b1 + P - a1;
      const x2 = b2 >= a2 ? b2 - a2 : b2 + P - a2,
        x3 = b3 >= a3 ? b3 - a3 : b3 + P - a3;
      const y0 = d0 >= c0 ? d0 - c0 : d0 + P - c0,
        y1 = d1 >= c1 ? d1 - c1 : d1 + P - c1;
      const y2 = d2 >= c2 ? d2 - c2 : d2 + P - c2,
        y3 = d3 >= c3 ? d3 - c3 : d3 + P - c3;
      s2[0]! += mul(x0, y0) + 3 * (mul(x1, y3) + mul(x2, y2) + mul(x3, y1));
      s2[1]! += mul(x0, y1) + mul(x1, y0) + 3 * (mul(x2, y3) + mul(x3, y2));
      s2[2]! += mul(x0, y2) + mul(x1, y1) + mul(x2, y0) + 3 * mul(x3, y3);
      s2[3]! += mul(x0, y3) + mul(x1, y2) + mul(x2, y1) + mul(x3, y0);
    }
  }
  flush();
  const [S0, S1, S2] = red as unknown as [Ext, Ext, Ext];
  const lin = extSub(extSub(S1, S0), S2);
  const out: Ext[] = [];
  for (let t = 0; t <= m; t++) {
    const tt = embed(t),
      t2 = embed(t * t);
    out.push(extAdd(extAdd(S0, extMul(tt, lin)), extMul(t2, S2)));
  }
  return out;
}

/** `foldList` in place on a plane table: t[i] ← t[i] + r·(t[i+h] − t[i]) for i < h; the length halves. */
export function foldPlanes(t: PlaneTable, r: Ext): void {
  const h = t.len / 2;
  const d = t.data,
    st = t.stride;
  const r0 = r[0],
    r1 = r[1],
    r2 = r[2],
    r3 = r[3];
  for (let i = 0; i < h; i++) {
    const a0 = d[i]!,
      a1 = d[st + i]!,
      a2 = d[2 * st + i]!,
      a3 = d[3 * st + i]!;
    const b0 = d[i + h]!,
      b1 = d[st + i + h]!,
      b2 = d[2 * st + i + h]!,
      b3 = d[3 * st + i + h]!;
    const x0 = b0 >= a0 ? b0 - a0 : b0 + P - a0,
      x1 = b1 >= a1 ? b1 - a1 : b1 + P - a1;
    const x2 = b2 >= a2 ? b2 - a2 : b2 + P - a2,
      x3 = b3 >= a3 ? b3 - a3 : b3 + P - a3;
    d[i] = (a0 + mul(r0, x0) + 3 * (mul(r1, x3) + mul(r2, x2) + mul(r3, x1))) % P;
    d[st + i] = (a1 + mul(r0, x1) + mul(r1, x0) + 3 * (mul(r2, x3) + mul(r3, x2))) % P;
    d[2 * st + i] = (a2 + mul(r0, x2) + mul(r1, x1) + mul(r2, x0) + 3 * mul(r3, x3)) % P;
    d[3 * st + i] = (a3 + mul(r0, x3) + mul(r1, x2) + mul(r2, x1) + mul(r3, x0)) % P;
  }
  t.len = h;
}
