import { SsgkrError } from "../errors.js";

/**
 * Thrown when a value offered as a KoalaBear field element is not a canonical
 * integer in [0, p), or when field bytes cannot be decoded.
 *
 * Codes: `NOT_AN_INTEGER`, `NEGATIVE`, `NON_CANONICAL`, `BAD_LENGTH`, `DIVISION_BY_ZERO`.
 */
export class FieldError extends SsgkrError {}
