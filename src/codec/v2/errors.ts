/**
 * Errors of the inner-proof-v2 codec (docs/profile-v2.md §9): the v1 decoder's codes where the
 * rule is the same, plus `UnsupportedLayout`, `BadRoundCount` and (encoder) `NonZeroHighCoefficient`.
 */
import { SsgkrError } from "../../errors.js";

export type V2DecodeErrorCode =
  | "NotBytes"
  | "HeaderTooShort"
  | "BadMagic"
  | "UnsupportedProofEncodingVersion"
  | "UnsupportedProtocolVersion"
  | "UnsupportedProofKind"
  | "DeclaredLengthMismatch"
  | "UnknownOpKindTag"
  | "UnsupportedCircuitVersion"
  | "UnsupportedLeafEncodingVersion"
  | "UnsupportedLayout"
  | "NonCanonicalFieldElement"
  | "OpKindMismatch"
  | "OversizedCount"
  | "BadRoundCount"
  | "BadOperationCount"
  | "TrailingBytes"
  | "Truncated";

/** Thrown by `decodeProofV2` for any byte string that is not a valid inner-proof-v2 message. */
export class V2DecodeError extends SsgkrError {
  declare readonly code: V2DecodeErrorCode;
  constructor(code: V2DecodeErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}

export type V2EncodeErrorCode = "BadOperationCount" | "BadRoundPolyArity" | "BadRoundCount" | "NonZeroHighCoefficient" | "CountOverflow" | "NonCanonicalFieldElement" | "BadIdentity" | "MessageTooLong";

/** Thrown by `encodeProofV2` when a result cannot be written as a valid inner-proof-v2 message. */
export class V2EncodeError extends SsgkrError {
  declare readonly code: V2EncodeErrorCode;
  constructor(code: V2EncodeErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
