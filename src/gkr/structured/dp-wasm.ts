/**
 * The data-parallel oracle's backend on the WASM kernels (docs/profile-v2.md §6.2): the K
 * layer-below vectors are read where the evaluation keeps them (`KeptVector`, dp-resident.ts), or
 * else loaded once per layer into WASM memory (Montgomery form); the passes over
 * them are `dp_dots`, `dp_combine`, `dp_gather`, `dp_outer` and the Mul booking of the dense tables
 * `dp_mul_booking` (src/kernels/assembly/gkr-copies.ts)
 * and every table sumcheck runs on `gkr_round` (src/kernels/assembly/gkr-layer.ts, raw evaluations;
 * after a table's first round g(1) is the previous round polynomial at the challenge minus g(0),
 * ROUND_CLAIM, so node 1 is not evaluated).
 * The dense tables of a layer without Mul gates have no A table at all: their rounds run with
 * ROUND_NOA (Σ Pw·V³, no zero table read, folded or multiplied).
 * Same values as `tsCopiesBackend` (differential tests in test/gkr/structured-dp.test.ts and
 * structured-dp-fast.test.ts).
 */
import { P, inverse, mul } from "../../field/koalabear.js";
import { EXT_ONE, type Ext } from "../../field/extension.js";
import { ExtVector } from "../../field/ext-vector.js";
import { MAX_TABLE_BITS, eqTable } from "../../sumcheck/mle.js";
import { SumcheckError } from "../../sumcheck/errors.js";
import { evalRoundPoly, interpolateRoundPoly } from "../../sumcheck/interpolate.js";
import { MONTGOMERY_R } from "../../kernels/constants.js";
import { KernelError } from "../../kernels/errors.js";
import type { Region } from "../../kernels/memory.js";
import {
  type CopiesBackend,
  type LayerValues,
  type LoadedCopies,
  type MulBooking,
  type StagePair,
  type TripleSumcheck,
  mulBookingTable,
  valuesOf,
} from "./dp-oracle.js";
import { Carver, KeptVector, up } from "./dp-resident.js";
import {
  type GkrKernelExports,
  type GkrKernels,
  OUT_CLAIM,
  OUT_RESULT,
  OUT_WORDS,
  ROUND_CLAIM,
  ROUND_FOLD,
  ROUND_NOA,
  ROUND_POW,
  ROUND_RAW,
  ROUND_VBASE,
} from "../wasm/kernels.js";

/** Exports of src/kernels/assembly/gkr-copies.ts. */
interface CopiesKernelExports extends GkrKernelExports {
  dp_dots(V: number, K: number, n: number, T: number, nt: number, out: number): void;
  dp_combine(V: number, K: number, n: number, e: number, dst: number): void;
  dp_gather(dst: number, V: number, K: number, n: number, lanes: number, m: number, mp: number): void;
  dp_outer(dst: number, E: number, T: number, K: number, mp: number, nq: number): void;
  /** Optional (modules built before it): without it the Mul booking is computed by `mulBookingTable`. */
  dp_mul_booking?(
    A: number,
    len: number,
    V: number,
    K: number,
    n: number,
    mp: number,
    gates: number,
    G: number,
    U: number,
    E: number,
    Q: number,
    m: number,
    acc: number,
  ): void;
}

const RINV = inverse(MONTGOMERY_R);
const ZERO: Ext = [0, 0, 0, 0];

function fromMont(x: number): number {
  return mul(x, RINV);
}

class WasmTriple implements TripleSumcheck {
  private pending: Ext | null = null;
  /** The last round's evaluations g(0..own) over the tables before `pending` binds (null: none, or tables since changed). */
  private previous: Ext[] | null = null;
  private bound: { a: Ext; p: Ext; v: Ext } | null = null;
  private region: Region | null;

