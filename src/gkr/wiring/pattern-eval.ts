/**
 * Evaluation of a layer's wiring predicates from its compiled block-pattern form
 * (src/gkr/wiring/pattern-compile.ts) and the split eq tables of the points (src/gkr/wiring/split-eq.ts):
 *   Σ_k c_k·pred(z_k, x, y) = Σ_patterns Σ_k c_k·B_k(P)·S_k(P),
 *   B_k(P) = Σ_a lo_{z_k}[a]·u_P[a],  u_P[a] = Σ_{(a,b,c,coeff) ∈ P} coeff·lo_x[b]·(Mul: lo_y[c]),
 *   S_k(P) = Σ_{placements} hi_{z_k}[oh]·hi_x[ih]·(Mul: hi_y[ih2]),
 * plus the explicit residue gates, each evaluated as coeff·eq(z_k, out)·eq(x, in1)·(eq(y, in2)).
 * All arithmetic is exact field arithmetic (every product through `mul`).
 */
import { P, mul } from "../../field/koalabear.js";
import { extMul, type Ext } from "../../field/extension.js";
import { extMulSplitTo, mulSplit, reduce52 } from "../../field/ext-split.js";
import { GateKind } from "../circuit.js";
import type { CompiledLayer, CompiledTerm } from "./pattern-compile.js";
import type { SplitEqTables } from "./split-eq.js";

/** Scratch buffers grown on demand (one set per wiring oracle). */
export class EvalScratch {
  u = new Float64Array(64);
  x = new Uint32Array(64);

  rows(n: number): Float64Array {
    if (this.u.length < 4 * n) this.u = new Float64Array(4 * n);
    return this.u;
  }

  placements(n: number): Uint32Array {
    if (this.x.length < 4 * n) this.x = new Uint32Array(4 * n);
    return this.x;
  }
}

/** Placement sums are reduced at least this often (each step adds < 2^31 per coefficient). */
const REDUCE_EVERY = 1 << 20; // a multiple of FOLD

const TMP = new Float64Array(4);

/** Products whose unreduced partial sums are accumulated before folding (4·2^50.6 < 2^53). */
const FOLD = 4;

/** Σ_high·2^16 + Σ_low mod p for unreduced partial sums (each < 2^53, non-negative). */
function fold(high: number, low: number): number {
  return reduce52(reduce52(high) * 65536 + reduce52(low));
}

/** Entries summed between reductions in the u rows (32 products of < 2^47 each stay below 2^53). */
const ROW_CHUNK = 32;

/**
 * u[r] = Σ coeff·lo_x[b] over row r's entries (+ u[rowBase[r]] for a difference row; unary
 * kinds), canonical, into u[4r..4r+3]. The coefficient is split into 16-bit halves so both
 * partial sums stay exact in a double.
 */
