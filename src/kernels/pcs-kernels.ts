/**
 * The WASM backend of the polynomial commitment's bulk operations (src/pcs/backend.ts, the
 * seam), on this thread's kernel memory (src/kernels/assembly/ntt.ts, pcs-ext.ts, merkle.ts).
 * The working tables it returns (codewords, folds, lifts, resident copies, zeros) are views of
 * regions of that memory, registered until `release`: an operand that is such a view is read in
 * place, any other array is copied in for the call (and an updated one copied back). Canonical
 * values in and out; the fold's challenge and the round's result cross the boundary in
 * Montgomery form only inside this file. Same results as the references
 * (test/kernels/pcs-kernels.test.ts).
 */
import { P, add, mul, pow } from "../field/koalabear.js";
import { extAdd, extMul, extPow, type Ext } from "../field/extension.js";
import { rootOfUnity } from "../pcs/domain.js";
import {
  merkleTreeOfCodeword,
  merkleTreeOfCodewordPair,
  type FoldMode,
  type LeafWidth,
  activeKernelRunner,
  type MerkleTree,
  type OpenedRows,
  type PcsBackend,
  type PcsKernelCall,
  type PcsMerkleFn,
  typescriptPcsBackend,
} from "../pcs/backend.js";
import { MERKLE24_WORK_WORDS } from "./abi.js";
import { MONTGOMERY_R, poseidon2Constant24Words } from "./constants.js";
import { defaultKernels, type Kernels } from "./kernels.js";
import type { Region } from "./memory.js";
import { extConstantTable, foldRowsOnKernels } from "./pcs-fold-rows.js";
import {
  codewordBatches,
  cut,
  mobiusBatches,
  nttBatches,
  nttScratchWords,
  ranges,
  TILED_REVERSE_LOG,
} from "./pcs-split.js";

/** Calls per participating thread of a spread operation (more, smaller calls balance a loaded machine). */
const CALLS_PER_THREAD = 8;

/** ⌊b·2^32 / p⌋ for a canonical b, exactly, without BigInt. */
export function shoupCompanion(b: number): number {
  let q = Math.floor((b * 4294967296) / P);
  // r = b·2^32 − q·p, known modulo 2^32; it lies in (−p, 2p).
  const r = (0 - Math.imul(q, P)) >>> 0;
  if (r >= 4294967296 - P) q -= 1;
  else if (r >= P) q += 1;
  return q;
}

/** Twiddles of every stage up to 2^logN: words [h, 2h) hold ω_(2h)^k (k < h); and their Shoup companions. */
export function nttTwiddleTables(logN: number): { twiddles: Uint32Array; companions: Uint32Array } {
  const n = 1 << logN;
  const twiddles = new Uint32Array(n);
  const companions = new Uint32Array(n);
  if (n < 2) return { twiddles, companions };
  // The top stage (h = n/2) by powers of ω_logN; each lower stage is every other entry of the one above (ω_(2h)^k = ω_(4h)^(2k)).
  const top = n >> 1;
  const w = rootOfUnity(logN);
  let acc = 1;
  for (let k = 0; k < top; k++) {
    twiddles[top + k] = acc;
    companions[top + k] = shoupCompanion(acc);
    acc = mul(acc, w);
  }
  for (let h = top >> 1; h >= 1; h >>= 1) {
    for (let k = 0; k < h; k++) {
      twiddles[h + k] = twiddles[2 * h + 2 * k]!;
      companions[h + k] = companions[2 * h + 2 * k]!;
    }
  }
  return { twiddles, companions };
}

export { extConstantTable };

/**
 * Elements per call of the kernels with one long loop (twiddles, bit reversal): V8 runs a
 * function's first calls on its baseline compiler and later calls on the optimised code, so a
 * long job split into bounded calls runs mostly optimised, even in a fresh process.
 */
const CALL_ELEMENTS = 1 << 14;