  constructor(
    private readonly k: GkrKernels,
    private readonly raw: CopiesKernelExports,
    region: Region,
    private readonly A: number,
    private readonly Pw: number,
    private readonly Vx: number,
    private readonly Vb: number,
    private readonly out: number,
    private len: number,
    private vbase: boolean,
    private readonly pow: boolean,
    /** A is zero and has no table (only with pow): `A` is not a table, A reads as zero. */
    private readonly noA: boolean = false,
  ) {
    this.region = region;
  }

  private call(len: number, r: Ext | null, flags: number): void {
    let f = flags | (this.pow ? ROUND_POW : 0) | (this.vbase ? ROUND_VBASE : 0) | (this.noA ? ROUND_NOA : 0);
    if (r) f |= ROUND_FOLD;
    this.raw.gkr_round(
      this.A,
      this.Pw,
      this.Vx,
      this.Vb,
      len,
      r ? r[0] : 0,
      r ? r[1] : 0,
      r ? r[2] : 0,
      r ? r[3] : 0,
      f,
      this.out,
    );
  }

  evaluations(m: number): Ext[] {
    const r = this.pending;
    let flags = ROUND_RAW;
    if (r && this.previous) {
      // The new tables sum to the previous round polynomial at r: node 1 is not evaluated.
      const c = evalRoundPoly(interpolateRoundPoly(this.previous), r);
      this.k.words().set(c, (this.out >>> 2) + OUT_RESULT + OUT_CLAIM);
      flags |= ROUND_CLAIM;
    }
    this.call(this.len, r, flags);
    if (r) {
      this.len /= 2;
      this.vbase = false;
      this.pending = null;
    }
    const w = this.k.words();
    const at = (this.out >>> 2) + OUT_RESULT;
    const own = this.pow ? 4 : 2;
    const g: Ext[] = [];
    for (let t = 0; t <= own; t++) g.push([w[at + 4 * t]!, w[at + 4 * t + 1]!, w[at + 4 * t + 2]!, w[at + 4 * t + 3]!]);
    this.previous = g.slice();
    // A quadratic asked at T = 3, 4: third differences vanish.
    while (g.length <= m) {
      const j = g.length;
      const a = g[j - 1]!,
        b = g[j - 2]!,
        c = g[j - 3]!;
      g.push([0, 1, 2, 3].map((i) => (3 * a[i]! + c[i]! + 3 * P - 3 * b[i]!) % P) as unknown as Ext);
    }
    return g.slice(0, m + 1);
  }

  private flush(): void {
    const r = this.pending!;
    this.pending = null;
    this.previous = null;
    if (this.len === 2) {
      this.call(2, r, 0);
      const w = this.k.words();
      const at = (this.out >>> 2) + OUT_RESULT;
      const get = (o: number): Ext => [w[at + o]!, w[at + o + 1]!, w[at + o + 2]!, w[at + o + 3]!];
      this.bound = { a: get(0), p: this.pow ? get(4) : ZERO, v: get(8) };
      this.len = 1;
    } else {
      this.call(this.len, r, ROUND_RAW);
      this.len /= 2;
    }
    this.vbase = false;
  }

  bind(r: Ext): void {
    if (this.pending) this.flush();
    this.pending = r;
  }

  final(): { a: Ext; p: Ext; v: Ext } {
    if (this.pending) this.flush();
    if (this.bound) return this.bound;
    // Never bound (one entry): read the tables.
    const w = this.k.words();
    const plane = (ptr: number): Ext => {
      const o = ptr >>> 2;
      return [fromMont(w[o]!), fromMont(w[o + 1]!), fromMont(w[o + 2]!), fromMont(w[o + 3]!)];
    };
    const v: Ext = this.vbase ? [fromMont(w[this.Vb >>> 2]!), 0, 0, 0] : plane(this.Vx);
    return { a: this.noA ? ZERO : plane(this.A), p: this.pow ? plane(this.Pw) : ZERO, v };
  }