function unaryRows(term: CompiledTerm, lx: Uint32Array, nlx: number, u: Float64Array): void {
  const { b, coeff, rowStart, rowBase } = term;
  const rows = term.rowA.length;
  for (let r = 0; r < rows; r++) {
    let d0 = 0,
      d1 = 0,
      d2 = 0,
      d3 = 0; // coefficient-1 entries, the base row and reduced chunks
    let h0 = 0,
      h1 = 0,
      h2 = 0,
      h3 = 0,
      l0 = 0,
      l1 = 0,
      l2 = 0,
      l3 = 0,
      n = 0;
    for (let e = rowStart[r]!; e < rowStart[r + 1]!; e++) {
      const j = b[e]!,
        cf = coeff[e]!;
      const v0 = lx[j]!,
        v1 = lx[nlx + j]!,
        v2 = lx[2 * nlx + j]!,
        v3 = lx[3 * nlx + j]!;
      if (cf === 1) {
        d0 += v0;
        d1 += v1;
        d2 += v2;
        d3 += v3;
        continue;
      }
      const ch = cf >>> 16,
        cl = cf & 0xffff;
      h0 += ch * v0;
      h1 += ch * v1;
      h2 += ch * v2;
      h3 += ch * v3;
      l0 += cl * v0;
      l1 += cl * v1;
      l2 += cl * v2;
      l3 += cl * v3;
      if (++n === ROW_CHUNK) {
        d0 += reduce52(reduce52(h0) * 65536 + reduce52(l0));
        d1 += reduce52(reduce52(h1) * 65536 + reduce52(l1));
        d2 += reduce52(reduce52(h2) * 65536 + reduce52(l2));
        d3 += reduce52(reduce52(h3) * 65536 + reduce52(l3));
        h0 = h1 = h2 = h3 = l0 = l1 = l2 = l3 = 0;
        n = 0;
      }
    }
    if (n > 0) {
      d0 += reduce52(reduce52(h0) * 65536 + reduce52(l0));
      d1 += reduce52(reduce52(h1) * 65536 + reduce52(l1));
      d2 += reduce52(reduce52(h2) * 65536 + reduce52(l2));
      d3 += reduce52(reduce52(h3) * 65536 + reduce52(l3));
    }
    const base = rowBase[r]!;
    if (base >= 0) {
      d0 += u[4 * base]!;
      d1 += u[4 * base + 1]!;
      d2 += u[4 * base + 2]!;
      d3 += u[4 * base + 3]!;
    }
    u[4 * r] = d0 < P ? d0 : reduce52(d0);
    u[4 * r + 1] = d1 < P ? d1 : reduce52(d1);
    u[4 * r + 2] = d2 < P ? d2 : reduce52(d2);
    u[4 * r + 3] = d3 < P ? d3 : reduce52(d3);
  }
}

/** u[r] = Σ coeff·lo_x[b]·lo_y[c] over row r's entries (Mul), canonical. */
function mulRows(
  term: CompiledTerm,
  lx: Uint32Array,
  nlx: number,
  ly: Uint32Array,
  nly: number,
  u: Float64Array,
): void {
  const { b, c, coeff, rowStart } = term;
  const rows = term.rowA.length;
  const t = TMP;
  for (let r = 0; r < rows; r++) {
    let d0 = 0,
      d1 = 0,
      d2 = 0,
      d3 = 0;
    for (let e = rowStart[r]!; e < rowStart[r + 1]!; e++) {
      const j = b[e]!,
        k = c[e]!,
        cf = coeff[e]!;
      extMulSplitTo(
        t,
        0,
        1,
        lx[j]!,
        lx[nlx + j]!,
        lx[2 * nlx + j]!,
        lx[3 * nlx + j]!,
        ly[k]!,
        ly[nly + k]!,
        ly[2 * nly + k]!,
        ly[3 * nly + k]!,
      );
      if (cf === 1) {
        d0 += t[0]!;
        d1 += t[1]!;
        d2 += t[2]!;
        d3 += t[3]!;
      } else {
        d0 += mulSplit(cf, t[0]!);
        d1 += mulSplit(cf, t[1]!);
        d2 += mulSplit(cf, t[2]!);
        d3 += mulSplit(cf, t[3]!);
      }
    }
    u[4 * r] = reduce52(d0);
    u[4 * r + 1] = reduce52(d1);
    u[4 * r + 2] = reduce52(d2);
    u[4 * r + 3] = reduce52(d3);
  }
}

/**
 * Σ_k c_k·pred_kind(z_k, x, y) of a compiled layer for every kind (or only `only`), written into
 * out[0..12) as lin, mul, pow3 (4 words each). `ty` may be null when no Mul gate is evaluated.
 */
