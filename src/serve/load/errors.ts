import { SsgkrError } from "../../errors.js";

/**
 * Errors of the load generator (compat-v1 §16.5). Codes: `BAD_OPTION` (an option outside its
 * range or malformed; `details.option` names it), `OUT_EXISTS` (the output directory or one of its
 * files already exists), `OUT_WRITE` (an output file could not be written), `CONNECT` (a target
 * could not be reached before the run), `CONTROLS` (a control proof was not as required).
 */
export class LoadError extends SsgkrError {}
