/**
 * Byte layout of inner-proof-v1 (compat-v1 §14.1): magic, versions, field offsets and sizes.
 * All integers on the wire are little-endian; `fe` is one canonical base element as a u32,
 * `ef` is one extension element as 4 fe in basis order c0..c3.
 */

/** ASCII `SSGKRPRF` (8 bytes at offset 0). */
export const MAGIC: Uint8Array = new Uint8Array([0x53, 0x53, 0x47, 0x4b, 0x52, 0x50, 0x52, 0x46]);

/** `proof_encoding_version` accepted and written (compat-v1 §1). */
export const PROOF_ENCODING_VERSION = 1;
/** `protocol_version` accepted and written (compat-v1 §1). */
export const PROTOCOL_VERSION = 1;
/** `proof_kind` 0 = inner GKR proof; the only kind (compat-v1 §14.1). */
export const PROOF_KIND_INNER_GKR = 0;
/** `circuit_version` accepted and written (compat-v1 §1). */
export const CIRCUIT_VERSION = 1;
/** `leaf_encoding_version` accepted and written (compat-v1 §1). */
export const LEAF_ENCODING_VERSION = 1;
/** Layer strategy A, the only strategy that compiles (compat-v1 §6.6). */
export const STRATEGY_A = 0;
/** Largest op kind tag (Update); tags are 0/1/2 (compat-v1 §6.4). */
export const MAX_OP_KIND_TAG = 2;
/** Coefficients per round polynomial on the wire (compat-v1 §10.3, §14.1). */
export const ROUND_POLY_COEFFS = 5;

/** Byte offsets of the fixed-position fields (compat-v1 §14.1). */
export const OFFSET = {
  magic: 0,
  proofEncodingVersion: 8,
  protocolVersion: 10,
  proofKind: 12,
  totalLength: 13,
  identityOpKindTag: 17,
  depth: 18,
  circuitVersion: 22,
  leafEncodingVersion: 24,
  leafMaxFields: 26,
  strategyId: 28,
  commitment: 29,
  oldRoot: 61,
  newRoot: 93,
  statementOpKindTag: 125,
  assetIdLow: 126,
  assetIdHigh: 130,
  valueDigest: 134,
  layerCount: 166,
  layers: 170,
} as const;

/** Header length in bytes (magic, two versions, kind, total length). */
export const HEADER_BYTES = 17;
/** Bytes of a fe. */
export const FE_BYTES = 4;
/** Bytes of an ef. */
export const EF_BYTES = 16;
/** Bytes of a digest (8 fe). */
export const DIGEST_BYTES = 32;
/** Bytes before the first layer: header 17 + identity 44 + statement 77 + layer count 4. */
export const FIXED_BYTES = 170;
/** Bytes of one round on the wire: coefficient count u8 + 5 ef. */
export const ROUND_BYTES = 1 + ROUND_POLY_COEFFS * EF_BYTES;
/** Bytes of a layer besides its rounds: round count u32 + eval_x ef + eval_y ef. */
export const LAYER_FIXED_BYTES = 4 + 2 * EF_BYTES;
/** Bytes of the layer tail the decoder budgets for after the round count (eval_x, eval_y). */
export const LAYER_EVALS_BYTES = 2 * EF_BYTES;

/** Largest u16. */
export const U16_MAX = 0xffff;
/** Largest u32; also the largest total length. */
export const U32_MAX = 0xffffffff;