export function evalLayerGates(
  cl: CompiledLayer,
  zs: readonly SplitEqTables[],
  cs: readonly Ext[],
  tx: SplitEqTables,
  ty: SplitEqTables | null,
  only: GateKind | null,
  scratch: EvalScratch,
  out: Uint32Array,
): void {
  out.fill(0);
  const hx = tx.hi.data,
    nhx = tx.hi.length,
    lx = tx.lo.data,
    nlx = tx.lo.length;
  for (const term of cl.terms) {
    const kind = term.kind;
    if (only !== null && kind !== only) continue;
    const isMul = kind === GateKind.Mul;
    if (isMul && ty === null) continue;
    const rows = term.rowA.length;
    // u[r]: claim independent.
    const u = scratch.rows(rows);
    if (isMul) mulRows(term, lx, nlx, ty!.lo.data, ty!.lo.length, u);
    else unaryRows(term, lx, nlx, u);
    // Placement factors hi_x[ih] (unary: read in place) or hi_x[ih]·hi_y[ih2] (Mul): claim independent.
    const { oh, ih, ih2 } = term;
    const np = oh.length;
    let xf: Uint32Array = hx;
    let nxf = nhx;
    if (isMul) {
      const hy = ty!.hi.data,
        nhy = ty!.hi.length;
      xf = scratch.placements(np);
      nxf = np;
      for (let t = 0; t < np; t++) {
        const i = ih[t]!,
          j = ih2[t]!;
        extMulSplitTo(
          xf,
          t,
          np,
          hx[i]!,
          hx[nhx + i]!,
          hx[2 * nhx + i]!,
          hx[3 * nhx + i]!,
          hy[j]!,
          hy[nhy + j]!,
          hy[2 * nhy + j]!,
          hy[3 * nhy + j]!,
        );
      }
    }
    const slot = 4 * kind;
    const rowA = term.rowA;
    for (let k = 0; k < zs.length; k++) {
      const tz = zs[k]!;
      const hz = tz.hi.data,
        nhz = tz.hi.length,
        lz = tz.lo.data,
        nlz = tz.lo.length;
      // B_k = Σ_r lo_z[a_r]·u[r] and S_k = Σ_t hi_z[oh]·X_t. The second factor is split into
      // 16-bit halves; the high and low partial sums (< 2^49.3 and < 2^50.6 per product) are
      // accumulated unreduced over up to FOLD products and folded with three reductions.
      let H0 = 0,
        H1 = 0,
        H2 = 0,
        H3 = 0,
        L0 = 0,
        L1 = 0,
        L2 = 0,
        L3 = 0,
        n = 0;
      let b0 = 0,
        b1 = 0,
        b2 = 0,
        b3 = 0;
      for (let r = 0; r < rows; r++) {
        const a = rowA[r]!;
        const x0 = lz[a]!,
          x1 = lz[nlz + a]!,
          x2 = lz[2 * nlz + a]!,
          x3 = lz[3 * nlz + a]!;
        const y0 = u[4 * r]!,
          y1 = u[4 * r + 1]!,
          y2 = u[4 * r + 2]!,
          y3 = u[4 * r + 3]!;
        const h0 = Math.floor(y0 / 65536),
          l0 = y0 - h0 * 65536,
          h1 = Math.floor(y1 / 65536),
          l1 = y1 - h1 * 65536;
        const h2 = Math.floor(y2 / 65536),
          l2 = y2 - h2 * 65536,
          h3 = Math.floor(y3 / 65536),
          l3 = y3 - h3 * 65536;
        const t1 = 3 * x1,
          t2 = 3 * x2,
          t3 = 3 * x3;
        H0 += x0 * h0 + t1 * h3 + t2 * h2 + t3 * h1;
        L0 += x0 * l0 + t1 * l3 + t2 * l2 + t3 * l1;
        H1 += x0 * h1 + x1 * h0 + t2 * h3 + t3 * h2;
        L1 += x0 * l1 + x1 * l0 + t2 * l3 + t3 * l2;
        H2 += x0 * h2 + x1 * h1 + x2 * h0 + t3 * h3;
        L2 += x0 * l2 + x1 * l1 + x2 * l0 + t3 * l3;
        H3 += x0 * h3 + x1 * h2 + x2 * h1 + x3 * h0;
        L3 += x0 * l3 + x1 * l2 + x2 * l1 + x3 * l0;
        if (++n === FOLD) {
          b0 += fold(H0, L0);
          b1 += fold(H1, L1);
          b2 += fold(H2, L2);
          b3 += fold(H3, L3);
          H0 = H1 = H2 = H3 = L0 = L1 = L2 = L3 = 0;
          n = 0;
        }
      }
      b0 += fold(H0, L0);
      b1 += fold(H1, L1);
      b2 += fold(H2, L2);
      b3 += fold(H3, L3);
      H0 = H1 = H2 = H3 = L0 = L1 = L2 = L3 = 0;
      n = 0;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let t = 0; t < np; t++) {
        const h = oh[t]!,
          i = isMul ? t : ih[t]!;
        const x0 = hz[h]!,
          x1 = hz[nhz + h]!,
          x2 = hz[2 * nhz + h]!,
          x3 = hz[3 * nhz + h]!;
        const y0 = xf[i]!,
          y1 = xf[nxf + i]!,
          y2 = xf[2 * nxf + i]!,
          y3 = xf[3 * nxf + i]!;
        const h0 = y0 >>> 16,
          l0 = y0 & 0xffff,
          h1 = y1 >>> 16,
          l1 = y1 & 0xffff;
        const h2 = y2 >>> 16,
          l2 = y2 & 0xffff,
          h3 = y3 >>> 16,
          l3 = y3 & 0xffff;
        const t1 = 3 * x1,
          t2 = 3 * x2,
          t3 = 3 * x3;
        H0 += x0 * h0 + t1 * h3 + t2 * h2 + t3 * h1;
        L0 += x0 * l0 + t1 * l3 + t2 * l2 + t3 * l1;
        H1 += x0 * h1 + x1 * h0 + t2 * h3 + t3 * h2;
        L1 += x0 * l1 + x1 * l0 + t2 * l3 + t3 * l2;
        H2 += x0 * h2 + x1 * h1 + x2 * h0 + t3 * h3;
        L2 += x0 * l2 + x1 * l1 + x2 * l0 + t3 * l3;
        H3 += x0 * h3 + x1 * h2 + x2 * h1 + x3 * h0;
        L3 += x0 * l3 + x1 * l2 + x2 * l1 + x3 * l0;
        if (++n === FOLD) {
          s0 += fold(H0, L0);
          s1 += fold(H1, L1);
          s2 += fold(H2, L2);
          s3 += fold(H3, L3);
          H0 = H1 = H2 = H3 = L0 = L1 = L2 = L3 = 0;
          n = 0;
          if ((t & (REDUCE_EVERY - 1)) === REDUCE_EVERY - 1) {
            s0 = reduce52(s0);
            s1 = reduce52(s1);
            s2 = reduce52(s2);
            s3 = reduce52(s3);
          }
        }
      }
      s0 += fold(H0, L0);
      s1 += fold(H1, L1);
      s2 += fold(H2, L2);
      s3 += fold(H3, L3);
      // out[kind] += c_k·B_k·S_k
      const c = cs[k]!;
      const tmp = TMP;
      extMulSplitTo(tmp, 0, 1, c[0], c[1], c[2], c[3], reduce52(b0), reduce52(b1), reduce52(b2), reduce52(b3));
      extMulSplitTo(
        tmp,
        0,
        1,
        tmp[0]!,
        tmp[1]!,
        tmp[2]!,
        tmp[3]!,
        reduce52(s0),
        reduce52(s1),
        reduce52(s2),
        reduce52(s3),
      );
      out[slot] = (out[slot]! + tmp[0]!) % P;
      out[slot + 1] = (out[slot + 1]! + tmp[1]!) % P;
      out[slot + 2] = (out[slot + 2]! + tmp[2]!) % P;
      out[slot + 3] = (out[slot + 3]! + tmp[3]!) % P;
    }
  }
  evalResidueGates(cl, zs, cs, tx, ty, only, out);
}

