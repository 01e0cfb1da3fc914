import { SsgkrError } from "../../errors.js";

/**
 * Errors of the NATS JetStream transport. Codes: `BAD_OPTION` (a `--nats*` option or stream
 * setting out of range; `details.option`), `BROKER_CONNECT` (no broker reachable, or the
 * credentials / TLS files unusable), `BROKER_SETUP` (a stream or consumer could not be created or
 * has an incompatible configuration), `RUN_ID_USED` (the broker already holds results of this
 * run id and `--resume` was not given), `RESUME` (the `--out` directory cannot be resumed).
 */
export class BrokerError extends SsgkrError<BrokerErrorCode> {}

/** Every code a `BrokerError` carries (meanings in docs/errors.md). */
export const BROKER_ERROR_CODES = ["BAD_OPTION", "BROKER_CONNECT", "BROKER_SETUP", "RUN_ID_USED", "RESUME"] as const;

/** The code of a `BrokerError`. */
export type BrokerErrorCode = (typeof BROKER_ERROR_CODES)[number];
