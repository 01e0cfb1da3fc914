/**
 * The kernel seam of the polynomial commitment (as src/hash/backend.ts is the hashing one): the
 * prover's bulk operations — the NTT and the codeword, the Merkle tree of a codeword's rows, the
 * Möbius transform, folding an interleaved extension table by a challenge, the sumcheck round,
 * Horner evaluation, eq tables, the lift to the extension and a base table scaled into an
 * extension one — run on this thread's backend. The
 * plain TypeScript references are the default; `installKernelBackend()` (src/kernels/backend.ts)
 * injects the WASM SIMD kernels. Every backend gives the references' results exactly
 * (test/kernels/pcs-kernels.test.ts).
 *
 * Working tables: what `codeword`, `fold`, `lift`, `scaleAdd`, `resident` and `zeros` return belongs to the
 * caller until it hands it to `release`; a backend may keep such a table in its kernel memory, so
 * that passing it to another operation costs no copy. Nothing may read a released table.
 */
import type { Ext } from "../field/extension.js";
import { P } from "../field/koalabear.js";
import { codewordReference, encodeRowsReference, rowsOfCodeword } from "./encode.js";
import { buildMerkleTree, permute24ManyReference, type MerkleTree } from "./merkle.js";
import type { LeafWidth } from "./params.js";
import {
  addScaledEqTable,
  addScaledEqTableBase,
  evaluateUnivariate,
  evaluationsToCoefficients,
  foldCoefficients,
  foldEvaluations,
  liftToExtension,
  scaleAddBase,
} from "./multilinear.js";
import { nttReference } from "./ntt.js";
import { RowFolder } from "./fold.js";
import { roundPolynomial } from "./sumcheck.js";

/** The Merkle tree a backend's `merkle` returns (src/pcs/merkle.ts). */
export type { MerkleTree } from "./merkle.js";
/** The width of a leaf sponge's permutation (src/pcs/params.ts). */
export type { LeafWidth } from "./params.js";

/** The Merkle tree of a natural-order codeword's rows (`PcsBackend.merkle`). */
export type PcsMerkleFn = (
  codeword: Uint32Array,
  width: number,
  logDomain: number,
  k: number,
  leafWidth?: LeafWidth,
  alongside?: () => void,
) => MerkleTree;

/** How a fold combines a pair (e, o): `evaluations` e + α(o − e), `coefficients` e + α·o. */
export type FoldMode = "evaluations" | "coefficients";

/**
 * An iteration's opened rows as the verifier folds them (docs/pcs.md §4.4): n = xs.length rows of
 * 2^k values of `width` words (1: base field, 4: extension) back to back in `rows`, row j at the
 * domain point xs[j] ≠ 0, ζ the 2^k-th root of unity, folded by the challenges `alphas` (k of them).
 */
export interface OpenedRows {
  readonly rows: Uint32Array;
  readonly width: 1 | 4;
  readonly k: number;
  readonly xs: readonly number[];
  readonly zeta: number;
  readonly alphas: readonly Ext[];
}

