/** Errors of the registry demo (`ssgkr demo`). */
import { SsgkrError } from "../errors.js";

/** Every code a `DemoError` carries (meanings in docs/errors.md). */
export const DEMO_ERROR_CODES = ["DEMO_BAD_STEP", "DEMO_DIR_NOT_EMPTY", "DEMO_TOO_FEW_RECORDS"] as const;

/** The code of a `DemoError`. */
export type DemoErrorCode = (typeof DEMO_ERROR_CODES)[number];

/**
 * Errors of the demo set-up. Codes: `DEMO_DIR_NOT_EMPTY` (the chosen directory holds files),
 * `DEMO_TOO_FEW_RECORDS` (fewer than 3 live records), `DEMO_BAD_STEP` (an unknown step given to
 * `faultStep`).
 */
export class DemoError extends SsgkrError<DemoErrorCode> {}
