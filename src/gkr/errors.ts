import { SsgkrError } from "../errors.js";

/**
 * Malformed circuit or wrong-sized witness.
 * Codes: `BAD_GATE_KIND`, `UNARY_IN2_MISMATCH`, `WIRE_OUT_OF_RANGE`, `NON_CANONICAL_COEFF`,
 * `BAD_WIDTH`, `INPUT_WIDTH`, `EMPTY_CIRCUIT`.
 */
export class CircuitError extends SsgkrError {}
