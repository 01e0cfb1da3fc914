import { SsgkrError } from "../errors.js";

/**
 * Malformed circuit or wrong-sized witness.
 * Codes: `BAD_GATE_KIND`, `UNARY_IN2_MISMATCH`, `WIRE_OUT_OF_RANGE`, `NON_CANONICAL_COEFF`,
 * `BAD_WIDTH`, `INPUT_WIDTH`, `EMPTY_CIRCUIT`; from the GKR prover and wiring oracles:
 * `WITNESS_LENGTH`, `WITNESS_WIDTH`, `WITNESS_NON_CANONICAL` (witness does not fit the circuit),
 * `BAD_POINT` (a point or claim with the wrong number of coordinates), `BAD_LAYER_INDEX`.
 */
export class CircuitError extends SsgkrError {}