/** Writes the twiddle tables up to 2^logN (the layout of `nttTwiddleTables`) at byte pointers tw and tws, in bounded calls. */
function fillTwiddles(kernels: Kernels, tw: number, tws: number, logN: number): void {
  const raw = kernels.instance.raw;
  const words = kernels.heap.memory.buffer;
  new Uint32Array(words, tw, 1)[0] = 0;
  new Uint32Array(words, tws, 1)[0] = 0;
  if (logN < 1) return;
  const top = 1 << (logN - 1);
  const w = rootOfUnity(logN);
  // Stage h holds ω_(2h)^k = (ω^(top/h))^k for k < h.
  for (let h = top; h >= 1; h >>= 1) {
    const ratio = pow(w, top / h);
    for (let from = 0; from < h; from += CALL_ELEMENTS) {
      raw.ntt_twiddles(
        tw + 4 * (h + from),
        tws + 4 * (h + from),
        Math.min(CALL_ELEMENTS, h - from),
        pow(ratio, from),
        ratio,
      );
    }
  }
}

/** Terms per block of `pcs_eval_base` (its powers of z: 4 KiB, made on this thread for each point). */
const EVAL_BLOCK = 256;

/** z^l for l < count as interleaved extension values in Montgomery form (`pcs_eval_base`'s powers). */
export function evalPowers(z: Ext, count: number): Uint32Array {
  const out = new Uint32Array(4 * count);
  let x: Ext = [1, 0, 0, 0];
  for (let l = 0; l < count; l++) {
    for (let c = 0; c < 4; c++) out[4 * l + c] = mul(x[c]!, MONTGOMERY_R);
    x = extMul(x, z);
  }
  return out;
}

/** Words of the Merkle kernels' scratch (four transposed states). */
const MERKLE_WORK_WORDS = 64;

class WasmPcsKernels implements PcsBackend {
  readonly name = "wasm" as const;
  private tables: { logN: number; twiddles: Region; companions: Region } | null = null;
  /** The working tables handed out: view → its region. */
  private readonly regions = new Map<Uint32Array, Region>();
  private work: Region | null = null;
  /** The width-24 constants region and scratch of the width-24 leaf kernels (made on first use). */
  private leaf24: { consts: Region; work: Region } | null = null;
  constructor(private readonly kernels: Kernels) {}

  /** How many working tables are handed out and not released (for tests). */
  get residentTables(): number {
    return this.regions.size;
  }

  /** How many calls an operation over `elements` elements is cut into: 1 without a pool that shares this memory. */
  private parts(elements: number): number {
    const workers = activeKernelRunner();
    if (workers === null || elements < workers.minCallElements) return 1;
    return (workers.threads + 1) * CALLS_PER_THREAD;
  }

  /** Runs one batch of independent calls: on the active pool when it shares this memory (with `alongside` on this thread meanwhile), else here. */
  private run(calls: readonly PcsKernelCall[], alongside?: () => void): void {
    const workers = activeKernelRunner();
    if (calls.length > 1 && workers !== null)
      workers.kernelCalls(this.kernels.share(), calls, (c) => this.call(c), alongside);
    else {
      alongside?.();
      for (const c of calls) this.call(c);
    }
  }

  private call(c: PcsKernelCall): void {
    (this.kernels.instance.raw as unknown as Record<string, (...args: number[]) => unknown>)[c.fn]!(...c.args);
  }

  /** Forward NTT in place at byte pointer `data`: the bit reversal, the short stages by blocks, the long ones in passes by units. */
  private nttAt(data: number, width: number, logN: number): void {
    const { twiddles, companions } = this.twiddles(logN);
    const parts = this.parts(1 << logN);
    this.withScratch(parts * nttScratchWords(width), (scratch) => {
      const op = { data, width, logN, tw: twiddles.ptr, tws: companions.ptr, scratch };
      for (const batch of nttBatches(op, parts)) this.run(batch);
    });
  }

  /** Runs `body` with the byte pointer of `words` words of scratch in kernel memory. */
  private withScratch<T>(words: number, body: (ptr: number) => T): T {
    const region = this.kernels.heap.alloc(words);
    try {
      return body(region.ptr);
    } finally {
      this.kernels.heap.release(region);
    }
  }

  /** A new working table of `words` words (contents undefined). */
  private table(words: number): Uint32Array {
    const region = this.kernels.heap.alloc(words);
    const view = region.view().subarray(0, words);
    this.regions.set(view, region);
    return view;
  }

