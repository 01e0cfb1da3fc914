/**
 * HTTP errors of the registry API: a status and a body `{"code", "message"}` (codes from the
 * registry, request and claim catalogues, plus the API's own: `BAD_INPUT`, `UNAUTHORIZED`,
 * `FORBIDDEN`, `READ_ONLY`, `WRITE_QUEUE_FULL`, `BAD_IDEMPOTENCY_KEY`, `IDEMPOTENCY_KEY_REUSED`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`, `CONFIG_NOT_SERVED`, `RATE_LIMITED`, `URL_TOO_LONG`,
 * `BODY_TOO_LARGE`, `NOT_FOUND`, `WEB_NOT_BUILT`, `BAD_TOKEN_FILE`, `CHECKPOINT_NOT_SERVED`,
 * `BLOCK_NOT_FOUND`, `SIZE_UNKNOWN`, `CHAIN_NOT_PROVABLE`; `GET /v1/consistency` also answers `202` with the code
 * `PROOF_PENDING`, which is no error).
 *
 * The status of an answer comes from its code alone (`HTTP_STATUSES`, one table per code union
 * the API answers; the error catalogue carries each table on its union's entry, `CatalogueEntry.http`,
 * and docs/errors.md shows it in its HTTP column). Any other error is a fault of the server: 500
 * with its code.
 */
import { SsgkrError } from "../errors.js";
import type { ClaimErrorCode } from "../counterparty/claim.js";
import type { RegistryErrorCode } from "../registry/errors.js";
import type { RequestErrorCode } from "../sync/request.js";
import type { ProvingErrorCode } from "../proving/errors.js";

/** Every code of the API's own errors (meanings in docs/errors.md); bodies may also carry library codes. */
export const HTTP_ERROR_CODES = [
  "BAD_INPUT",
  "BAD_NAME",
  "NAME_DELETED",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "READ_ONLY",
  "WRITE_BUSY",
  "WRITE_QUEUE_FULL",
  "BAD_IDEMPOTENCY_KEY",
  "IDEMPOTENCY_KEY_REUSED",
  "ROOT_NOT_PROVABLE",
  "ROOT_UNKNOWN",
  "CONFIG_NOT_SERVED",
  "RATE_LIMITED",
  "URL_TOO_LONG",
  "BODY_TOO_LARGE",
  "REQUEST_TIMEOUT",
  "HEADERS_TOO_LARGE",
  "BAD_HTTP",
  "NOT_FOUND",
  "CHECKPOINT_NOT_SERVED",
  "BLOCK_NOT_FOUND",
  "SIZE_UNKNOWN",
  "CHAIN_NOT_PROVABLE",
  "WEB_NOT_BUILT",
  "BAD_TOKEN_FILE",
  "INTERNAL",
] as const;

/** The code of an `HttpError`. */
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/**
 * Status of each of the API's own codes. `BAD_INPUT` is 400, but a request the framework refuses
 * before any route keeps the framework's 4xx status (415 for a body whose content-type is not
 * JSON). `BAD_TOKEN_FILE` is a start-up error of `ssgkr registry http`, never an answer.
 */
const API_STATUS: Readonly<Record<HttpErrorCode, number>> = {
  BAD_INPUT: 400,
  BAD_NAME: 400,
  NAME_DELETED: 409,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  READ_ONLY: 403,
  WRITE_BUSY: 409,
  WRITE_QUEUE_FULL: 503,
  BAD_IDEMPOTENCY_KEY: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  ROOT_NOT_PROVABLE: 410,
  ROOT_UNKNOWN: 404,
  CONFIG_NOT_SERVED: 422,
  RATE_LIMITED: 429,
  URL_TOO_LONG: 414,
  BODY_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  BAD_HTTP: 400,
  NOT_FOUND: 404,
  CHECKPOINT_NOT_SERVED: 404,
  BLOCK_NOT_FOUND: 404,
  SIZE_UNKNOWN: 404,
  CHAIN_NOT_PROVABLE: 410,
  WEB_NOT_BUILT: 503,
  BAD_TOKEN_FILE: 500,
  INTERNAL: 500,
};

