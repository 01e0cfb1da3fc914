/**
 * `statesync-gkr/v2`: profile v2 (docs/profile-v2.md) — single proofs, aggregates of many
 * operations in one proof, blocks of updates chained from one root to another, the
 * inner-proof-v2 bytes, and the auditor's check of a registry block directory.
 *
 * @example
 * ```ts
 * import { goldenFixture } from "statesync-gkr";
 * import { prepareV2, proveV2, encodeV2, verifyEncodedV2 } from "statesync-gkr/v2";
 * const prepared = prepareV2("membership", { depth: 24 });
 * const request = goldenFixture("membership", 24, 5n);
 * const bytes = encodeV2(prepared, proveV2(prepared, request));
 * verifyEncodedV2(prepared, request, bytes); // { ok: true }
 * ```
 */

// Single proofs.
export { prepareV2, type PreparedV2, type PrepareV2Options } from "./sync/v2/index.js";
export { proveV2, type V2ProveTimings } from "./sync/v2/index.js";
export { verifyV2, type V2RejectCode, type V2Verdict } from "./sync/v2/index.js";
export { encodeV2, verifyEncodedV2, v2Identity } from "./sync/v2/index.js";

// Aggregates and blocks.
export { proveAggregate, verifyAggregate, type AggregateTimings, type AggregateVerdict } from "./sync/v2/index.js";
export { proveBlock, verifyBlock, updateRequestOf, type VerifyBlockOptions } from "./sync/v2/index.js";
export {
  AggregatePool,
  createAggregatePool,
  proveAggregates,
  type AggregateJobTimings,
  type AggregateOutcome,
  type AggregatePoolOptions,
  type ProveAggregatesOptions,
} from "./sync/v2/index.js";

// inner-proof-v2 bytes.
export { decodeProofV2, decodeAggregateV2, type V2EncodedResult, type V2EncodedAggregate } from "./codec/v2/decode.js";
export {
  V2DecodeError,
  V2EncodeError,
  V2_DECODE_ERROR_CODES,
  V2_ENCODE_ERROR_CODES,
  type V2DecodeErrorCode,
  type V2EncodeErrorCode,
} from "./codec/v2/errors.js";
export { V2_MAX_AGGREGATE, type V2CircuitIdentity } from "./codec/v2/layout.js";

// The auditor's check of a registry block directory (block.json, requests.json, block.bin; a
// profile v3 block: block.json and block.bin, checked from the roots and block.json alone).
export {
  verifyRegistryBlock,
  parseBlockDescription,
  BLOCK_REJECT_CODES,
  type BlockFiles,
  type BlockDescription,
  type BlockRejectCode,
  type BlockVerdict,
} from "./registry/verify-block.js";

// Profile v3 blocks (also in `statesync-gkr/v3`).
export {
  prepareV3,
  proveBlockV3,
  verifyBlockV3,
  type PreparedV3,
  type V3BlockUpdate,
  type V3Verdict,
} from "./sync/v3/index.js";

import { installKernelBackend } from "./kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