  pair(): StagePair {
    if (this.pending) this.flush();
    if (this.len !== 2)
      throw new SumcheckError("BAD_TABLE", `internal: a pair is read at length 2, the tables have ${this.len}`);
    const w = this.k.words();
    const at = (ptr: number, j: number): Ext => {
      const o = (ptr >>> 2) + j;
      return [fromMont(w[o]!), fromMont(w[o + 2]!), fromMont(w[o + 4]!), fromMont(w[o + 6]!)];
    };
    const vb = (j: number): Ext => [fromMont(w[(this.Vb >>> 2) + j]!), 0, 0, 0];
    return {
      v: this.vbase ? [vb(0), vb(1)] : [at(this.Vx, 0), at(this.Vx, 1)],
      a: this.noA ? [ZERO, ZERO] : [at(this.A, 0), at(this.A, 1)],
      p: this.pow ? [at(this.Pw, 0), at(this.Pw, 1)] : [ZERO, ZERO],
    };
  }

  readA(count: number): Uint32Array {
    if (this.pending) this.flush();
    const w = this.k.words();
    const out = new Uint32Array(4 * count);
    if (this.noA) return out;
    const base = this.A >>> 2,
      len = this.len;
    for (let c = 0; c < 4; c++) for (let j = 0; j < count; j++) out[c * count + j] = fromMont(w[base + c * len + j]!);
    return out;
  }

  dispose(): void {
    if (this.region) {
      this.k.giveBack(this.region);
      this.region = null;
    }
  }
}

class WasmLoaded implements LoadedCopies {
  private region: Region | null;
  private readonly V: number;

  constructor(
    private readonly k: GkrKernels,
    private readonly raw: CopiesKernelExports,
    private readonly below: LayerValues,
    private readonly K: number,
    private readonly n: number,
  ) {
    // A vector `evaluateCopiesWasm` keeps in WASM memory is used where it is (Montgomery form already).
    if (below instanceof KeptVector && below.residentIn(k)) {
      this.region = null;
      this.V = below.ptr;
      return;
    }
    const values = valuesOf(below);
    this.region = k.acquire(values.length);
    this.V = this.region.ptr;
    k.words().set(values, this.V >>> 2);
    raw.to_mont(this.V, this.V, values.length);
  }

  /** Writes canonical words at a word offset and converts them to Montgomery form. */
  private put(wordAt: number, values: ArrayLike<number>): void {
    this.k.words().set(values as Uint32Array, wordAt);
    this.raw.to_mont(4 * wordAt, 4 * wordAt, values.length);
  }

  dots(tables: readonly Uint32Array[]): Ext[][] {
    const { K, n } = this;
    const nt = tables.length;
    const lay = new Carver();
    const T = lay.take(4 * n * nt),
      out = lay.take(4 * K * nt);
    const reg = this.k.acquire(lay.words);
    try {
      const b = reg.ptr >>> 2;
      const w = this.k.words();
      tables.forEach((t, i) => w.set(t, b + T + 4 * n * i));
      this.raw.to_mont(4 * (b + T), 4 * (b + T), 4 * n * nt);
      this.raw.dp_dots(this.V, K, n, 4 * (b + T), nt, 4 * (b + out));
      const r = this.k.words();
      const res: Ext[][] = [];
      for (let t = 0; t < nt; t++) {
        const row: Ext[] = new Array(K);
        for (let c = 0; c < K; c++) {
          const o = b + out + 4 * (t * K + c);
          row[c] = [r[o]!, r[o + 1]!, r[o + 2]!, r[o + 3]!];
        }
        res.push(row);
      }
      return res;
    } finally {
      this.k.giveBack(reg);
    }
  }

  stage(e: readonly Ext[] | null, a: Uint32Array, pw: Uint32Array | null): TripleSumcheck {
    const { K, n } = this;
    const lay = new Carver();
    const out = lay.take(OUT_WORDS),
      A = lay.take(4 * n),
      Pw = pw ? lay.take(4 * n) : A,
      Vx = lay.take(4 * n + 4),
      E = e ? lay.take(4 * K) : 0;
    const reg = this.k.acquire(lay.words);
    const b = reg.ptr >>> 2;
    this.put(b + A, a);
    if (pw) this.put(b + Pw, pw);
    if (e) {
      const flat = new Uint32Array(4 * K);
      e.forEach((x, c) => flat.set(x, 4 * c));
      this.put(b + E, flat);
      this.raw.dp_combine(this.V, K, n, 4 * (b + E), 4 * (b + Vx));
    }
    return new WasmTriple(
      this.k,
      this.raw,
      reg,
      4 * (b + A),
      4 * (b + Pw),
      4 * (b + Vx),
      this.V,
      4 * (b + out),
      n,
      e === null,
      pw !== null,
    );
  }

