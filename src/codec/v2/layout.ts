/** Byte layout of inner-proof-v2 (docs/profile-v2.md §9). */
export const V2_PROOF_ENCODING_VERSION = 2;
export const V2_PROTOCOL_VERSION = 2;
export const V2_PROOF_KIND_SINGLE = 0;
export const V2_PROOF_KIND_AGGREGATE = 1;
/** Bytes of one statement: old_root, new_root, op kind, asset_id, value_digest. */
export const V2_STATEMENT_BYTES = 105;
/** Bytes of one operation's statement check in an aggregate (2 fe). */
export const V2_STATEMENT_CHECK_BYTES = 8;
/** Most operations one aggregate may carry. */
export const V2_MAX_AGGREGATE = 4096;
export const V2_CIRCUIT_VERSION = 2;
export const V2_LEAF_ENCODING_VERSION = 1;
export const V2_LAYOUT_ID = 0;
export const V2_HEADER_BYTES = 17;
/** Offset of the layer count. */
export const V2_LAYERS_OFFSET = 166;
/** Minimum bytes of one layer: round count + eval_x + eval_y. */
export const V2_LAYER_FIXED_BYTES = 36;
/** Bytes of one x round (5 ef) plus one y round (3 ef). */
export const V2_ROUND_PAIR_BYTES = 128;
export const V2_EVALS_BYTES = 32;

/** The circuit identity an inner-proof-v2 message claims. */
export interface V2CircuitIdentity {
  readonly opKindTag: number;
  readonly depth: number;
  readonly circuitVersion: number;
  readonly leafEncodingVersion: number;
  readonly leafMaxFields: number;
  readonly layoutId: number;
  readonly commitment: Uint32Array;
}
