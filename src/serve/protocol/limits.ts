/**
 * Constants of the serving protocol, protocol 1 (compat-v1 §16.1–16.2).
 */

/** The `protocol` field of every Job and Reply. */
export const PROTOCOL_VERSION = 1;

/**
 * The `protocol` of Jobs and Replies served with profile v2 aggregates (docs/serving.md
 * "Profile v2"): Jobs as protocol 1, proof frames are served aggregates (served-aggregate.ts).
 */
export const PROTOCOL_VERSION_V2 = 2;

/**
 * Longest `run_id` a frontend (`ssgkr load`) sends, UTF-8 bytes; a broker worker terminates a job
 * with a longer one (docs/scale-out.md "Bounded jobs").
 */
export const MAX_RUN_ID_BYTES = 128;

/** Largest Job JSON frame body, in bytes (2 MiB, §16.1). */
export const MAX_JOB_BYTES = 2 * 1024 * 1024;

/** Largest Reply JSON frame body, in bytes (2 MiB, §16.1). */
export const MAX_REPLY_JSON_BYTES = 2 * 1024 * 1024;

/** Largest proof frame body (raw inner-proof-v1 bytes), in bytes (16 MiB, §16.1). */
export const MAX_PROOF_BYTES = 16 * 1024 * 1024;

/** Bytes of the big-endian u32 length prefix of every frame. */
export const FRAME_HEADER_BYTES = 4;

/** Largest tree depth a server accepts jobs for (§16.2 rule 1: depth in 1..32). */
export const MAX_SERVED_DEPTH = 32;

/** Keys are bounded by 2^min(depth, KEY_BITS_CAP) (§16.2 rule 1). */
export const KEY_BITS_CAP = 24;

/** Most sync-state fields an Occupied leaf may carry on the wire (§16.2 rule 2). */
export const MAX_PAYLOAD_FIELDS = 21;

/** Bytes of a leaf identity. */
export const IDENTITY_BYTES = 32;

/** Elements of a digest (siblings, roots, value_digest). */
export const DIGEST_ELEMENTS = 8;

/** Largest u64, for range checks of u64 fields. */
export const U64_MAX = (1n << 64n) - 1n;
