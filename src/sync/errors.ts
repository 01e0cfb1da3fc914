import { SsgkrError } from "../errors.js";

/**
 * Errors of the sync API. Codes: `WRONG_KIND` (a request of another kind than the prepared
 * circuit), `WITNESS` (the input vector could not be built: path length, leaf encoding),
 * `BAD_REQUEST` (a request that does not describe an operation of its kind).
 */
export class SyncError extends SsgkrError {}