  /** Runs `body` with the byte pointer of `x` in kernel memory: in place for a working table, else on a copy (copied back when `writeBack`). */
  private withPointer<T>(x: Uint32Array, writeBack: boolean, body: (ptr: number) => T): T {
    const region = this.regions.get(x);
    if (region !== undefined) return body(region.ptr);
    const heap = this.kernels.heap;
    const copy = heap.allocFrom(x);
    try {
      const r = body(copy.ptr);
      if (writeBack) x.set(copy.view().subarray(0, x.length));
      return r;
    } finally {
      heap.release(copy);
    }
  }

  release(table: Uint32Array): void {
    const region = this.regions.get(table);
    if (region === undefined) return;
    this.regions.delete(table);
    this.kernels.heap.release(region);
  }

  resident(values: Uint32Array): Uint32Array {
    const out = this.table(values.length);
    out.set(values);
    return out;
  }

  firstNoncanonical(values: Uint32Array): number {
    return this.withPointer(values, false, (ptr) => this.kernels.instance.raw.first_noncanonical(ptr, values.length));
  }

  zeros(words: number): Uint32Array {
    const out = this.table(words);
    out.fill(0);
    return out;
  }

  lift(values: Uint32Array): Uint32Array {
    const out = this.table(4 * values.length);
    const dst = this.regions.get(out)!.ptr;
    this.withPointer(values, false, (src) =>
      this.run(
        cut(values.length, this.parts(values.length), 1, (from, to) => ({
          fn: "pcs_lift",
          args: [dst + 16 * from, src + 4 * from, to - from],
        })),
      ),
    );
    return out;
  }

  scaleAdd(alpha: Ext, base: Uint32Array, ext: Uint32Array): Uint32Array {
    const n = base.length;
    const out = this.table(4 * n);
    const dst = this.regions.get(out)!.ptr;
    this.withCopies([base, ext, extConstantTable(alpha)], 0, ([b, e, a]) => {
      this.kernels.instance.raw.pcs_scale_add(dst, b!, e!, n, a!);
    });
    return out;
  }

  codeword(coeffs: Uint32Array, width: number, logDomain: number): Uint32Array {
    const n = 1 << logDomain;
    const out = this.table(n * width);
    const used = Math.min(coeffs.length, n * width);
    const dst = this.regions.get(out)!.ptr;
    if (logDomain < TILED_REVERSE_LOG) {
      out.set(coeffs.subarray(0, used));
      out.fill(0, used);
      this.nttAt(dst, width, logDomain);
      return out;
    }
    // The bit reversal of the zero-padded coefficients out of place by tiles (with the first stages that only copy), then the stages.
    const { twiddles, companions } = this.twiddles(logDomain);
    const parts = this.parts(n);
    this.withPointer(used === coeffs.length ? coeffs : coeffs.subarray(0, used), false, (src) =>
      this.withScratch(parts * nttScratchWords(width), (scratch) => {
        const op = { data: dst, width, logN: logDomain, tw: twiddles.ptr, tws: companions.ptr, scratch };
        for (const batch of codewordBatches(op, src, used / width, parts)) this.run(batch);
      }),
    );
    return out;
  }

  readonly merkle: PcsMerkleFn = (codeword, width, logDomain, k, leafWidth = 16, alongside) => {
    let pending = alongside;
    const once = (): void => {
      const f = pending;
      pending = undefined;
      f?.();
    };
    const tree = this.merkleTree(codeword, width, logDomain, k, leafWidth, once);
    once();
    return tree;
  };