/** One implementation of the commitment's bulk operations (canonical values in and out). */
export interface PcsBackend {
  readonly name: "wasm" | "typescript";
  /** Forward NTT in place of 2^logN elements of `width` (1 or 4) interleaved words. */
  ntt(values: Uint32Array, width: number, logN: number): void;
  /** Hypercube evaluations → coefficients in place, `width` (1 or 4) words per element. */
  mobius(values: Uint32Array, width: number): void;
  /** The fold of an interleaved extension table of 2n elements into n (a new working table). */
  fold(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array;
  /** [h(0), h(2)] of the sumcheck round over interleaved extension tables f and w. */
  round(f: Uint32Array, w: Uint32Array): [Ext, Ext];
  /** `round` with f a base-field table (one word per element): the round of f lifted. */
  roundBase(f: Uint32Array, w: Uint32Array): [Ext, Ext];
  /** `fold` of a base-field table of 2n elements into n interleaved extension values (a new working table): the fold of the table lifted. */
  foldBase(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array;
  /** The codeword's rows of a polynomial's coefficients (docs/pcs.md §4.1; `encodeRowsReference`). */
  encode(coeffs: Uint32Array, width: number, logDomain: number, k: number): Uint32Array;
  /** F(z) for interleaved extension coefficients. */
  horner(coeffs: Uint32Array, z: Ext): Ext;
  /** F(z) for base-field coefficients at an extension point: `horner` of the coefficients lifted. */
  hornerBase(coeffs: Uint32Array, z: Ext): Ext;
  /** acc[b] += c·eq(point, b) over the hypercube (interleaved extension). */
  eqAdd(acc: Uint32Array, point: readonly Ext[], c: Ext): void;
  /** Σ_i coeffs[i]·eq(points[i], ·) over the hypercube as a new working table, for one or more points of one length (`eqAdd` of each into zeros). */
  eqMany(points: readonly (readonly Ext[])[], coeffs: readonly Ext[]): Uint32Array;
  /** `eqAdd` for a point of base-field coordinates (the queries' weights; `addScaledEqTableBase`). */
  eqAddBase(acc: Uint32Array, point: readonly number[], c: Ext): void;
  /** `eqAddBase` of every point, points[i] scaled by coeffs[i], all of them the same length (one batch of the queries' weights). */
  eqAddBaseMany(acc: Uint32Array, points: readonly (readonly number[])[], coeffs: readonly Ext[]): void;
  /** The verifier's folds of an iteration's opened rows (docs/pcs.md §4.4; `RowFolder`), one per row. */
  foldRows(o: OpenedRows): Ext[];
  /** The codeword of a polynomial's coefficients in natural order (docs/pcs.md §4.1; `codewordReference`): a working table. */
  codeword(coeffs: Uint32Array, width: number, logDomain: number): Uint32Array;
  /**
   * The Merkle tree of a natural-order codeword's rows of 2^k elements, leaves hashed by the sponge
   * of `leafWidth` (default 16; docs/pcs.md §4.3; `merkleTreeOfCodeword`). `alongside`, when
   * given, runs once on the calling thread: while workers hash the leaves when the tree is spread
   * over a pool, else after the tree; it may read the codeword, not write it.
   */
  readonly merkle: PcsMerkleFn;
  /** The Merkle tree whose leaf j hashes row j of `first` then row j of `second` (two codewords on one domain; the hiding commitment, docs/pcs.md §12.3; `merkleTreeOfCodewordPair`). */
  merklePair(
    first: Uint32Array,
    firstWidth: number,
    second: Uint32Array,
    secondWidth: number,
    logDomain: number,
    k: number,
    leafWidth?: LeafWidth,
  ): MerkleTree;
  /** The width-24 permutation of n canonical states of 24 words back to back, in place (`permute24ManyReference`; the verifier's `-l24` leaves). */
  permute24(states: Uint32Array): void;
  /** Base-field values as interleaved extension values (`liftToExtension`): a working table. */
  lift(values: Uint32Array): Uint32Array;
  /** ext + α·base for base-field values and as many interleaved extension values (`scaleAddBase`): a working table. */
  scaleAdd(alpha: Ext, base: Uint32Array, ext: Uint32Array): Uint32Array;
  /** A copy of `values` as a working table. */
  resident(values: Uint32Array): Uint32Array;
  /** The index of the first value of `values` that is not canonical (≥ p), or −1 (`firstNoncanonicalReference`); a working table is read in place. */
  firstNoncanonical(values: Uint32Array): number;
  /** A working table of `words` zeros. */
  zeros(words: number): Uint32Array;
  /** Gives a working table back; no effect on any other array. */
  release(table: Uint32Array): void;
}

/** The Merkle tree of a natural-order codeword's rows (the reference: the rows gathered, then `buildMerkleTree`). */
export function merkleTreeOfCodeword(
  codeword: Uint32Array,
  width: number,
  logDomain: number,
  k: number,
  leafWidth: LeafWidth = 16,
): MerkleTree {
  return buildMerkleTree(rowsOfCodeword(codeword, width, logDomain, k), (1 << k) * width, logDomain - k, leafWidth);
}

/** The Merkle tree over the rows of two codewords, row j of `first` then row j of `second` per leaf (the reference: the rows gathered side by side, then `buildMerkleTree`). */
export function merkleTreeOfCodewordPair(
  first: Uint32Array,
  firstWidth: number,
  second: Uint32Array,
  secondWidth: number,
  logDomain: number,
  k: number,
  leafWidth: LeafWidth = 16,
): MerkleTree {
  const a = rowsOfCodeword(first, firstWidth, logDomain, k);
  const b = rowsOfCodeword(second, secondWidth, logDomain, k);
  const aw = (1 << k) * firstWidth,
    bw = (1 << k) * secondWidth;
  const rowCount = 1 << (logDomain - k);
  const rows = new Uint32Array(rowCount * (aw + bw));
  for (let j = 0; j < rowCount; j++) {
    rows.set(a.subarray(j * aw, (j + 1) * aw), j * (aw + bw));
    rows.set(b.subarray(j * bw, (j + 1) * bw), j * (aw + bw) + aw);
  }
  return buildMerkleTree(rows, aw + bw, logDomain - k, leafWidth);
}

/**
 * One call of a kernel export on the calling thread's kernel memory: the export's name and its
 * arguments (byte pointers, counts). The calls of one batch write disjoint memory, so they may
 * run in any order, on any thread attached to that memory.
 */
export interface PcsKernelCall {
  readonly fn: string;
  readonly args: readonly number[];
}

/**
 * Threads that run batches of kernel calls on the caller's kernel memory (a pool of
 * src/pcs-workers): a backend that keeps its tables in kernel memory cuts its bulk operations
 * into calls and runs them on the active runner (`withKernelRunner`).
 */
export interface PcsKernelRunner {
  /** Worker threads (the calling thread runs calls besides them). */
  readonly threads: number;
  /** Fewest elements (table entries, Merkle rows × 16, tree nodes × 8) of an operation worth spreading; smaller ones run on the calling thread. */
  readonly minCallElements: number;
  /**
   * Runs every call of `calls` once, on the workers (attached to the memory of `shared`, the
   * calling thread's kernels, src/kernels `Kernels.share()`) and on the calling thread through
   * `local`; returns when all are done. `alongside`, when given, runs once on the calling thread
   * after the workers have the batch and before it takes calls.
   * @throws PcsError `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED`.
   */
  kernelCalls(
    shared: object,
    calls: readonly PcsKernelCall[],
    local: (call: PcsKernelCall) => void,
    alongside?: () => void,
  ): void;
  /**
   * The least grinding witness w ≥ 0 whose `bits` low bits of the transcript's next sample are 0,
   * for the transcript state `template` with the witness at lane `lane` (`DuplexChallenger.grindTemplate`,
   * docs/pcs.md §4.6), searched in ranges of candidates on every thread with their hashing
   * backends' `grindSearch`: the witness `DuplexChallenger.grind` finds.
   * @throws PcsError `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED`.
   */
  grind(template: Uint32Array, lane: number, bits: number): number;
}

let runner: PcsKernelRunner | null = null;

/** Runs `fn` with `r` as the active kernel runner (`activeKernelRunner`); restores the previous one afterwards. */
export function withKernelRunner<T>(r: PcsKernelRunner | null, fn: () => T): T {
  const previous = runner;
  runner = r;
  try {
    return fn();
  } finally {
    runner = previous;
  }
}

/** The kernel runner of the running commitment or opening (`withKernelRunner`), or `null`. */
export function activeKernelRunner(): PcsKernelRunner | null {
  return runner;
}

/** A backend made on first use; `null` selects the references. */
export type PcsBackendProvider = () => PcsBackend | null;

/** `merkleTreeOfCodeword`, then `alongside`. */
const merkleThenAlongside: PcsMerkleFn = (codeword, width, logDomain, k, leafWidth, alongside) => {
  const tree = merkleTreeOfCodeword(codeword, width, logDomain, k, leafWidth);
  alongside?.();
  return tree;
};

/** The index of the first value ≥ p of `values`, or −1 (the reference of `PcsBackend.firstNoncanonical`). */
export function firstNoncanonicalReference(values: Uint32Array): number {
  for (let i = 0; i < values.length; i++) if (values[i]! >= P) return i;
  return -1;
}

/** The references: `nttReference`, `evaluationsToCoefficients`, `foldEvaluations` / `foldCoefficients`, `roundPolynomial`, `encodeRowsReference`, `codewordReference`, `merkleTreeOfCodeword`; working tables are plain arrays. */
export const typescriptPcsBackend: PcsBackend = Object.freeze({
  name: "typescript" as const,
  ntt: nttReference,
  mobius: evaluationsToCoefficients,
  fold: (table: Uint32Array, alpha: Ext, mode: FoldMode) =>
    mode === "evaluations" ? foldEvaluations(table, alpha) : foldCoefficients(table, alpha),
  round: roundPolynomial,
  roundBase: (f: Uint32Array, w: Uint32Array) => roundPolynomial(liftToExtension(f), w),
  foldBase: (table: Uint32Array, alpha: Ext, mode: FoldMode) =>
    mode === "evaluations"
      ? foldEvaluations(liftToExtension(table), alpha)
      : foldCoefficients(liftToExtension(table), alpha),
  encode: encodeRowsReference,
  horner: evaluateUnivariate,
  hornerBase: (coeffs: Uint32Array, z: Ext) => evaluateUnivariate(liftToExtension(coeffs), z),
  eqAdd: addScaledEqTable,
  eqMany: (points: readonly (readonly Ext[])[], coeffs: readonly Ext[]) => {
    const out = new Uint32Array(4 << points[0]!.length);
    points.forEach((point, i) => addScaledEqTable(out, point, coeffs[i]!));
    return out;
  },
  eqAddBase: addScaledEqTableBase,
  foldRows: ({ rows, width, k, xs, zeta, alphas }: OpenedRows) => {
    const folder = new RowFolder(k, zeta, alphas);
    const words = width << k;
    return xs.map((x, j) => folder.fold(rows.subarray(j * words, (j + 1) * words), width, x));
  },
  eqAddBaseMany: (acc: Uint32Array, points: readonly (readonly number[])[], coeffs: readonly Ext[]) =>
    points.forEach((p, i) => addScaledEqTableBase(acc, p, coeffs[i]!)),
  codeword: codewordReference,
  merkle: merkleThenAlongside,
  merklePair: merkleTreeOfCodewordPair,
  permute24: permute24ManyReference,
  lift: liftToExtension,
  scaleAdd: (alpha: Ext, base: Uint32Array, ext: Uint32Array) => scaleAddBase(alpha, base, ext),
  resident: (values: Uint32Array) => values.slice(),
  firstNoncanonical: firstNoncanonicalReference,
  zeros: (words: number) => new Uint32Array(words),
  release: () => undefined,
});

let provider: PcsBackendProvider | null = null;
let current: PcsBackend | undefined;

/**
 * Selects this thread's backend: a backend, a provider called on first use, or `null` for the
 * TypeScript references.
 * @example usePcsBackend(null); // the references from now on
 */
export function usePcsBackend(backend: PcsBackend | PcsBackendProvider | null): void {
  if (typeof backend === "function") {
    provider = backend;
    current = undefined;
  } else {
    provider = null;
    current = backend ?? undefined;
  }
}

/** The backend this thread uses (the reference unless one is installed). */
export function currentPcsBackend(): PcsBackend {
  if (current === undefined && provider !== null) current = provider() ?? undefined;
  return current ?? typescriptPcsBackend;
}

/** Below this many elements the references run whatever the backend (a kernel call on a table outside kernel memory costs two copies). */
export const KERNEL_THRESHOLD = 1024;

function backendFor(elements: number): PcsBackend {
  return elements < KERNEL_THRESHOLD ? typescriptPcsBackend : currentPcsBackend();
}

/** The NTT on this thread's backend. */
export function pcsNtt(values: Uint32Array, width: number, logN: number): void {
  backendFor(1 << logN).ntt(values, width, logN);
}

/** The Möbius transform on this thread's backend. */
export function pcsMobius(values: Uint32Array, width: number): void {
  backendFor(values.length / width).mobius(values, width);
}

/** A fold on this thread's backend. */
export function pcsFold(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array {
  return backendFor(table.length / 4).fold(table, alpha, mode);
}

/** The sumcheck round on this thread's backend. */
export function pcsRound(f: Uint32Array, w: Uint32Array): [Ext, Ext] {
  return backendFor(f.length / 4).round(f, w);
}

/** The sumcheck round with a base-field f on this thread's backend. */
export function pcsRoundBase(f: Uint32Array, w: Uint32Array): [Ext, Ext] {
  return backendFor(f.length).roundBase(f, w);
}

/** The fold of a base-field table on this thread's backend (a working table of extension values). */
export function pcsFoldBase(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array {
  return backendFor(table.length).foldBase(table, alpha, mode);
}

/** F(z) for base-field coefficients on this thread's backend. */
export function pcsHornerBase(coeffs: Uint32Array, z: Ext): Ext {
  return backendFor(coeffs.length).hornerBase(coeffs, z);
}

/** The codeword's rows on this thread's backend. */
export function pcsEncode(coeffs: Uint32Array, width: number, logDomain: number, k: number): Uint32Array {
  return backendFor(1 << logDomain).encode(coeffs, width, logDomain, k);
}

/** F(z) on this thread's backend. */
export function pcsHorner(coeffs: Uint32Array, z: Ext): Ext {
  return backendFor(coeffs.length / 4).horner(coeffs, z);
}

/** acc += c·eq(point, ·) on this thread's backend. */
export function pcsEqAdd(acc: Uint32Array, point: readonly Ext[], c: Ext): void {
  backendFor(1 << point.length).eqAdd(acc, point, c);
}

/** Σ_i coeffs[i]·eq(points[i], ·) as a new working table on this thread's backend (one or more points of one length). */
export function pcsEqMany(points: readonly (readonly Ext[])[], coeffs: readonly Ext[]): Uint32Array {
  return backendFor(1 << points[0]!.length).eqMany(points, coeffs);
}

/** acc += c·eq(point, ·) for a base-field point on this thread's backend. */
export function pcsEqAddBase(acc: Uint32Array, point: readonly number[], c: Ext): void {
  backendFor(1 << point.length).eqAddBase(acc, point, c);
}

/** acc += Σ_i coeffs[i]·eq(points[i], ·) for base-field points of one length on this thread's backend. */
export function pcsEqAddBaseMany(
  acc: Uint32Array,
  points: readonly (readonly number[])[],
  coeffs: readonly Ext[],
): void {
  if (points.length > 0) backendFor(1 << points[0]!.length).eqAddBaseMany(acc, points, coeffs);
}

/** The verifier's folds of opened rows on this thread's backend (the kernels once installed, whatever the size). */
export function pcsFoldRows(o: OpenedRows): Ext[] {
  return currentPcsBackend().foldRows(o);
}

/** The natural-order codeword on this thread's backend (a working table). */
export function pcsCodeword(coeffs: Uint32Array, width: number, logDomain: number): Uint32Array {
  return backendFor(1 << logDomain).codeword(coeffs, width, logDomain);
}

/** The Merkle tree of a natural-order codeword's rows on this thread's backend (`alongside` as in `PcsBackend.merkle`). */
export const pcsMerkle: PcsMerkleFn = (codeword, width, logDomain, k, leafWidth = 16, alongside) =>
  backendFor(1 << logDomain).merkle(codeword, width, logDomain, k, leafWidth, alongside);

/** The Merkle tree over two codewords' rows side by side (`PcsBackend.merklePair`) on this thread's backend. */
export function pcsMerklePair(
  first: Uint32Array,
  firstWidth: number,
  second: Uint32Array,
  secondWidth: number,
  logDomain: number,
  k: number,
  leafWidth: LeafWidth = 16,
): MerkleTree {
  return backendFor(1 << logDomain).merklePair(first, firstWidth, second, secondWidth, logDomain, k, leafWidth);
}

/** The width-24 permutation of n states (24 words each, back to back) in place on this thread's backend. */
export function pcsPermute24(states: Uint32Array): void {
  currentPcsBackend().permute24(states);
}

/** The lift to the extension on this thread's backend (a working table). */
export function pcsLift(values: Uint32Array): Uint32Array {
  return backendFor(values.length).lift(values);
}

/** ext + α·base (`PcsBackend.scaleAdd`) on this thread's backend: a working table. */
export function pcsScaleAdd(alpha: Ext, base: Uint32Array, ext: Uint32Array): Uint32Array {
  return backendFor(base.length).scaleAdd(alpha, base, ext);
}

/** A working copy of `values` on this thread's backend. */
export function pcsResident(values: Uint32Array): Uint32Array {
  return backendFor(values.length / 4).resident(values);
}

/** A working table of zeros on this thread's backend. */
export function pcsZeros(words: number): Uint32Array {
  return backendFor(words / 4).zeros(words);
}

/** The index of the first non-canonical value of `values` (≥ p), or −1, on the backend `pcsResident` takes for it (a working table it made is read in place). */
export function pcsFirstNoncanonical(values: Uint32Array): number {
  return backendFor(values.length / 4).firstNoncanonical(values);
}

/** Gives a working table back to this thread's backend (whichever operation made it). */
export function pcsRelease(table: Uint32Array): void {
  currentPcsBackend().release(table);
}