  dense(
    lanes: Int32Array,
    mulGates: MulBooking | null,
    e: readonly (readonly Ext[])[],
    pw: readonly Uint32Array[] | null,
  ): TripleSumcheck {
    const { K, n } = this;
    const m = lanes.length,
      mp = up(m, 16),
      len = K * mp;
    const nq = e.length;
    const kernelMul = mulGates !== null && typeof this.raw.dp_mul_booking === "function";
    const G = mulGates ? mulGates.slots.length : 0;
    // Without Mul gates A is zero: with Pow3 the rounds run without it (ROUND_NOA) and it gets no
    // table (nor is it zeroed); without Pow3 either the lanes are empty and no dense tables are made.
    const noA = mulGates === null && pw !== null;
    const lay = new Carver();
    const out = lay.take(OUT_WORDS),
      A = noA ? 0 : lay.take(4 * len),
      Pw = pw ? lay.take(4 * len) : A,
      Vx = lay.take(2 * len + 4),
      Vb = lay.take(len);
    const L = lay.take(m),
      E = pw || kernelMul ? lay.take(4 * K * nq) : 0,
      T = pw ? lay.take(4 * mp * nq) : 0;
    const Gt = kernelMul ? lay.take(2 * G) : 0,
      U = kernelMul ? lay.take(4 * G * nq) : 0,
      Acc = kernelMul ? lay.take(4 * m) : 0;
    const reg = this.k.acquire(lay.words);
    const b = reg.ptr >>> 2;
    let w = this.k.words();
    w.set(lanes, b + L);
    this.raw.dp_gather(4 * (b + Vb), this.V, K, n, 4 * (b + L), m, mp);
    w = this.k.words();
    if (!noA) w.fill(0, b + A, b + A + 4 * len);
    if (pw || kernelMul) {
      const flat = new Uint32Array(4 * K * nq);
      e.forEach((row, q) => row.forEach((x, c) => flat.set(x, 4 * (q * K + c))));
      this.put(b + E, flat);
    }
    const amul = mulGates && !kernelMul ? mulBookingTable(valuesOf(this.below), K, n, m, mulGates, e) : null;
    if (kernelMul) {
      const gates = new Uint32Array(2 * G);
      for (let g = 0; g < G; g++) {
        gates[2 * g] = mulGates.slots[g]!;
        gates[2 * g + 1] = mulGates.in2[g]!;
      }
      const u = new Uint32Array(4 * G * nq);
      mulGates.u.forEach((t, q) => {
        for (let g = 0; g < G; g++) for (let c = 0; c < 4; c++) u[4 * (q * G + g) + c] = t[c * G + g]!;
      });
      this.k.words().set(gates, b + Gt);
      this.put(b + U, u);
      this.raw.dp_mul_booking!(
        4 * (b + A),
        len,
        this.V,
        K,
        n,
        mp,
        4 * (b + Gt),
        G,
        4 * (b + U),
        4 * (b + E),
        nq,
        m,
        4 * (b + Acc),
      );
    }
    w = this.k.words();
    if (amul) {
      const lm = K * m;
      for (let k = 0; k < 4; k++) {
        for (let c = 0; c < K; c++) {
          const src = k * lm + c * m,
            dst = b + A + k * len + c * mp;
          for (let j = 0; j < m; j++) w[dst + j] = amul[src + j]!;
        }
      }
      this.raw.to_mont(4 * (b + A), 4 * (b + A), 4 * len);
    }
    if (pw) {
      const tp = new Uint32Array(4 * mp * nq);
      pw.forEach((t, q) => {
        for (let k = 0; k < 4; k++) for (let j = 0; j < m; j++) tp[q * 4 * mp + k * mp + j] = t[k * m + j]!;
      });
      this.put(b + T, tp);
      this.raw.dp_outer(4 * (b + Pw), 4 * (b + E), 4 * (b + T), K, mp, nq);
    }
    return new WasmTriple(
      this.k,
      this.raw,
      reg,
      4 * (b + A),
      4 * (b + Pw),
      4 * (b + Vx),
      4 * (b + Vb),
      4 * (b + out),
      len,
      true,
      pw !== null,
      noA,
    );
  }

