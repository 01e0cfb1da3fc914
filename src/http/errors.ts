/**
 * HTTP errors of the registry API: a status and a body `{"code", "message"}` (codes from the
 * registry, request and claim catalogues, plus the API's own: `BAD_INPUT`, `UNAUTHORIZED`,
 * `FORBIDDEN`, `READ_ONLY`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`, `CONFIG_NOT_SERVED`, `RATE_LIMITED`, `URL_TOO_LONG`,
 * `BODY_TOO_LARGE`, `NOT_FOUND`, `WEB_NOT_BUILT`, `BAD_TOKEN_FILE`, `CHECKPOINT_NOT_SERVED`,
 * `BLOCK_NOT_FOUND`, `SIZE_UNKNOWN`, `PROOF_PENDING`, `CHAIN_NOT_PROVABLE`).
 */
import { SsgkrError } from "../errors.js";

/** An error of the registry API with its HTTP status (codes: `HTTP_ERROR_CODES`). */
export class HttpError extends SsgkrError<HttpErrorCode> {
  /** HTTP status (0 for a start-up error that is no response). */
  readonly status: number;

  constructor(status: number, code: HttpErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
    this.status = status;
  }
}

/** Every code of the API's own errors (meanings in docs/errors.md); bodies may also carry library codes. */
export const HTTP_ERROR_CODES = [
  "BAD_INPUT",
  "BAD_NAME",
  "NAME_DELETED",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "READ_ONLY",
  "WRITE_BUSY",
  "ROOT_NOT_PROVABLE",
  "ROOT_UNKNOWN",
  "CONFIG_NOT_SERVED",
  "RATE_LIMITED",
  "URL_TOO_LONG",
  "BODY_TOO_LARGE",
  "NOT_FOUND",
  "CHECKPOINT_NOT_SERVED",
  "BLOCK_NOT_FOUND",
  "SIZE_UNKNOWN",
  "PROOF_PENDING",
  "CHAIN_NOT_PROVABLE",
  "WEB_NOT_BUILT",
  "BAD_TOKEN_FILE",
  "INTERNAL",
] as const;

/** The code of an `HttpError`. */
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** Status of a registry or claim error code. */
const STATUS: Readonly<Record<string, number>> = {
  NAME_NOT_FOUND: 404,
  BAD_NAME: 400,
  NAME_NOT_NFC: 400,
  BAD_VALUE: 400,
  VALUE_TOO_LARGE: 400,
  BAD_CLAIM: 400,
  BAD_ROOT: 400,
  BAD_VERIFIER_KEY: 400,
  REQUEST_SCHEMA: 400,
  REQUEST_JSON: 400,
  NAME_EXISTS: 409,
  NAME_DELETED: 409,
  RECORD_ABSENT: 409,
  RECORD_LIVE: 409,
  NOT_DELETED: 409,
  CONCURRENT_UPDATE: 409,
  REGISTRY_FULL: 409,
  KEY_COLLISION: 409,
  BAD_PROFILE: 400,
};

/** The HTTP status of any error this package throws (500 for unexpected ones). */
export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof SsgkrError) return STATUS[err.code] ?? 500;
  return 500;
}