/** eq(point, w) from split tables, as a tuple. */
function eqSplit(t: SplitEqTables, w: number): Ext {
  const h = Math.floor(w / 2 ** t.loBits),
    l = w % 2 ** t.loBits;
  const hd = t.hi.data,
    nh = t.hi.length,
    ld = t.lo.data,
    nl = t.lo.length;
  return extMul(
    [hd[h]!, hd[nh + h]!, hd[2 * nh + h]!, hd[3 * nh + h]!],
    [ld[l]!, ld[nl + l]!, ld[2 * nl + l]!, ld[3 * nl + l]!],
  );
}

function evalResidueGates(
  cl: CompiledLayer,
  zs: readonly SplitEqTables[],
  cs: readonly Ext[],
  tx: SplitEqTables,
  ty: SplitEqTables | null,
  only: GateKind | null,
  out: Uint32Array,
): void {
  const { kind, out: gout, in1, in2, coeff } = cl.residue;
  for (let g = 0; g < kind.length; g++) {
    const k = kind[g]! as GateKind;
    if (only !== null && k !== only) continue;
    if (k === GateKind.Mul && ty === null) continue;
    let w: Ext = [0, 0, 0, 0];
    for (let j = 0; j < zs.length; j++) {
      const v = extMul(cs[j]!, eqSplit(zs[j]!, gout[g]!));
      w = [(w[0] + v[0]) % P, (w[1] + v[1]) % P, (w[2] + v[2]) % P, (w[3] + v[3]) % P];
    }
    let t = extMul(w, eqSplit(tx, in1[g]!));
    if (k === GateKind.Mul) t = extMul(t, eqSplit(ty!, in2[g]!));
    const cf = coeff[g]!;
    const slot = 4 * k;
    for (let i = 0; i < 4; i++) out[slot + i] = (out[slot + i]! + mul(cf, t[i]!)) % P;
  }
}

