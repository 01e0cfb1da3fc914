/**
 * Base class of every error this package throws on purpose.
 *
 * `code` is stable (documented in the README) and safe to match on;
 * `message` is meant for a human and names the offending value and the rule it broke.
 */
export class SsgkrError extends Error {
  /** Stable machine-readable error code, e.g. `NON_CANONICAL`. */
  readonly code: string;
  /** Optional structured details (offsets, counts, field paths). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}