  dispose(): void {
    if (this.region) {
      this.k.giveBack(this.region);
      this.region = null;
    }
  }
}

/** True iff the kernel module in `kernels` has the data-parallel kernels. */
export function hasCopiesKernels(kernels: GkrKernels): boolean {
  const raw = kernels.raw as Partial<CopiesKernelExports>;
  return (
    typeof raw.dp_dots === "function" &&
    typeof raw.dp_combine === "function" &&
    typeof raw.dp_gather === "function" &&
    typeof raw.dp_outer === "function"
  );
}

/**
 * The WASM backend over a kernel context.
 * @throws KernelError `MODULE_MISSING` if the module lacks the data-parallel kernels (check
 *   `hasCopiesKernels`).
 */
export function wasmCopiesBackend(kernels: GkrKernels): CopiesBackend {
  if (!hasCopiesKernels(kernels))
    throw new KernelError(
      "MODULE_MISSING",
      "the kernel module lacks the data-parallel kernels (dp_*); run `npm run build:kernels`",
    );
  const raw = kernels.raw as CopiesKernelExports;
  return {
    name: "wasm",
    load: (below, K, n) => new WasmLoaded(kernels, raw, below, K, n),
    eqTable: (point, scale) => eqTableWasm(kernels, point, scale),
  };
}

/**
 * `eqTable(point, scale)` (src/sumcheck/mle.ts: the plane table of scale·eq(point, b), canonical)
 * on `gkr_eq`: the interleaved Montgomery table is built in WASM memory, converted back with
 * `from_mont` and split into planes. Same values (test/gkr/structured-dp.test.ts).
 * @throws SumcheckError `BAD_POINT` for more than 30 coordinates (from `eqTable`); KernelError `OUT_OF_MEMORY`.
 */
export function eqTableWasm(kernels: GkrKernels, point: readonly Ext[], scale: Ext = EXT_ONE): ExtVector {
  const s = point.length;
  if (s > MAX_TABLE_BITS) return eqTable(point, scale);
  const N = 2 ** s;
  const lay = new Carver();
  const T = lay.take(4 * N),
    pts = lay.take(4 * (s + 1));
  const reg = kernels.acquire(lay.words);
  try {
    const b = reg.ptr >>> 2;
    let w = kernels.words();
    let c = b + pts;
    for (const z of point) {
      w[c] = z[0];
      w[c + 1] = z[1];
      w[c + 2] = z[2];
      w[c + 3] = z[3];
      c += 4;
    }
    w[c] = scale[0];
    w[c + 1] = scale[1];
    w[c + 2] = scale[2];
    w[c + 3] = scale[3];
    kernels.raw.gkr_eq(4 * (b + T), 4 * (b + pts), s);
    kernels.raw.from_mont(4 * (b + T), 4 * (b + T), 4 * N);
    w = kernels.words();
    const v = new ExtVector(N);
    const d = v.data;
    const N2 = 2 * N,
      N3 = 3 * N;
    for (let i = 0, o = b + T; i < N; i++, o += 4) {
      d[i] = w[o]!;
      d[N + i] = w[o + 1]!;
      d[N2 + i] = w[o + 2]!;
      d[N3 + i] = w[o + 3]!;
    }
    return v;
  } finally {
    kernels.giveBack(reg);
  }
}
