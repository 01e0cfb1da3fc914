import { SsgkrError } from "../errors.js";

/**
 * Sparse-Merkle frontend errors (compat-v1 §6, §9.2).
 *
 * Codes:
 * - `LEAF_ENCODING`: the leaf encoding length n is outside 1 ≤ n ≤ B (§6.1); such a leaf is never hashed.
 * - `BAD_LEAF`: not a leaf (unknown tag, identity not 32 bytes, payload not an array).
 * - `BAD_LEAF_BOUND`: leaf bound B is not an integer in [10, 65535].
 * - `BAD_DEPTH`: tree depth is not an integer in [1, 64].
 * - `BAD_KEY`: a key is not a bigint in [0, 2^64).
 * - `PATH_LENGTH_MISMATCH`: number of siblings ≠ depth (§6.3 step 1, §9.2 step 1).
 * - `KEY_OUT_OF_RANGE`: depth < 64 and key ≥ 2^depth (§6.3 step 2).
 * - `SLOT_NOT_EMPTY`, `SLOT_NOT_OCCUPIED`, `SLOT_NOT_TOMBSTONE`: a tree operation found the slot in the wrong state.
 * - `OP_KIND_MISMATCH`: an operation of another kind was given where a kind was fixed.
 */
export class SmtError extends SsgkrError<SmtErrorCode> {}

/** Every code a `SmtError` carries (meanings in docs/errors.md). */
export const SMT_ERROR_CODES = [
  "LEAF_ENCODING",
  "BAD_LEAF",
  "BAD_LEAF_BOUND",
  "BAD_DEPTH",
  "BAD_KEY",
  "PATH_LENGTH_MISMATCH",
  "KEY_OUT_OF_RANGE",
  "SLOT_NOT_EMPTY",
  "SLOT_NOT_OCCUPIED",
  "SLOT_NOT_TOMBSTONE",
  "OP_KIND_MISMATCH",
] as const;

/** The code of a `SmtError`. */
export type SmtErrorCode = (typeof SMT_ERROR_CODES)[number];

/**
 * Circuit compilation errors (compat-v1 §6.6, §9).
 *
 * Codes: `UNSUPPORTED_CONFIG` (strategy ≠ A, depth outside [1, 64], leaf bound outside [10, 65535],
 * non-integer values), `BAD_KIND` (operation kind tag not 0, 1 or 2).
 */
export class CompileError extends SsgkrError<CompileErrorCode> {}

/** Every code a `CompileError` carries (meanings in docs/errors.md). */
export const COMPILE_ERROR_CODES = ["UNSUPPORTED_CONFIG", "BAD_KIND"] as const;

/** The code of a `CompileError`. */
export type CompileErrorCode = (typeof COMPILE_ERROR_CODES)[number];
