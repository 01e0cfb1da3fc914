/**
 * Errors of the inner-proof codecs (compat-v1 §14.2, §14.3; profile v2 in codec/v2 reuses these
 * classes' base and derives its code lists from these).
 *
 * Codes are the names the specification gives the failures, spelled as in the spec, so that a
 * rejection can be compared one-to-one with the reference engine's.
 */
import { SsgkrError } from "../errors.js";

/**
 * Failure codes of the strict decoder, in the order the decoder checks them (compat-v1 §14.3).
 * `Truncated` can occur at any read; `NotBytes` is raised only when the input is not a `Uint8Array`.
 *
 * | code | details |
 * |---|---|
 * | `HeaderTooShort` | `{ have }` buffer length in bytes |
 * | `BadMagic` | `{}` |
 * | `UnsupportedProofEncodingVersion` | `{ version }` |
 * | `UnsupportedProtocolVersion` | `{ version }` |
 * | `UnsupportedProofKind` | `{ kind }` |
 * | `DeclaredLengthMismatch` | `{ declared, actual }` bytes |
 * | `UnknownOpKindTag` | `{ tag, offset }` (offset 17 identity, 125 statement) |
 * | `UnsupportedCircuitVersion` | `{ version }` |
 * | `UnsupportedLeafEncodingVersion` | `{ version }` |
 * | `UnsupportedLayerStrategy` | `{ strategy }` |
 * | `NonCanonicalFieldElement` | `{ offset, value }` offset of the fe |
 * | `OpKindMismatch` | `{ identity, statement }` |
 * | `OversizedCount` | `{ offset, count, remaining }` offset of the count |
 * | `BadRoundPolyArity` | `{ layer, round, got }` |
 * | `TrailingBytes` | `{ extra }` bytes |
 * | `Truncated` | `{ offset, need, have }` offset where the field starts, its size, buffer length |
 */
export const DECODE_ERROR_CODES = [
  "NotBytes",
  "HeaderTooShort",
  "BadMagic",
  "UnsupportedProofEncodingVersion",
  "UnsupportedProtocolVersion",
  "UnsupportedProofKind",
  "DeclaredLengthMismatch",
  "UnknownOpKindTag",
  "UnsupportedCircuitVersion",
  "UnsupportedLeafEncodingVersion",
  "UnsupportedLayerStrategy",
  "NonCanonicalFieldElement",
  "OpKindMismatch",
  "OversizedCount",
  "BadRoundPolyArity",
  "TrailingBytes",
  "Truncated",
] as const;

/** The code of a `DecodeError`. */
export type DecodeErrorCode = (typeof DECODE_ERROR_CODES)[number];

/** Thrown by `decodeProof` for any byte string that is not a valid inner-proof-v1 message. */
export class DecodeError extends SsgkrError<DecodeErrorCode> {}

/**
 * Failure codes of the encoder (compat-v1 §14.2 and the field rules of §14.1).
 *
 * | code | details |
 * |---|---|
 * | `BadRoundPolyArity` | `{ layer, round, got }` a round polynomial without exactly 5 coefficients |
 * | `CountOverflow` | `{ what, value, max }` layer/round count or depth above u32, leaf_max_fields above u16 |
 * | `MessageTooLong` | `{ length }` total length above u32 max, in bytes |
 * | `NonCanonicalFieldElement` | `{ what, value }` a value that is not an integer in [0, p) |
 * | `UnknownOpKindTag` | `{ what, value }` an op kind tag other than 0, 1, 2 |
 * | `OpKindMismatch` | `{ identity, statement }` identity and statement name different op kinds |
 * | `UnsupportedCircuitVersion` / `UnsupportedLeafEncodingVersion` | `{ version }` anything but 1 |
 * | `UnsupportedLayerStrategy` | `{ strategy }` anything but 0 (A) |
 * | `InvalidValue` | `{ what, value }` wrong shape (digest not 8 elements, ext not 4), asset_id not a u64, a negative or fractional count |
 * | `SizeMismatch` | `{ wrote, sized }` the encoder wrote another number of bytes than it sized (an internal fault, never bad input) |
 */
export const ENCODE_ERROR_CODES = [
  "BadRoundPolyArity",
  "CountOverflow",
  "MessageTooLong",
  "NonCanonicalFieldElement",
  "UnknownOpKindTag",
  "OpKindMismatch",
  "UnsupportedCircuitVersion",
  "UnsupportedLeafEncodingVersion",
  "UnsupportedLayerStrategy",
  "InvalidValue",
  "SizeMismatch",
] as const;

/** The code of an `EncodeError`. */
export type EncodeErrorCode = (typeof ENCODE_ERROR_CODES)[number];

/** Thrown by `encodeProof` when a result cannot be written as a valid inner-proof-v1 message. */
export class EncodeError extends SsgkrError<EncodeErrorCode> {}
