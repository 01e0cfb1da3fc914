import { SsgkrError } from "../../errors.js";

/**
 * Errors of the serving protocol (compat-v1 §16.1–16.3). Codes:
 * - `FRAME_TOO_LARGE`: a frame's declared length exceeds its bound (`details.declared`, `details.limit`).
 * - `FRAME_TRUNCATED`: the stream ended inside a frame (`details.buffered` bytes were pending).
 * - `BAD_JSON`: a frame body is not UTF-8 JSON (`details.offset` when known).
 * - `BAD_JOB`, `BAD_REPLY`: valid JSON that is not a Job / Reply (`details.path` = JSON path of the first offending field).
 * - `PROOF_LENGTH_MISMATCH`: a proof frame whose length differs from `reply.encoded_bytes`.
 * - `MESSAGE_TOO_LONG`: an outgoing Job, Reply or proof exceeds its frame bound.
 */
export class ProtocolError extends SsgkrError<ProtocolErrorCode> {}

/** Every code a `ProtocolError` carries (meanings in docs/errors.md). */
export const PROTOCOL_ERROR_CODES = [
  "FRAME_TOO_LARGE",
  "FRAME_TRUNCATED",
  "BAD_JSON",
  "BAD_JOB",
  "BAD_REPLY",
  "PROOF_LENGTH_MISMATCH",
  "MESSAGE_TOO_LONG",
  "BAD_SERVED_AGGREGATE",
] as const;

/** The code of a `ProtocolError`. */
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];
