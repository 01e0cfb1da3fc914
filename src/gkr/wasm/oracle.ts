/**
 * The layer oracle on WASM kernels: the same two-phase (Libra) sumcheck as the TypeScript
 * reference `SparseLayerOracle` (compat-v1 §10.4 recommended oracle), with every table in WASM
 * memory (Montgomery form) and coarse kernel calls (src/kernels/assembly/gkr-layer.ts):
 *
 * - construction: claim weights w (one `gkr_weights` call), the phase-1 tables A (lin + booking),
 *   Pw (Pow3) from the gate list (`gkr_fill`), V copied in;
 * - each x round: one `gkr_round` call binds the previous challenge into A, Pw, V and evaluates
 *   the next round (T = 0..4 with Pow3 gates, 0..2 without) and interpolates; the first round
 *   works on the base vector V;
 * - after the last x challenge: V* = V(x*), L* = lin(x*), P* = pow(x*) are the fully bound tables
 *   (for layers with Mul gates, L*, P* and mulx come from one pass over the gates,
 *   `gkr_phase2_start`);
 * - y rounds: without Mul gates β(y) leaves only g(T) = (L*V* + P*V*³)·β·(1 − T), computed here;
 *   with Mul gates one `gkr_round` call per round over (mulx, V(y)); V(y*) is one `gkr_mle_base`
 *   call (or the bound V(y) table).
 *
 * Round messages are coefficients (exactly degree + 1 of them), identical to the interpolated
 * evaluations of the reference oracle (differential tests in test/gkr/wasm-oracle.test.ts).
 */