  /** `merkle`: `alongside` runs on this thread while the workers hash the leaves when these are spread. */
  private merkleTree(
    codeword: Uint32Array,
    width: number,
    logDomain: number,
    k: number,
    leafWidth: LeafWidth,
    alongside: () => void,
  ): MerkleTree {
    const logRows = logDomain - k;
    // The kernels take four rows per vector and whole sponge blocks (8 words at width 16, 16 at width 24).
    const block = leafWidth === 24 ? 16 : 8;
    if (logRows < 2 || ((1 << k) * width) % block !== 0)
      return merkleTreeOfCodeword(codeword, width, logDomain, k, leafWidth);
    const raw = this.kernels.instance.raw;
    const rows = 1 << logRows;
    const parts = this.parts(rows << 4);
    if (parts > 1) {
      // The leaves by ranges of rows, each call with its own scratch (room for either sponge's).
      const consts = leafWidth === 24 ? this.leaf24Regions().consts.ptr : this.kernels.constants.ptr;
      const fn = leafWidth === 24 ? "pcs_merkle_leaves24_rows" : "pcs_merkle_leaves_rows";
      return this.tree(logRows, (out, _consts, _work, works) =>
        this.withPointer(codeword, false, (src) =>
          this.run(
            cut(rows, parts, 4, (a, b, i) => ({
              fn,
              args: [out, src, logDomain, k, width, consts, works(i), a, b - a],
            })),
            alongside,
          ),
        ),
      );
    }
    if (leafWidth === 24) {
      const leaf24 = this.leaf24Regions();
      return this.tree(logRows, (out) =>
        this.withPointer(codeword, false, (src) =>
          raw.pcs_merkle_leaves24(out, src, logDomain, k, width, leaf24.consts.ptr, leaf24.work.ptr),
        ),
      );
    }
    return this.tree(logRows, (out, consts, work) =>
      this.withPointer(codeword, false, (src) => raw.pcs_merkle_leaves(out, src, logDomain, k, width, consts, work)),
    );
  }

  merklePair(
    first: Uint32Array,
    firstWidth: number,
    second: Uint32Array,
    secondWidth: number,
    logDomain: number,
    k: number,
    leafWidth: LeafWidth = 16,
  ): MerkleTree {
    const logRows = logDomain - k;
    const block = leafWidth === 24 ? 16 : 8;
    if (logRows < 2 || ((1 << k) * firstWidth) % block !== 0 || ((1 << k) * secondWidth) % block !== 0)
      return merkleTreeOfCodewordPair(first, firstWidth, second, secondWidth, logDomain, k, leafWidth);
    const raw = this.kernels.instance.raw;
    if (leafWidth === 24) {
      const leaf24 = this.leaf24Regions();
      return this.tree(logRows, (out) =>
        this.withPointer(first, false, (a) =>
          this.withPointer(second, false, (b) =>
            raw.pcs_merkle_leaves24_pair(
              out,
              a,
              firstWidth,
              b,
              secondWidth,
              logDomain,
              k,
              leaf24.consts.ptr,
              leaf24.work.ptr,
            ),
          ),
        ),
      );
    }
    return this.tree(logRows, (out, consts, work) =>
      this.withPointer(first, false, (a) =>
        this.withPointer(second, false, (b) =>
          raw.pcs_merkle_leaves_pair(out, a, firstWidth, b, secondWidth, logDomain, k, consts, work),
        ),
      ),
    );
  }

  /**
   * The width-24 permutation of n canonical states of 24 words back to back, in place, through the
   * leaf kernels' permutation (`poseidon2_permute24`): the verifier's `-l24` leaves (`pcsPermute24`) and the differential tests.
   */
  permute24(states: Uint32Array): void {
    if (states.length % 24 !== 0)
      throw new RangeError(`permute24: ${states.length} words is not a whole number of states`);
    const leaf24 = this.leaf24Regions();
    const region = this.kernels.heap.allocFrom(states);
    try {
      this.kernels.instance.raw.poseidon2_permute24(region.ptr, states.length / 24, leaf24.consts.ptr, leaf24.work.ptr);
      states.set(region.view().subarray(0, states.length));
    } finally {
      this.kernels.heap.release(region);
    }
  }

  private leaf24Regions(): { consts: Region; work: Region } {
    if (this.leaf24 === null) {
      const heap = this.kernels.heap;
      this.leaf24 = { consts: heap.allocFrom(poseidon2Constant24Words()), work: heap.alloc(MERKLE24_WORK_WORDS) };
    }
    return this.leaf24;
  }

