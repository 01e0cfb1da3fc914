/**
 * The kernel seam of the polynomial commitment (as src/hash/backend.ts is the hashing one): the
 * prover's four bulk operations — the NTT, the Möbius transform, folding an interleaved extension
 * table by a challenge and the sumcheck round — run on this thread's backend. The plain
 * TypeScript references are the default; `installKernelBackend()` (src/kernels/backend.ts)
 * injects the WASM SIMD kernels. Every backend gives the references' results exactly
 * (test/kernels/pcs-kernels.test.ts).
 */
import type { Ext } from "../field/extension.js";
import { encodeRowsReference } from "./encode.js";
import { addScaledEqTable, evaluateUnivariate, evaluationsToCoefficients, foldCoefficients, foldEvaluations } from "./multilinear.js";
import { nttReference } from "./ntt.js";
import { roundPolynomial } from "./sumcheck.js";

/** How a fold combines a pair (e, o): `evaluations` e + α(o − e), `coefficients` e + α·o. */
export type FoldMode = "evaluations" | "coefficients";

/** One implementation of the commitment's bulk operations (canonical values in and out). */
export interface PcsBackend {
  readonly name: "wasm" | "typescript";
  /** Forward NTT in place of 2^logN elements of `width` (1 or 4) interleaved words. */
  ntt(values: Uint32Array, width: number, logN: number): void;
  /** Hypercube evaluations → coefficients in place, `width` (1 or 4) words per element. */
  mobius(values: Uint32Array, width: number): void;
  /** The fold of an interleaved extension table of 2n elements into n (a new array). */
  fold(table: Uint32Array, alpha: Ext, mode: FoldMode): Uint32Array;
  /** [h(0), h(2)] of the sumcheck round over interleaved extension tables f and w. */
  round(f: Uint32Array, w: Uint32Array): [Ext, Ext];
  /** The codeword's rows of a polynomial's coefficients (docs/pcs.md §4.1; `encodeRowsReference`). */
  encode(coeffs: Uint32Array, width: number, logDomain: number, k: number): Uint32Array;
  /** F(z) for interleaved extension coefficients. */
  horner(coeffs: Uint32Array, z: Ext): Ext;
  /** acc[b] += c·eq(point, b) over the hypercube (interleaved extension). */
  eqAdd(acc: Uint32Array, point: readonly Ext[], c: Ext): void;
}

/** A backend made on first use; `null` selects the references. */
export type PcsBackendProvider = () => PcsBackend | null;

/** The references: `nttReference`, `evaluationsToCoefficients`, `foldEvaluations` / `foldCoefficients`, `roundPolynomial`. */
export const typescriptPcsBackend: PcsBackend = Object.freeze({
  name: "typescript" as const,
  ntt: nttReference,
  mobius: evaluationsToCoefficients,
  fold: (table: Uint32Array, alpha: Ext, mode: FoldMode) => (mode === "evaluations" ? foldEvaluations(table, alpha) : foldCoefficients(table, alpha)),
  round: roundPolynomial,
  encode: encodeRowsReference,
  horner: evaluateUnivariate,
  eqAdd: addScaledEqTable,
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

/** Below this many elements the references run whatever the backend (a kernel call costs two copies). */
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
