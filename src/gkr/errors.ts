import { SsgkrError } from "../errors.js";

/**
 * Malformed circuit or wrong-sized witness.
 * Codes: `BAD_GATE_KIND`, `UNARY_IN2_MISMATCH`, `WIRE_OUT_OF_RANGE`, `NON_CANONICAL_COEFF`,
 * `BAD_WIDTH`, `INPUT_WIDTH`, `EMPTY_CIRCUIT`; from the GKR prover and wiring oracles:
 * `WITNESS_LENGTH`, `WITNESS_WIDTH`, `WITNESS_NON_CANONICAL` (witness does not fit the circuit),
 * `BAD_POINT` (a point or claim with the wrong number of coordinates), `BAD_LAYER_INDEX`.
 */
export class CircuitError extends SsgkrError<CircuitErrorCode> {}

/** Every code a `CircuitError` carries (meanings in docs/errors.md). */
export const CIRCUIT_ERROR_CODES = [
  "BAD_GATE_KIND",
  "UNARY_IN2_MISMATCH",
  "WIRE_OUT_OF_RANGE",
  "NON_CANONICAL_COEFF",
  "BAD_COEFF",
  "BAD_WIDTH",
  "INPUT_WIDTH",
  "EMPTY_CIRCUIT",
  "NO_OUTPUTS",
  "DUPLICATE_OUTPUT",
  "NODE_ABOVE_OUTPUTS",
  "BAD_NODE",
  "BAD_INPUT_INDEX",
  "BAD_LINEAR_GROUP",
  "BAD_SCOPE",
  "BUILDER_CONSUMED",
  "BAD_OPTION",
  "DERIVATION_MISMATCH",
  "WITNESS_LENGTH",
  "WITNESS_WIDTH",
  "WITNESS_NON_CANONICAL",
  "BAD_POINT",
  "BAD_LAYER_INDEX",
] as const;

/** The code of a `CircuitError`. */
export type CircuitErrorCode = (typeof CIRCUIT_ERROR_CODES)[number];