/** Σ_k c_k·const~(z_k) of a compiled layer. */
export function evalLayerConsts(cl: CompiledLayer, zs: readonly SplitEqTables[], cs: readonly Ext[]): Ext {
  const res = [0, 0, 0, 0];
  for (let k = 0; k < zs.length; k++) {
    const tz = zs[k]!;
    const hz = tz.hi.data,
      nhz = tz.hi.length,
      lz = tz.lo.data,
      nlz = tz.lo.length;
    let total: Ext = [0, 0, 0, 0];
    for (const term of cl.constTerms) {
      // B = Σ value·lo_z[a]; S = Σ_t hi_z[oh] (additions only).
      let b0 = 0,
        b1 = 0,
        b2 = 0,
        b3 = 0;
      for (let e = 0; e < term.a.length; e++) {
        const a = term.a[e]!,
          v = term.value[e]!;
        b0 += mul(v, lz[a]!);
        b1 += mul(v, lz[nlz + a]!);
        b2 += mul(v, lz[2 * nlz + a]!);
        b3 += mul(v, lz[3 * nlz + a]!);
      }
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let t = 0; t < term.oh.length; t++) {
        const h = term.oh[t]!;
        s0 += hz[h]!;
        s1 += hz[nhz + h]!;
        s2 += hz[2 * nhz + h]!;
        s3 += hz[3 * nhz + h]!;
        if ((t & 0xffff) === 0xffff) {
          s0 %= P;
          s1 %= P;
          s2 %= P;
          s3 %= P;
        }
      }
      const v = extMul([b0 % P, b1 % P, b2 % P, b3 % P], [s0 % P, s1 % P, s2 % P, s3 % P]);
      total = [(total[0] + v[0]) % P, (total[1] + v[1]) % P, (total[2] + v[2]) % P, (total[3] + v[3]) % P];
    }
    const { wire, value } = cl.constResidue;
    for (let c = 0; c < wire.length; c++) {
      const e = eqSplit(tz, wire[c]!);
      const v = value[c]!;
      total = [
        (total[0] + mul(v, e[0])) % P,
        (total[1] + mul(v, e[1])) % P,
        (total[2] + mul(v, e[2])) % P,
        (total[3] + mul(v, e[3])) % P,
      ];
    }
    const v = extMul(cs[k]!, total);
    for (let i = 0; i < 4; i++) res[i] = (res[i]! + v[i]!) % P;
  }
  return [res[0]!, res[1]!, res[2]!, res[3]!];
}
