/**
 * Errors of the inner-proof-v2 codec (docs/profile-v2.md §9): the v1 codes where the rule is the
 * same (derived from codec/errors.ts, not copied), plus `UnsupportedLayout`, `BadRoundCount`,
 * `BadOperationCount` and (encoder) `NonZeroHighCoefficient`, `BadIdentity`.
 */
import { DECODE_ERROR_CODES, ENCODE_ERROR_CODES, type DecodeErrorCode, type EncodeErrorCode } from "../errors.js";
import { SsgkrError } from "../../errors.js";

/** v1 decoder codes whose rule v2 does not have (v2 has no layer strategy and no fixed round arity). */
type V1OnlyDecodeCode = "UnsupportedLayerStrategy" | "BadRoundPolyArity";

/** Failure codes of the strict v2 decoder. */
export type V2DecodeErrorCode =
  | Exclude<DecodeErrorCode, V1OnlyDecodeCode>
  | "UnsupportedLayout"
  | "BadRoundCount"
  | "BadOperationCount";

/** Every code a `V2DecodeError` carries (meanings in docs/errors.md). */
export const V2_DECODE_ERROR_CODES: readonly V2DecodeErrorCode[] = [
  ...DECODE_ERROR_CODES.filter(
    (c): c is Exclude<DecodeErrorCode, V1OnlyDecodeCode> =>
      c !== "UnsupportedLayerStrategy" && c !== "BadRoundPolyArity",
  ),
  "UnsupportedLayout",
  "BadRoundCount",
  "BadOperationCount",
];

/** Thrown by `decodeProofV2` for any byte string that is not a valid inner-proof-v2 message. */
export class V2DecodeError extends SsgkrError<V2DecodeErrorCode> {}

/** v1 encoder codes v2 shares. */
type SharedEncodeCode = Extract<
  EncodeErrorCode,
  "BadRoundPolyArity" | "CountOverflow" | "NonCanonicalFieldElement" | "MessageTooLong"
>;

/** Failure codes of the v2 encoder. */
export type V2EncodeErrorCode =
  | SharedEncodeCode
  | "BadOperationCount"
  | "BadRoundCount"
  | "NonZeroHighCoefficient"
  | "BadIdentity";

/** Every code a `V2EncodeError` carries (meanings in docs/errors.md). */
export const V2_ENCODE_ERROR_CODES: readonly V2EncodeErrorCode[] = [
  ...ENCODE_ERROR_CODES.filter(
    (c): c is SharedEncodeCode =>
      c === "BadRoundPolyArity" || c === "CountOverflow" || c === "NonCanonicalFieldElement" || c === "MessageTooLong",
  ),
  "BadOperationCount",
  "BadRoundCount",
  "NonZeroHighCoefficient",
  "BadIdentity",
];

/** Thrown by `encodeProofV2` when a result cannot be written as a valid inner-proof-v2 message. */
export class V2EncodeError extends SsgkrError<V2EncodeErrorCode> {}