import { P } from "../../field/koalabear.js";
import { EXT_ONE, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";
import type { Region } from "../../kernels/memory.js";
import { SumcheckError } from "../../sumcheck/errors.js";
import { interpolateRoundPoly } from "../../sumcheck/interpolate.js";
import { extMulSplit } from "../../field/ext-split.js";
import type { RoundMessage } from "../../sumcheck/oracle.js";
import { CircuitError } from "../errors.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "../layer-oracle.js";
import type { LayerImage } from "./image.js";
import {
  type GkrKernels,
  OUT_RESULT,
  OUT_WORDS,
  ROUND_CLAIM,
  ROUND_FOLD,
  ROUND_POW,
  ROUND_RAW,
  ROUND_VBASE,
  gkrKernels,
} from "./kernels.js";
import { KernelError } from "../../kernels/errors.js";
import { MONTGOMERY_R } from "../../kernels/constants.js";
import { inverse, mul } from "../../field/koalabear.js";
import { eqTable } from "../../sumcheck/mle.js";
import type { SparseOracleExtension } from "../sparse-oracle.js";

/**
 * Terms of a gate family kept outside the gate list that book themselves into the oracle's WASM
 * tables (the structured linear groups of profile v2, src/gkr/structured/booking-wasm.ts), in a
 * part of the oracle's workspace. Same meaning as `SparseOracleExtension`, whose canonical-plane
 * hook the oracle otherwise converts to and from Montgomery form.
 */
export interface WasmOracleExtension {
  /** True if the family has Pow3 taps (the x rounds then have degree 4). */
  readonly hasPow: boolean;
  /** Words of the oracle's workspace the extension uses (a multiple of 4). */
  readonly workWords: number;
  /**
   * Adds the phase-1 terms to the plane tables A and Pw (n elements, Montgomery form) from the
   * interleaved Montgomery weights at W (byte pointers). `pwFilled`: Pw already holds gate terms
   * (else its content is unspecified); `keep`: `phase2` will be called.
   */
  fillPhase1(work: number, W: number, A: number, Pw: number, n: number, pwFilled: boolean, keep: boolean): void;
  /** [Σ weight·eq(x*, in) over the linear taps, the same over the Pow3 taps], canonical; eqx: eq(x*, ·) interleaved, Montgomery. */
  phase2(work: number, eqx: number): [Ext, Ext];
  /**
   * Optionally runs a phase-1 round that binds r and evaluates (arguments and flags as
   * `gkr_round`, the same message and tables) on a kernel for the layer's shape; false: the oracle
   * calls `gkr_round`.
   */
  foldRound?(A: number, Pw: number, Vx: number, Vb: number, len: number, r: Ext, flags: number, out: number): boolean;
  /**
   * Optionally writes the claim weights (the table `gkr_weights` writes at W from the claims at
   * `points`) on its own kernel, using its workspace; false: the oracle calls `gkr_weights`.
   */
  weights?(W: number, points: number, claims: number, bits: number, work: number): boolean;
}

function isWasmExtension(e: SparseOracleExtension | WasmOracleExtension): e is WasmOracleExtension {
  return typeof (e as WasmOracleExtension).fillPhase1 === "function";
}

const ZERO: Ext = [0, 0, 0, 0];
/**
 * Phase-1 rounds after the first take g(1) = g_prev(r) − g(0) (the kernel's previous output is
 * always the previous round's polynomial there, even for a round whose message was not asked).
 */
const PHASE1 = ROUND_CLAIM;

/** R⁻¹ mod p (Montgomery form back to canonical). */
const RINV = inverse(MONTGOMERY_R);

function neg(x: number): number {
  return x === 0 ? 0 : P - x;
}

interface Held {
  readonly kernels: GkrKernels;
  readonly work: Region;
  readonly image: LayerImage;
}

/** Returns the regions of an oracle dropped before its last round. */
const abandoned = new FinalizationRegistry<Held>((h) => {
  h.kernels.giveBack(h.work);
  h.kernels.unpin(h.image);
});

/** Word offsets of the work regions inside one oracle's workspace (all multiples of 4). */
interface Layout {
  readonly out: number;
  readonly points: number;
  readonly W: number;
  readonly Wtmp: number;
  readonly Vb: number;
  readonly Aaos: number;
  readonly Paos: number;
  readonly A: number;
  readonly Pw: number;
  readonly Vx: number;
  readonly M: number;
  readonly Vy: number;
  readonly ext: number;
  readonly words: number;
}

function up4(x: number): number {
  return Math.ceil(x / 4) * 4;
}

function layout(
  n: number,
  nOut: number,
  s: number,
  sOut: number,
  claims: number,
  pow: boolean,
  mul: boolean,
  extWords: number,
): Layout {
  let at = 0;
  const take = (words: number) => {
    const start = at;
    at += up4(words);
    return start;
  };
  const out = take(OUT_WORDS);
  const points = take(4 * Math.max(claims * (sOut + 1), s + 1));
  const W = take(4 * nOut);
  const Wtmp = claims > 1 ? take(4 * nOut) : W;
  const Vb = take(n);
  const Aaos = take(4 * n);
  const Paos = pow || mul ? take(4 * n) : Aaos;
  const A = take(4 * n);
  const Pw = pow ? take(4 * n) : A;
  const Vx = take(2 * n + 4);
  const M = mul ? take(4 * n) : A;
  const Vy = mul ? take(2 * n + 4) : Vx;
  const ext = take(extWords);
  return { out, points, W, Wtmp, Vb, Aaos, Paos, A, Pw, Vx, M, Vy, ext, words: at };
}

/**
 * The layer oracle on the WASM kernels (`kernels/assembly/gkr-layer.ts`): the same round polynomials as `SparseLayerOracle`, with the tables in WASM memory (`allocatedBytes`).
 * @throws KernelError `MODULE_MISSING` when the kernel module is not built.
 */
export class WasmLayerOracle implements LayerSumcheckOracle {
  readonly numVariables: number;
  readonly degree: number;
  readonly allocatedBytes: number;

  private readonly k: GkrKernels;
  private readonly s: number;
  private readonly n: number;
  private readonly nOut: number;
  private readonly hasPow: boolean;
  private readonly hasMul: boolean;
  private image: LayerImage | null;
  private work: Region | null;
  /** Byte pointers of the work regions. */
  private readonly p: Layout;
  private round = 0;
  /** Current length of the tables of the running phase. */
  private len: number;
  /** V is still the base vector in the running phase. */
  private vBase = true;
  /** The phase-1 round whose polynomial the kernel's result words hold (−1: none yet). */
  private evaluated = -1;
  /** Challenge received by `bind` and not yet folded into the tables. */
  private pending: Ext | null = null;
  private readonly xs: Ext[] = [];
  private readonly ys: Ext[] = [];
  private evalXValue: Ext | null = null;
  private evalYValue: Ext | null = null;
  /** (L*·V* + P*·V*³)·β(y bound so far), kept as a product so each y round costs one multiplication. */
  private kb: Ext = ZERO;

  /**
   * @throws SumcheckError `BAD_TABLE` if `below` does not have 2^inputBits values; CircuitError
   *   `BAD_POINT` for a claim with the wrong number of coordinates, or any `checkLayer` code for a
   *   malformed layer; KernelError `OUT_OF_MEMORY`.
   */
  /** Terms of a gate family outside the gate list (profile v2 structured groups), or none. */
  private readonly extension: SparseOracleExtension | WasmOracleExtension | undefined;

  constructor(kernels: GkrKernels, input: LayerOracleInput, extension?: SparseOracleExtension | WasmOracleExtension) {
    const { layer, inputBits: s, below, claims } = input;
    if (below.length !== 2 ** s) {
      throw new SumcheckError(
        "BAD_TABLE",
        `layer ${input.layerIndex}: the vector below has ${below.length} values, expected 2^${s}`,
      );
    }
    const sOut = layer.widthBits;
    for (let k = 0; k < claims.length; k++) {
      if (claims[k]!.point.length !== sOut) {
        throw new CircuitError(
          "BAD_POINT",
          `claim ${k} has a point of ${claims[k]!.point.length} coordinates, the layer has ${sOut} width bits`,
          { claim: k },
        );
      }
    }
    this.k = kernels;
    this.s = s;
    this.n = 2 ** s;
    this.nOut = 2 ** sOut;
    this.numVariables = 2 * s;
    const image = kernels.pinImage(layer, s, input.layerIndex);
    this.image = image;
    this.extension = extension;
    this.hasPow = image.counts.pow > 0 || extension?.hasPow === true;
    this.hasMul = image.counts.mul > 0;
    this.degree = this.hasPow ? 4 : 2;
    this.len = this.n;
    const lay = layout(
      this.n,
      this.nOut,
      s,
      sOut,
      claims.length,
      this.hasPow,
      this.hasMul,
      extension && isWasmExtension(extension) ? extension.workWords : 0,
    );
    let work: Region;
    try {
      work = kernels.acquire(lay.words);
    } catch (e) {
      kernels.unpin(image);
      throw e;
    }
    this.work = work;
    abandoned.register(this, { kernels, work, image }, this);
    this.allocatedBytes = 4 * lay.words;
    const base = work.ptr;
    const at = (words: number) => base + 4 * words;
    const ptr: Layout = {
      out: at(lay.out),
      points: at(lay.points),
      W: at(lay.W),
      Wtmp: at(lay.Wtmp),
      Vb: at(lay.Vb),
      Aaos: at(lay.Aaos),
      Paos: at(lay.Paos),
      A: at(lay.A),
      Pw: at(lay.Pw),
      Vx: at(lay.Vx),
      M: at(lay.M),
      Vy: at(lay.Vy),
      ext: at(lay.ext),
      words: lay.words,
    };
    this.p = ptr;

    const raw = kernels.raw;
    const w = kernels.words();
    w.set(below, ptr.Vb >>> 2);
    raw.to_mont(ptr.Vb, ptr.Vb, this.n);
    let c = ptr.points >>> 2;
    for (const claim of claims) {
      for (const z of claim.point) {
        w[c] = z[0];
        w[c + 1] = z[1];
        w[c + 2] = z[2];
        w[c + 3] = z[3];
        c += 4;
      }
      const k = claim.coeff;
      w[c] = k[0];
      w[c + 1] = k[1];
      w[c + 2] = k[2];
      w[c + 3] = k[3];
      c += 4;
    }
    const wext = extension && isWasmExtension(extension) ? extension : undefined;
    if (wext?.weights === undefined || !wext.weights(ptr.W, ptr.points, claims.length, sOut, ptr.ext))
      raw.gkr_weights(ptr.W, ptr.Wtmp, ptr.points, claims.length, sOut);
    raw.gkr_fill(image.desc, ptr.W, ptr.Vb, ptr.Aaos, ptr.Paos, ptr.A, ptr.Pw, this.n, this.nOut);
    if (extension && isWasmExtension(extension))
      extension.fillPhase1(ptr.ext, ptr.W, ptr.A, ptr.Pw, this.n, image.counts.pow > 0, this.hasMul && s > 0);
    else if (extension) this.extendPhase1(extension, image.counts.pow > 0);
    if (s === 0) {
      const v: Ext = [below[0]!, 0, 0, 0];
      this.evalXValue = v;
      this.evalYValue = v;
      this.finish();
    }
  }

  roundPolynomial(): RoundMessage {
    if (this.round >= this.numVariables) {
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    }
    if (this.round < this.s) {
      if (this.evaluated !== this.round)
        this.kernelRound(this.p.A, this.p.Pw, this.p.Vx, PHASE1 | (this.hasPow ? ROUND_POW : 0));
      return { kind: "coefficients", values: this.results(this.hasPow ? 5 : 3) };
    }
    const kb = this.kb;
    if (!this.hasMul) {
      return { kind: "coefficients", values: [kb, [neg(kb[0]), neg(kb[1]), neg(kb[2]), neg(kb[3])], ZERO] };
    }
    this.kernelRound(this.p.M, this.p.M, this.p.Vy, ROUND_RAW);
    const g = this.results(3);
    const vStar = this.evalXValue!;
    const values = [extAdd(kb, extMul(vStar, g[0]!)), extMul(vStar, g[1]!), extSub(extMul(vStar, g[2]!), kb)];
    return { kind: "coefficients", values: interpolateRoundPoly(values).slice(0, 3) };
  }

  bind(r: Ext): void {
    if (this.round >= this.numVariables) {
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    }
    const inX = this.round < this.s;
    // A round whose message was not asked is evaluated now: in phase 1 the next round needs its
    // polynomial (PHASE1), in phase 2 only the pending challenge must be folded.
    if (inX && this.evaluated !== this.round) {
      this.kernelRound(this.p.A, this.p.Pw, this.p.Vx, PHASE1 | (this.hasPow ? ROUND_POW : 0));
    } else if (!inX && this.pending !== null) {
      this.kernelRound(this.p.M, this.p.M, this.p.Vy, ROUND_RAW);
    }
    this.round++;
    if (inX) {
      this.xs.push(r);
      if (this.round === this.s) this.startPhase2(r);
      else this.pending = r;
      return;
    }
    this.ys.push(r);
    this.kb = extMulSplit(this.kb, extSub(EXT_ONE, r));
    if (this.round < this.numVariables) {
      if (this.hasMul) this.pending = r;
      return;
    }
    // Last y challenge: V(y*).
    const raw = this.k.raw;
    if (this.hasMul) {
      this.foldToOne(this.p.M, this.p.M, this.p.Vy, r, 0);
      this.evalYValue = this.result(8);
    } else {
      this.writePoint(this.ys);
      raw.gkr_mle_base(this.p.Vb, this.p.Aaos, this.p.points, this.s, this.p.out);
      this.evalYValue = this.result(0);
    }
    this.finish();
  }

  evalX(): Ext {
    if (this.evalXValue === null)
      throw new SumcheckError("ROUNDS_EXHAUSTED", "V(x*) is known only after the x block is bound");
    return this.evalXValue;
  }

  evalY(): Ext {
    if (this.evalYValue === null)
      throw new SumcheckError("ROUNDS_EXHAUSTED", "V(y*) is known only after every variable is bound");
    return this.evalYValue;
  }

  /**
   * One `gkr_round` call over (A, Pw, V) of the running phase: folds the pending challenge (if
   * any) and evaluates the current round.
   */
  private kernelRound(A: number, Pw: number, V: number, flags: number): void {
    this.live();
    const r = this.pending;
    let f = flags | (this.vBase ? ROUND_VBASE : 0);
    if (r !== null) f |= ROUND_FOLD;
    const ext = this.extension;
    const done =
      r !== null &&
      ext !== undefined &&
      isWasmExtension(ext) &&
      ext.foldRound !== undefined &&
      ext.foldRound(A, Pw, V, this.p.Vb, this.len, r, f, this.p.out);
    if (!done)
      this.k.raw.gkr_round(
        A,
        Pw,
        V,
        this.p.Vb,
        this.len,
        r ? r[0] : 0,
        r ? r[1] : 0,
        r ? r[2] : 0,
        r ? r[3] : 0,
        f,
        this.p.out,
      );
    this.evaluated = this.round;
    if (r !== null) {
      this.len /= 2;
      this.vBase = false;
      this.pending = null;
    }
  }

  /** Binds r into tables of length 2 (the last variable of a phase); results: A, Pw, V. */
  private foldToOne(A: number, Pw: number, V: number, r: Ext, flags: number): void {
    this.live();
    const f = flags | ROUND_FOLD | (this.vBase ? ROUND_VBASE : 0);
    this.k.raw.gkr_round(A, Pw, V, this.p.Vb, 2, r[0], r[1], r[2], r[3], f, this.p.out);
  }

  /** After the last x challenge r: V*, L*, P*, k1 = L*·V* + P*·V*³; phase 2 tables. */
  private startPhase2(r: Ext): void {
    if (this.pending !== null)
      throw new SumcheckError("BAD_TABLE", "internal: unfolded challenge at the end of the x block");
    this.foldToOne(this.p.A, this.p.Pw, this.p.Vx, r, this.hasPow ? ROUND_POW : 0);
    const vStar = this.result(8);
    let lStar = this.result(0);
    let pStar = this.result(4);
    if (this.hasMul) {
      const raw = this.k.raw;
      this.writePoint(this.xs, EXT_ONE);
      raw.gkr_eq(this.p.Aaos, this.p.points, this.s);
      raw.gkr_phase2_start(
        this.image!.desc,
        this.p.W,
        this.p.Aaos,
        this.p.Paos,
        this.p.M,
        this.n,
        this.nOut,
        this.p.out,
      );
      lStar = this.result(0);
      pStar = this.result(4);
      if (this.extension && isWasmExtension(this.extension)) {
        const [l, pw] = this.extension.phase2(this.p.ext, this.p.Aaos);
        lStar = extAdd(lStar, l);
        pStar = extAdd(pStar, pw);
      } else if (this.extension) {
        const acc = new Uint32Array(8);
        acc.set(lStar, 0);
        acc.set(pStar, 4);
        const lin = acc.subarray(0, 4),
          pw = acc.subarray(4, 8);
        this.extension.addPhase2(eqTable(this.xs).data, this.n, new Uint32Array(0), 0, lin, pw);
        lStar = [lin[0]!, lin[1]!, lin[2]!, lin[3]!];
        pStar = [pw[0]!, pw[1]!, pw[2]!, pw[3]!];
      }
    }
    this.evalXValue = vStar;
    const v3 = extMul(extMul(vStar, vStar), vStar);
    this.kb = extAdd(extMul(lStar, vStar), extMul(pStar, v3));
    this.len = this.n;
    this.vBase = true;
  }

  /**
   * Adds the extension's phase-1 terms: the weights are read back (AoS, Montgomery) as canonical
   * planes, the extension fills canonical tables, which are added in Montgomery form to the plane
   * tables A and Pw (Pw zeroed first when the gate list has no Pow3 gates).
   */
  private extendPhase1(extension: SparseOracleExtension, pwFilled: boolean): void {
    const w = this.k.words();
    const n = this.n,
      nOut = this.nOut;
    const rInv = RINV;
    const planes = new Uint32Array(4 * nOut);
    const wAt = this.p.W >>> 2;
    for (let i = 0; i < nOut; i++) {
      for (let c = 0; c < 4; c++) planes[c * nOut + i] = mul(w[wAt + 4 * i + c]!, rInv);
    }
    const lin = new Uint32Array(4 * n);
    const pow = this.hasPow ? new Uint32Array(4 * n) : null;
    extension.addPhase1(lin, pow, n, planes, nOut);
    const aAt = this.p.A >>> 2;
    for (let j = 0; j < 4 * n; j++) if (lin[j] !== 0) w[aAt + j] = (w[aAt + j]! + mul(lin[j]!, MONTGOMERY_R)) % P;
    if (pow) {
      const pAt = this.p.Pw >>> 2;
      if (!pwFilled) w.fill(0, pAt, pAt + 4 * n);
      for (let j = 0; j < 4 * n; j++) if (pow[j] !== 0) w[pAt + j] = (w[pAt + j]! + mul(pow[j]!, MONTGOMERY_R)) % P;
    }
  }

  private writePoint(point: readonly Ext[], scale?: Ext): void {
    const w = this.k.words();
    let c = this.p.points >>> 2;
    for (const z of point) {
      w[c] = z[0];
      w[c + 1] = z[1];
      w[c + 2] = z[2];
      w[c + 3] = z[3];
      c += 4;
    }
    if (scale) {
      w[c] = scale[0];
      w[c + 1] = scale[1];
      w[c + 2] = scale[2];
      w[c + 3] = scale[3];
    }
  }

  private result(word: number): Ext {
    const w = this.k.words();
    const at = (this.p.out >>> 2) + OUT_RESULT + word;
    return [w[at]!, w[at + 1]!, w[at + 2]!, w[at + 3]!];
  }

  private results(count: number): Ext[] {
    const w = this.k.words();
    const at = (this.p.out >>> 2) + OUT_RESULT;
    const out: Ext[] = new Array(count);
    for (let j = 0; j < count; j++) {
      const o = at + 4 * j;
      out[j] = [w[o]!, w[o + 1]!, w[o + 2]!, w[o + 3]!];
    }
    return out;
  }

  private live(): void {
    if (this.work === null) throw new SumcheckError("ROUNDS_EXHAUSTED", "the oracle has finished");
  }

  /** Returns the workspace and the image (the oracle keeps only evalX/evalY). */
  private finish(): void {
    abandoned.unregister(this);
    if (this.work !== null) {
      this.k.giveBack(this.work);
      this.work = null;
    }
    if (this.image !== null) {
      this.k.unpin(this.image);
      this.image = null;
    }
  }
}

/** A factory of WASM oracles over the given context (e.g. `GkrKernels.attach` in a worker). */
export function wasmLayerOracleFactory(kernels: GkrKernels): LayerOracleFactory {
  return (input) => new WasmLayerOracle(kernels, input);
}

/**
 * WASM oracles over this thread's default context (`gkrKernels()`).
 * @throws KernelError `MODULE_MISSING` if the kernel module is not available.
 */
export const wasmLayerOracle: LayerOracleFactory = (input) => {
  const k = gkrKernels();
  if (k === null)
    throw new KernelError("MODULE_MISSING", "the GKR kernels are not available; run `npm run build:kernels`");
  return new WasmLayerOracle(k, input);
};
