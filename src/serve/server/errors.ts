import { SsgkrError } from "../../errors.js";

/**
 * Errors of the proof server. Codes: `BAD_OPTION` (an option out of range; `details.option`),
 * `CONTROLS_FAILED` (a startup control did not hold; `details.kind`, `details.fixture`,
 * `details.control`), `LISTEN_FAILED` (the listen address could not be bound), `NOT_STARTED`.
 */
export class ServerError extends SsgkrError<ServerErrorCode> {}

/** Every code a `ServerError` carries (meanings in docs/errors.md). */
export const SERVER_ERROR_CODES = [
  "BAD_OPTION",
  "CONTROLS_FAILED",
  "LISTEN_FAILED",
  "NOT_STARTED",
  "AGGREGATE_WORKER_CRASHED",
] as const;

/** The code of a `ServerError`. */
export type ServerErrorCode = (typeof SERVER_ERROR_CODES)[number];
