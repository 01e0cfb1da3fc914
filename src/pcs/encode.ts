/**
 * Reed–Solomon encoding into Merkle rows (docs/pcs.md §4.1): the univariate polynomial
 * F(x) = Σ_i c_i x^i of 2^m coefficients is evaluated on the subgroup L of order n = 2^logDomain,
 * and the n values are arranged as n/2^k rows of 2^k: row j holds F(ω^(j + t·n/2^k)) for
 * t = 0 … 2^k − 1, the 2^k points whose 2^k-th powers coincide, so one row is all a verifier
 * needs to fold k variables at one point of L^(2^k). The prover keeps the codeword in natural
 * order (`codewordReference`) and gathers the opened rows from it (`gatherRows`);
 * `rowsOfCodeword` / `codewordOfRows` convert between the two arrangements.
 */
import { nttReference } from "./ntt.js";

/** F on the subgroup of order 2^logDomain in natural order, `width` words per value (the reference; `pcsCodeword` in src/pcs/backend.ts dispatches). */
export function codewordReference(coeffs: Uint32Array, width: number, logDomain: number): Uint32Array {
  const n = 1 << logDomain;
  const evals = new Uint32Array(n * width);
  evals.set(coeffs.subarray(0, Math.min(coeffs.length, n * width)));
  nttReference(evals, width, logDomain);
  return evals;
}

/** A natural-order codeword of 2^logDomain values arranged as rows of 2^k values (row j: values j + t·n/2^k). */
export function rowsOfCodeword(codeword: Uint32Array, width: number, logDomain: number, k: number): Uint32Array {
  const n = 1 << logDomain;
  const cols = 1 << k;
  const rowsCount = n >> k;
  const rows = new Uint32Array(n * width);
  for (let j = 0; j < rowsCount; j++) {
    for (let t = 0; t < cols; t++) {
      const src = (j + t * rowsCount) * width;
      const dst = (j * cols + t) * width;
      for (let l = 0; l < width; l++) rows[dst + l] = codeword[src + l]!;
    }
  }
  return rows;
}

/** The inverse of `rowsOfCodeword`: rows of 2^k values back to the natural-order codeword. */
export function codewordOfRows(rows: Uint32Array, width: number, logDomain: number, k: number): Uint32Array {
  const n = 1 << logDomain;
  const cols = 1 << k;
  const rowsCount = n >> k;
  const codeword = new Uint32Array(n * width);
  for (let j = 0; j < rowsCount; j++) {
    for (let t = 0; t < cols; t++) {
      const dst = (j + t * rowsCount) * width;
      const src = (j * cols + t) * width;
      for (let l = 0; l < width; l++) codeword[dst + l] = rows[src + l]!;
    }
  }
  return codeword;
}

/** The words of rows `indices` of a natural-order codeword, back to back (what an opening sends). */
export function gatherRows(
  codeword: Uint32Array,
  width: number,
  logDomain: number,
  k: number,
  indices: readonly number[],
): Uint32Array {
  const cols = 1 << k;
  const rowsCount = 1 << (logDomain - k);
  const out = new Uint32Array(indices.length * cols * width);
  indices.forEach((j, r) => {
    for (let t = 0; t < cols; t++) {
      const src = (j + t * rowsCount) * width;
      const dst = (r * cols + t) * width;
      for (let l = 0; l < width; l++) out[dst + l] = codeword[src + l]!;
    }
  });
  return out;
}

/** The rows of F's codeword: (n/2^k) rows × 2^k points × `width` words, row-major (the reference; `pcsEncode` in src/pcs/backend.ts dispatches). */
export function encodeRowsReference(coeffs: Uint32Array, width: number, logDomain: number, k: number): Uint32Array {
  return rowsOfCodeword(codewordReference(coeffs, width, logDomain), width, logDomain, k);
}
