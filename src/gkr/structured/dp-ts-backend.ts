/**
 * The TypeScript backend of the data-parallel layer oracle (dp-oracle.ts): the copies' passes and
 * the plane tables' sumchecks in plain TypeScript, the reference of every WASM kernel of
 * dp-wasm.ts (test/gkr/structured-dp-fast.test.ts, test/gkr/round-noa.test.ts).
 */
import { P, mul } from "../../field/koalabear.js";
import { EXT_ZERO, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";
import { ExtVector } from "../../field/ext-vector.js";
import { extScaleAddTo } from "../../field/ext-inline.js";
import { SumcheckError } from "../../sumcheck/errors.js";
import {
  type CopiesBackend,
  type LoadedCopies,
  type MulBooking,
  type StagePair,
  type TripleSumcheck,
  mulBookingTable,
  valuesOf,
} from "./dp-oracle.js";
import { foldList } from "./dp-planes.js";

/** Plane tables in TypeScript (the reference of every kernel). */
class TsTriple implements TripleSumcheck {
  private v: ExtVector;
  private a: ExtVector;
  private p: ExtVector | null;
  constructor(v: ExtVector, a: ExtVector, p: ExtVector | null) {
    this.v = v;
    this.a = a;
    this.p = p;
  }
  evaluations(m: number): Ext[] {
    const out: Ext[] = Array.from({ length: m + 1 }, () => EXT_ZERO);
    const len = this.v.length,
      h = len / 2;
    for (let i = 0; i < h; i++) {
      const v0 = this.v.get(i),
        dv = extSub(this.v.get(i + h), v0);
      const a0 = this.a.get(i),
        da = extSub(this.a.get(i + h), a0);
      const p0 = this.p ? this.p.get(i) : EXT_ZERO,
        dp = this.p ? extSub(this.p.get(i + h), p0) : EXT_ZERO;
      let vt = v0,
        at = a0,
        pt = p0;
      for (let t = 0; t <= m; t++) {
        const inner = this.p ? extAdd(at, extMul(pt, extMul(vt, vt))) : at;
        out[t] = extAdd(out[t]!, extMul(vt, inner));
        vt = extAdd(vt, dv);
        at = extAdd(at, da);
        pt = extAdd(pt, dp);
      }
    }
    return out;
  }
  bind(r: Ext): void {
    const fold = (t: ExtVector) => ExtVector.fromElements(foldList(t.toElements(), r));
    this.v = fold(this.v);
    this.a = fold(this.a);
    if (this.p) this.p = fold(this.p);
  }
  final(): { a: Ext; p: Ext; v: Ext } {
    if (this.v.length !== 1)
      throw new SumcheckError("BAD_TABLE", `internal: table of ${this.v.length} entries is not bound`);
    return { a: this.a.get(0), p: this.p ? this.p.get(0) : EXT_ZERO, v: this.v.get(0) };
  }
  readA(count: number): Uint32Array {
    const out = new ExtVector(count);
    for (let i = 0; i < count; i++) out.set(i, this.a.get(i));
    return out.data;
  }
  pair(): StagePair {
    if (this.v.length !== 2)
      throw new SumcheckError("BAD_TABLE", `internal: a pair is read at length 2, the tables have ${this.v.length}`);
    const p = this.p;
    return {
      v: [this.v.get(0), this.v.get(1)],
      a: [this.a.get(0), this.a.get(1)],
      p: p ? [p.get(0), p.get(1)] : [EXT_ZERO, EXT_ZERO],
    };
  }
  dispose(): void {}
}

class TsLoaded implements LoadedCopies {
  constructor(
    private readonly below: Uint32Array,
    private readonly K: number,
    private readonly n: number,
  ) {}
  dots(tables: readonly Uint32Array[]): Ext[][] {
    const { below, K, n } = this;
    return tables.map((t) => {
      const out: Ext[] = new Array(K);
      for (let c = 0; c < K; c++) {
        let a0 = 0,
          a1 = 0,
          a2 = 0,
          a3 = 0;
        const base = c * n;
        for (let x = 0; x < n; x++) {
          const v = below[base + x]!;
          if (v === 0) continue;
          a0 = (a0 + mul(v, t[x]!)) % P;
          a1 = (a1 + mul(v, t[n + x]!)) % P;
          a2 = (a2 + mul(v, t[2 * n + x]!)) % P;
          a3 = (a3 + mul(v, t[3 * n + x]!)) % P;
        }
        out[c] = [a0, a1, a2, a3];
      }
      return out;
    });
  }
  stage(e: readonly Ext[] | null, a: Uint32Array, pw: Uint32Array | null): TripleSumcheck {
    const { below, K, n } = this;
    const v = new ExtVector(n);
    if (e === null) {
      for (let x = 0; x < n; x++) v.data[x] = below[x]!;
    } else {
      for (let c = 0; c < K; c++) {
        const ec = e[c]!;
        for (let x = 0; x < n; x++) {
          const b = below[c * n + x]!;
          if (b !== 0) extScaleAddTo(v.data, x, n, b, ec[0], ec[1], ec[2], ec[3]);
        }
      }
    }
    return new TsTriple(v, new ExtVector(n, a.slice()), pw ? new ExtVector(n, pw.slice()) : null);
  }
  dense(
    lanes: Int32Array,
    mulGates: MulBooking | null,
    e: readonly (readonly Ext[])[],
    pw: readonly Uint32Array[] | null,
  ): TripleSumcheck {
    const { below, K, n } = this;
    const m = lanes.length,
      len = K * m;
    const amul = mulGates ? mulBookingTable(below, K, n, m, mulGates, e) : null;
    const v = new ExtVector(len);
    for (let c = 0; c < K; c++) for (let j = 0; j < m; j++) v.data[c * m + j] = below[c * n + lanes[j]!]!;
    let p: ExtVector | null = null;
    if (pw) {
      p = new ExtVector(len);
      for (let c = 0; c < K; c++) {
        for (let j = 0; j < m; j++) {
          let acc: Ext = EXT_ZERO;
          pw.forEach((t, q) => {
            acc = extAdd(acc, extMul(e[q]![c]!, [t[j]!, t[m + j]!, t[2 * m + j]!, t[3 * m + j]!]));
          });
          p.set(c * m + j, acc);
        }
      }
    }
    return new TsTriple(v, amul ? new ExtVector(len, amul.slice()) : new ExtVector(len), p);
  }
  dispose(): void {}
}

/** The TypeScript backend (reference for the WASM kernels). */
export const tsCopiesBackend: CopiesBackend = {
  name: "typescript",
  load: (below, K, n) => new TsLoaded(valuesOf(below), K, n),
};
