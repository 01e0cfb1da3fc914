import { SsgkrError } from "../../errors.js";

/**
 * Errors of the proof server. Codes: `BAD_OPTION` (an option out of range; `details.option`),
 * `CONTROLS_FAILED` (a startup control did not hold; `details.kind`, `details.fixture`,
 * `details.control`), `LISTEN_FAILED` (the listen address could not be bound), `NOT_STARTED`.
 */
export class ServerError extends SsgkrError {}
