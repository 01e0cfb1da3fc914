import { SsgkrError } from "../errors.js";

/**
 * Errors of the sync API. Codes: `WRONG_KIND` (a request of another kind than the prepared
 * circuit), `WITNESS` (the input vector could not be built: path length, leaf encoding),
 * `BAD_REQUEST` (a request that does not describe an operation of its kind).
 */
export class SyncError extends SsgkrError<SyncErrorCode> {}

/** Every code a `SyncError` carries (meanings in docs/errors.md). */
export const SYNC_ERROR_CODES = [
  "WRONG_KIND",
  "WITNESS",
  "BAD_REQUEST",
  "BAD_KIND",
  "BAD_AGGREGATE",
  "BAD_BLOCK",
  "BAD_CORPUS_INDEX",
  "ZK_UNSUPPORTED",
] as const;

/** The code of a `SyncError`. */
export type SyncErrorCode = (typeof SYNC_ERROR_CODES)[number];
