/**
 * Errors of the inner-proof-v3 codec (docs/profile-v3.md §6): the v2 codes (derived, not copied),
 * plus `BadCommitment` and `BadOpening` for an embedded WHIR commitment or opening that its own
 * strict decoder refuses (docs/pcs.md §8), and (encoder) `BadRoots` for a block whose root count
 * is not n − 1.
 */
import { SsgkrError } from "../../errors.js";
import {
  V2_DECODE_ERROR_CODES,
  V2_ENCODE_ERROR_CODES,
  type V2DecodeErrorCode,
  type V2EncodeErrorCode,
} from "../v2/errors.js";

/** Failure codes of the strict v3 decoder. */
export type V3DecodeErrorCode = V2DecodeErrorCode | "BadCommitment" | "BadOpening";

/** Every code a `V3DecodeError` carries (meanings in docs/errors.md). */
export const V3_DECODE_ERROR_CODES: readonly V3DecodeErrorCode[] = [
  ...V2_DECODE_ERROR_CODES,
  "BadCommitment",
  "BadOpening",
];

/** Thrown by the v3 decoders for any byte string that is not a valid inner-proof-v3 message. */
export class V3DecodeError extends SsgkrError<V3DecodeErrorCode> {}

/** Failure codes of the v3 encoder. */
export type V3EncodeErrorCode = V2EncodeErrorCode | "BadRoots";

/** Every code a `V3EncodeError` carries (meanings in docs/errors.md). */
export const V3_ENCODE_ERROR_CODES: readonly V3EncodeErrorCode[] = [...V2_ENCODE_ERROR_CODES, "BadRoots"];

/** Thrown by the v3 encoder when a proof cannot be written as a valid inner-proof-v3 message. */
export class V3EncodeError extends SsgkrError<V3EncodeErrorCode> {}
