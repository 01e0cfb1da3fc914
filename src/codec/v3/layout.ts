import type { HeaderVersions } from "../v2/header.js";
import type { V2CircuitIdentity } from "../v2/layout.js";

/** Byte layout of inner-proof-v3 (docs/profile-v3.md §6). */
export const V3_PROOF_ENCODING_VERSION = 3;
export const V3_PROTOCOL_VERSION = 3;
/** An aggregate of n operations whose statements the verifier holds. */
export const V3_PROOF_KIND_AGGREGATE = 1;
/** A block: an aggregate of n chained updates that also carries the n − 1 intermediate roots. */
export const V3_PROOF_KIND_BLOCK = 2;
export const V3_CIRCUIT_VERSION = 3;
export const V3_LEAF_ENCODING_VERSION = 1;
export const V3_LAYOUT_ID = 0;
export const V3_HEADER_BYTES = 17;
/** Offset of the operation count. */
export const V3_COUNT_OFFSET = 61;
/** Bytes of one statement check (2 fe) and of one root (8 fe). */
export const V3_STATEMENT_CHECK_BYTES = 8;
export const V3_ROOT_BYTES = 32;
/** Most operations one v3 proof may carry. */
export const V3_MAX_OPERATIONS = 4096;
/** Largest embedded commitment and opening (bytes): bounds checked before they are decoded. */
export const V3_MAX_COMMITMENT_BYTES = 4096;
export const V3_MAX_OPENING_BYTES = 8 * 1024 * 1024;

/** The circuit identity an inner-proof-v3 message claims: the fields of v2's, with version 3. */
export type V3CircuitIdentity = V2CircuitIdentity;

/** The versions of inner-proof-v3. */
export const V3_VERSIONS: HeaderVersions = Object.freeze({
  name: "inner-proof-v3",
  encoding: V3_PROOF_ENCODING_VERSION,
  protocol: V3_PROTOCOL_VERSION,
  circuit: V3_CIRCUIT_VERSION,
});

/** inner-proof-v3zk, the zero-knowledge mode (docs/profile-v3.md §11.1). */
export const V3ZK_PROOF_ENCODING_VERSION = 4;

/** The versions of inner-proof-v3zk: encoding 4, protocol and circuit as v3 (the circuit is v3's). */
export const V3ZK_VERSIONS: HeaderVersions = Object.freeze({
  name: "inner-proof-v3zk",
  encoding: V3ZK_PROOF_ENCODING_VERSION,
  protocol: V3_PROTOCOL_VERSION,
  circuit: V3_CIRCUIT_VERSION,
});