  /**
   * The tree over 2^logRows leaves that `leaves` writes (8 words each) at its first argument;
   * `works(i)` is a scratch region of its own for call i of a spread step. With a pool, the long
   * levels are spread too, and the levels already done are copied out of kernel memory on this
   * thread while the workers compress the next one (the rest after the last level).
   */
  private tree(
    logRows: number,
    leaves: (out: number, consts: number, work: number, works: (i: number) => number) => void,
  ): MerkleTree {
    const rows = 1 << logRows;
    const heap = this.kernels.heap;
    const raw = this.kernels.instance.raw;
    const consts = this.kernels.constants.ptr;
    if (this.work === null) this.work = heap.alloc(MERKLE_WORK_WORDS);
    const work = this.work.ptr;
    const all = heap.alloc(8 * (2 * rows - 1));
    const scratch: Region[] = [];
    const works = (i: number): number => {
      while (scratch.length <= i) scratch.push(heap.alloc(Math.max(MERKLE_WORK_WORDS, MERKLE24_WORK_WORDS)));
      return scratch[i]!.ptr;
    };
    const words = new Uint32Array(8 * (2 * rows - 1));
    let copied = 0;
    /** Copies words [copied, end) of the tree out of kernel memory (a fresh view: the memory may have grown). */
    const copyUpTo = (end: number): void => {
      if (end <= copied) return;
      words.set(all.view().subarray(copied, end), copied);
      copied = end;
    };
    try {
      leaves(all.ptr, consts, work, works);
      let at = 0;
      for (let n = rows; n > 1; n >>= 1) {
        const out = all.ptr + 4 * (at + 8 * n),
          src = all.ptr + 4 * at;
        const parents = n >> 1;
        const parts = this.parts(parents << 3);
        if (parts > 1) {
          const pieces = ranges(parents, parts, 1);
          pieces.forEach((_, i) => works(i));
          const done = at + 8 * n;
          this.run(
            pieces.map(([a, b], i) => ({
              fn: "pcs_merkle_level",
              args: [out + 32 * a, src + 64 * a, b - a, consts, works(i)],
            })),
            () => copyUpTo(done),
          );
        } else raw.pcs_merkle_level(out, src, parents, consts, work);
        at += 8 * n;
      }
      copyUpTo(words.length);
      const levels: Uint32Array[] = [];
      at = 0;
      for (let n = rows; n >= 1; n >>= 1) {
        levels.push(words.subarray(at, at + 8 * n));
        at += 8 * n;
      }
      return { logRows, levels, root: levels[logRows]!.slice() };
    } finally {
      heap.release(all);
      for (const r of scratch) heap.release(r);
    }
  }

  private twiddles(logN: number): { twiddles: Region; companions: Region } {
    if (this.tables === null || this.tables.logN < logN) {
      if (this.tables) {
        this.kernels.heap.release(this.tables.twiddles);
        this.kernels.heap.release(this.tables.companions);
      }
      const twiddles = this.kernels.heap.alloc(Math.max(1, 1 << logN));
      const companions = this.kernels.heap.alloc(Math.max(1, 1 << logN));
      fillTwiddles(this.kernels, twiddles.ptr, companions.ptr, logN);
      this.tables = { logN, twiddles, companions };
    }
    return this.tables;
  }

  /** Runs `body` with pointers to the inputs (working tables in place, other arrays copied) and a scratch output of `outWords`. */
  private withCopies<T>(inputs: Uint32Array[], outWords: number, body: (ptrs: number[], out: Region | null) => T): T {
    return this.kernels.heap.using(
      inputs,
      outWords > 0 ? [outWords] : [],
      (ptrs, scratch) => body(ptrs, scratch[0] ?? null),
      (x) => this.regions.get(x),
    );
  }

  ntt(values: Uint32Array, width: number, logN: number): void {
    if (logN === 0) return;
    this.withPointer(values, true, (ptr) => this.nttAt(ptr, width, logN));
  }

  mobius(values: Uint32Array, width: number): void {
    const logN = Math.log2(values.length / width);
    this.withPointer(values, true, (ptr) => {
      for (const batch of mobiusBatches(ptr, width, logN, this.parts(1 << logN))) this.run(batch);
    });
  }

