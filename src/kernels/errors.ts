import { SsgkrError } from "../errors.js";

/**
 * Thrown by the WASM kernel layer.
 *
 * Codes: `MODULE_MISSING` (kernels.wasm not built, or built without a kernel that is called), `BAD_OPTIONS` (memory sizes),
 * `OUT_OF_MEMORY` (the shared memory cannot grow to the requested size), `BAD_REGION`
 * (a region is released twice, misaligned or outside the memory), `BAD_LENGTH` (operand lengths
 * disagree or a region is too small), `NON_CANONICAL` (an input word is not in [0, p)).
 */
export class KernelError extends SsgkrError<KernelErrorCode> {}

/** Every code a `KernelError` carries (meanings in docs/errors.md). */
export const KERNEL_ERROR_CODES = [
  "MODULE_MISSING",
  "BAD_OPTIONS",
  "OUT_OF_MEMORY",
  "BAD_REGION",
  "BAD_LENGTH",
  "NON_CANONICAL",
] as const;

/** The code of a `KernelError`. */
export type KernelErrorCode = (typeof KERNEL_ERROR_CODES)[number];
