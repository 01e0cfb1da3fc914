/**
 * inner-proof-v1 codec (compat-v1 §14): encoder, strict decoder, sizes, identity comparison.
 */
export { encodeProof } from "./encode.js";
export { decodeProof } from "./decode.js";
export { identityEquals } from "./identity.js";
export { encodedProofSize, expectedEncodedSize } from "./size.js";
export { DecodeError, EncodeError } from "./errors.js";
export type { DecodeErrorCode, EncodeErrorCode } from "./errors.js";
export type { EncodedResult } from "./types.js";
export * from "./layout.js";
