import { SsgkrError } from "../errors.js";

/**
 * Thrown when a value offered as a KoalaBear field element is not a canonical
 * integer in [0, p), or when field bytes cannot be decoded.
 *
 * Codes: `NOT_AN_INTEGER`, `NEGATIVE`, `NON_CANONICAL`, `BAD_LENGTH`, `DIVISION_BY_ZERO`.
 */
export class FieldError extends SsgkrError<FieldErrorCode> {}

/** Every code a `FieldError` carries (meanings in docs/errors.md). */
export const FIELD_ERROR_CODES = [
  "NOT_AN_INTEGER",
  "NEGATIVE",
  "NON_CANONICAL",
  "NOT_A_U32",
  "NOT_A_U64",
  "BAD_BITS",
  "BAD_LENGTH",
  "DIVISION_BY_ZERO",
] as const;

/** The code of a `FieldError`. */
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];