/** Status of each registry code: the client's errors 4xx, the server's (its database, its workers, codes of commands the API has no route for) 500. */
const REGISTRY_STATUS: Readonly<Record<RegistryErrorCode, number>> = {
  NAME_NOT_FOUND: 404,
  SLOT_OUT_OF_RANGE: 500,
  NAME_EXISTS: 409,
  NAME_DELETED: 409,
  RECORD_ABSENT: 409,
  RECORD_LIVE: 409,
  NOT_DELETED: 409,
  VALUE_TOO_LARGE: 400,
  BAD_VALUE: 400,
  BAD_NAME: 400,
  NAME_NOT_NFC: 400,
  BAD_ROOT: 400,
  BAD_RECORD: 500,
  IMPORT_REJECTED: 500,
  BAD_SOURCE: 500,
  SOURCE_MISSING: 500,
  BAD_CONFIG: 500,
  CONFIG_MISMATCH: 500,
  REGISTRY_FULL: 409,
  KEY_COLLISION: 409,
  CONCURRENT_UPDATE: 409,
  HASH_FAILED: 500,
  PROOF_FAILED: 500,
  KERNEL_MISMATCH: 500,
  DB_MISSING: 500,
  DB_NOT_READY: 500,
  DB_OUTDATED: 500,
  ROOT_NOT_PROVABLE: 410,
  ROOT_UNKNOWN: 404,
  WRONG_MAPPING: 500,
  DB_CORRUPT: 500,
  BAD_BLOCK: 500,
  BAD_VERIFIER_KEY: 400,
  BAD_SIGNING_KEY: 500,
  KEY_FILE_EXISTS: 500,
  BAD_ORIGIN: 500,
  BAD_PROFILE: 400,
  CHANGES_NOT_RECORDED: 410,
};

/**
 * The HTTP status of every code the API answers with a status of its own, by code union (its own
 * `HttpErrorCode`, and the registry, claim and request codes its routes pass on). A code of
 * several unions has one status. Every other error is answered 500 with its code.
 * @example
 *   HTTP_STATUSES.RegistryErrorCode.NAME_EXISTS; // 409
 */
export const HTTP_STATUSES: Readonly<
  Record<
    "HttpErrorCode" | "RegistryErrorCode" | "ClaimErrorCode" | "RequestErrorCode" | "ProvingErrorCode",
    Readonly<Record<string, number>>
  >
> = {
  HttpErrorCode: API_STATUS,
  RegistryErrorCode: REGISTRY_STATUS,
  ClaimErrorCode: { BAD_CLAIM: 400 } satisfies Record<ClaimErrorCode, number>,
  RequestErrorCode: { REQUEST_JSON: 400, REQUEST_SCHEMA: 400 } satisfies Record<RequestErrorCode, number>,
  ProvingErrorCode: {
    PROVER_BUSY: 503,
    PROVER_CLOSED: 503,
    WORKER_CRASHED: 500,
    PROVER_TIMEOUT: 503,
    PROOF_JOB_REFUSED: 500,
  } satisfies Record<ProvingErrorCode, number>,
};

/** Status by code, over every table of `HTTP_STATUSES`. */
const STATUS: ReadonlyMap<string, number> = new Map(Object.values(HTTP_STATUSES).flatMap((t) => Object.entries(t)));

/**
 * The status the API answers an error code with: its `HTTP_STATUSES` entry, 500 for any other code.
 * @example
 *   statusOfCode("RATE_LIMITED"); // 429
 *   statusOfCode("NON_CANONICAL"); // 500
 */
export function statusOfCode(code: string): number {
  return STATUS.get(code) ?? 500;
}

/** An error of the registry API; its HTTP status is its code's (codes: `HTTP_ERROR_CODES`, statuses: `HTTP_STATUSES`). */
export class HttpError extends SsgkrError<HttpErrorCode> {
  /** HTTP status, the code's (`HTTP_STATUSES.HttpErrorCode`). */
  readonly status: number;

  constructor(code: HttpErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
    this.status = API_STATUS[code];
  }
}

/** The HTTP status of any error this package throws: its code's (`statusOfCode`), 500 for an error that is not an `SsgkrError`. */
export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof SsgkrError) return statusOfCode(err.code);
  return 500;
}