  fold(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array {
    return this.foldOf("pcs_fold", 32, table, table.length / 8, alpha, mode);
  }

  foldBase(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array {
    return this.foldOf("pcs_fold_base", 8, table, table.length / 2, alpha, mode);
  }

  /** The fold kernel `fn` of n pairs (`pair` bytes each) into a new working table of n extension values, cut into ranges. */
  private foldOf(fn: string, pair: number, table: Uint32Array, n: number, alpha: Ext, mode: FoldMode): Uint32Array {
    const out = this.table(4 * n);
    const dst = this.regions.get(out)!.ptr;
    const flag = mode === "evaluations" ? 0 : 1;
    this.withCopies([table, extConstantTable(alpha)], 0, ([src, a]) => {
      this.run(
        cut(n, this.parts(n), 1, (from, to) => ({
          fn,
          args: [dst + 16 * from, src! + pair * from, to - from, flag, a!],
        })),
      );
    });
    return out;
  }

  encode(coeffs: Uint32Array, width: number, logDomain: number, k: number): Uint32Array {
    const n = 1 << logDomain;
    const codeword = this.codeword(coeffs, width, logDomain);
    const rows = this.kernels.heap.alloc(n * width);
    try {
      const src = this.regions.get(codeword)!.ptr;
      const count = n >> k;
      this.run(
        cut(count, this.parts(n), 1, (a, b) => ({ fn: "pcs_rows", args: [rows.ptr, src, logDomain, k, width, a, b] })),
      );
      return rows.view().slice(0, n * width);
    } finally {
      this.release(codeword);
      this.kernels.heap.release(rows);
    }
  }

  horner(coeffs: Uint32Array, z: Ext): Ext {
    return this.hornerOf("pcs_horner", 16, coeffs, coeffs.length / 4, z);
  }

  hornerBase(coeffs: Uint32Array, z: Ext): Ext {
    const n = coeffs.length;
    if (n % EVAL_BLOCK !== 0) return this.hornerOf("pcs_horner_base", 4, coeffs, n, z);
    return this.evalBase(coeffs, n, z);
  }

  /**
   * F(z) for n base-field coefficients (n a multiple of EVAL_BLOCK) by `pcs_eval_base`: the powers
   * z^l (l < EVAL_BLOCK) made once, the blocks cut into pieces whose values F_i (coefficients
   * [a_i, b_i) times z^(l − a_i)) add up as Σ_i z^(a_i)·F_i.
   */
  private evalBase(coeffs: Uint32Array, n: number, z: Ext): Ext {
    const pieces = ranges(n / EVAL_BLOCK, this.parts(n), 1);
    const zBlock = extPow(z, EVAL_BLOCK);
    return this.withCopies(
      [coeffs, evalPowers(z, EVAL_BLOCK), extConstantTable(zBlock)],
      4 * pieces.length,
      ([c, powers, zt], out) => {
        this.run(
          pieces.map(([a, b], i) => ({
            fn: "pcs_eval_base",
            args: [c! + 4 * EVAL_BLOCK * a, EVAL_BLOCK * (b - a), powers!, EVAL_BLOCK, zt!, out!.ptr + 16 * i],
          })),
        );
        return sumOfPieces(out!.view(), pieces, zBlock);
      },
    );
  }

  /** F(z) = Σ_i z^(a_i)·H_i(z) for the pieces [a_i, b_i) of n coefficients (`size` bytes each), each H_i by the Horner kernel `fn`. */
  private hornerOf(fn: string, size: number, coeffs: Uint32Array, n: number, z: Ext): Ext {
    const pieces = ranges(n, this.parts(n), 1);
    return this.withCopies([coeffs, extConstantTable(z)], 4 * pieces.length, ([c, zt], out) => {
      this.run(pieces.map(([a, b], i) => ({ fn, args: [c! + size * a, b - a, zt!, out!.ptr + 16 * i] })));
      return sumOfPieces(out!.view(), pieces, z);
    });
  }

  eqAdd(acc: Uint32Array, point: readonly Ext[], c: Ext): void {
    this.eqAddSplit(acc, point.length, (hb, s, vars) => ({
      fn: "pcs_eq_add",
      tables: eqPointTables(point, c, hb, s, vars),
      extra: [],
    }));
  }

  eqMany(points: readonly (readonly Ext[])[], coeffs: readonly Ext[]): Uint32Array {
    const vars = points[0]!.length;
    const out = this.table(4 << vars);
    const count = points.length;
    // The blocked kernel's scratch: a low table of 2^10 and a high one of 2^(m − 10) entries per point.
    const blockWords = (low: number): number => 4 * count * ((1 << 10) + (1 << Math.max(0, low - 10)));
    this.eqAddSplit(
      out,
      vars,
      (hb, s, low) => {
        const tables = new Uint32Array((4 + 32 * low) * count);
        points.forEach((point, q) => tables.set(eqPointTables(point, coeffs[q]!, hb, s, low), (4 + 32 * low) * q));
        return { fn: "pcs_eq_write_many", tables, extra: [count] };
      },
      blockWords,
    );
    return out;
  }

  /** acc += c·eq(point, ·) for a point of base-field coordinates (`pcs_eq_add_base`). */
  eqAddBase(acc: Uint32Array, point: readonly number[], c: Ext): void {
    this.eqAddBaseMany(acc, [point], [c]);
  }

  /**
   * acc += Σ_i coeffs[i]·eq(points[i], ·) for base-field points of one length: one batch whose
   * call for piece hb adds every point's piece in turn (`pcs_eq_add_base_many`; one point:
   * `pcs_eq_add_base`).
   */
  eqAddBaseMany(acc: Uint32Array, points: readonly (readonly number[])[], coeffs: readonly Ext[]): void {
    const count = points.length;
    if (count === 0) return;
    const vars = points[0]!.length;
    const montgomery = points.map((point) => point.map((x) => mul(x, MONTGOMERY_R)));
    this.eqAddSplit(acc, vars, (hb, s, low) => {
      const tables = new Uint32Array((4 + low) * count);
      points.forEach((point, q) => {
        let e = 1;
        for (let t = 0; t < s; t++) {
          const p = point[vars - s + t]!;
          e = mul(e, (hb >> t) & 1 ? p : (1 - p + P) % P);
        }
        const c = coeffs[q]!;
        const piece: Ext = s === 0 ? c : [mul(c[0], e), mul(c[1], e), mul(c[2], e), mul(c[3], e)];
        tables.set(piece, (4 + low) * q);
        tables.set(montgomery[q]!.slice(0, low), (4 + low) * q + 4);
      });
      return count === 1
        ? { fn: "pcs_eq_add_base", tables, extra: [] }
        : { fn: "pcs_eq_add_base_many", tables, extra: [count] };
    });
  }

  /**
   * acc += Σ c·eq(point, ·) over m = `vars` variables, cut by the s highest variables into 2^s
   * pieces (s = 0 without a pool): `kernel(hb, s, m − s)` gives piece hb's call, a kernel export
   * `fn`(acc piece, scratch, tables, m − s, ...extra) with its tables (each point's coefficient
   * times eq(its high coordinates, hb), then its low coordinates), every call with its own scratch.
   */
  private eqAddSplit(
    acc: Uint32Array,
    vars: number,
    kernel: (hb: number, s: number, lowVars: number) => { fn: string; tables: Uint32Array; extra: number[] },
    scratchWords: (lowVars: number) => number = () => 0,
  ): void {
    const parts = this.parts(1 << vars);
    const s = parts > 1 ? Math.min(vars, Math.ceil(Math.log2(parts))) : 0;
    const low = vars - s;
    const heap = this.kernels.heap;
    const regions: Region[] = [];
    try {
      // The kernel's scratch: 2^(low − 1) extension values per piece, or what `scratchWords` asks for.
      const pieceWords = Math.max(4, 2 << low, scratchWords(low));
      const tmp = heap.alloc(pieceWords << s);
      regions.push(tmp);
      this.withPointer(acc, true, (ptr) => {
        const calls: PcsKernelCall[] = [];
        for (let hb = 0; hb < 1 << s; hb++) {
          const { fn, tables, extra } = kernel(hb, s, low);
          const t = heap.allocFrom(tables);
          regions.push(t);
          calls.push({ fn, args: [ptr + hb * (16 << low), tmp.ptr + 4 * hb * pieceWords, t.ptr, low, ...extra] });
        }
        this.run(calls);
      });
    } finally {
      for (const r of regions) heap.release(r);
    }
  }

  foldRows(o: OpenedRows): Ext[] {
    return o.k === 0 || o.xs.length === 0 ? typescriptPcsBackend.foldRows(o) : foldRowsOnKernels(this.kernels, o);
  }

  round(f: Uint32Array, w: Uint32Array): [Ext, Ext] {
    return this.roundOf("pcs_round", 32, f, w, f.length / 8);
  }

  roundBase(f: Uint32Array, w: Uint32Array): [Ext, Ext] {
    return this.roundOf("pcs_round_base", 8, f, w, f.length / 2);
  }

  /** The round kernel `fn` over n pairs (f's pairs `fPair` bytes apart), cut into pieces whose sums (times R^−1, at out + 32·i) add up to the round's. */
  private roundOf(fn: string, fPair: number, f: Uint32Array, w: Uint32Array, n: number): [Ext, Ext] {
    const pieces = ranges(n, this.parts(n), 1);
    return this.withCopies([f, w], 8 * pieces.length, ([fp, wp], out) => {
      this.run(pieces.map(([a, b], i) => ({ fn, args: [fp! + fPair * a, wp! + 32 * a, b - a, out!.ptr + 32 * i] })));
      const v = out!.view();
      const sums = new Array<number>(8).fill(0);
      for (let i = 0; i < pieces.length; i++) for (let l = 0; l < 8; l++) sums[l] = add(sums[l]!, v[8 * i + l]!);
      const r = (l: number): number => mul(sums[l]!, MONTGOMERY_R);
      return [
        [r(0), r(1), r(2), r(3)],
        [r(4), r(5), r(6), r(7)],
      ];
    });
  }
}

/** The twiddle tables up to 2^logN as the WASM kernel computes them (`ntt_twiddles` in bounded calls; the reference is `nttTwiddleTables`), or null without the kernel module. */
export function wasmTwiddleTables(logN: number): { twiddles: Uint32Array; companions: Uint32Array } | null {
  let kernels: Kernels;
  try {
    kernels = defaultKernels();
  } catch {
    return null;
  }
  const n = Math.max(1, 1 << logN);
  const twiddles = kernels.heap.alloc(n);
  const companions = kernels.heap.alloc(n);
  try {
    fillTwiddles(kernels, twiddles.ptr, companions.ptr, logN);
    return { twiddles: twiddles.view().slice(0, 1 << logN), companions: companions.view().slice(0, 1 << logN) };
  } finally {
    kernels.heap.release(twiddles);
    kernels.heap.release(companions);
  }
}

let backend: WasmPcsKernels | null | undefined;

/**
 * The tables of `pcs_eq_add` for piece hb of a point cut by its s highest coordinates: c times
 * eq(high coordinates, hb) at words 0..3, then per low coordinate j the constant tables of p_j
 * (words 4 + 32j) and 1 − p_j (words 20 + 32j).
 */
function eqPointTables(point: readonly Ext[], c: Ext, hb: number, s: number, vars: number): Uint32Array {
  // eq(high coordinates, hb): Π_t (bit t of hb ? p : 1 − p) over the last s coordinates.
  let piece = c;
  for (let t = 0; t < s; t++) {
    const p = point[point.length - s + t]!;
    piece = extMul(piece, (hb >> t) & 1 ? p : [(1 - p[0] + P) % P, (P - p[1]) % P, (P - p[2]) % P, (P - p[3]) % P]);
  }
  const tables = new Uint32Array(4 + 32 * vars);
  tables.set(piece, 0);
  for (let j = 0; j < vars; j++) {
    const p = point[j]!;
    tables.set(extConstantTable(p), 4 + 32 * j);
    tables.set(extConstantTable([(1 - p[0] + P) % P, (P - p[1]) % P, (P - p[2]) % P, (P - p[3]) % P]), 20 + 32 * j);
  }
  return tables;
}

/** This thread's WASM backend of the commitment's bulk operations (with the count of working tables not yet released), or null when the kernel module is unavailable. */
export function wasmPcsBackend(): (PcsBackend & { readonly residentTables: number }) | null {
  if (backend === undefined) {
    try {
      backend = new WasmPcsKernels(defaultKernels());
    } catch {
      backend = null;
    }
  }
  return backend;
}

/** Σ_i step^(a_i)·F_i for the pieces [a_i, b_i) whose values F_i are at v[4i, 4i + 4). */
function sumOfPieces(v: Uint32Array, pieces: readonly (readonly [number, number])[], step: Ext): Ext {
  let acc: Ext = [0, 0, 0, 0];
  pieces.forEach(([a], i) => {
    const piece: Ext = [v[4 * i]!, v[4 * i + 1]!, v[4 * i + 2]!, v[4 * i + 3]!];
    acc = extAdd(acc, a === 0 ? piece : extMul(extPow(step, a), piece));
  });
  return acc;
}
