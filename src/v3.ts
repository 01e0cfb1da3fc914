/**
 * `statesync-gkr/v3`: profile v3 (docs/profile-v3.md) — aggregates of many operations and blocks
 * of chained updates that a verifier checks from the statements alone (roots, keys, leaves, the
 * update list): the private half of the input is committed with WHIR and opened at the GKR's two
 * input points, so no sibling, accumulator or permutation state reaches the verifier.
 *
 * @example
 * ```ts
 * import { goldenFixture } from "statesync-gkr";
 * import { prepareV3, proveAggregateV3, verifyAggregateV3, v3StatementOf } from "statesync-gkr/v3";
 * const prepared = prepareV3("membership", { depth: 24 });
 * const requests = [1n, 2n, 3n].map((key) => goldenFixture("membership", 24, key));
 * const bytes = proveAggregateV3(prepared, requests);
 * verifyAggregateV3(prepared, requests.map((r) => v3StatementOf(r)), bytes); // { ok: true }
 * ```
 */

// Prepared circuits, proofs and verdicts.
export { prepareV3, type PreparedV3, type V3Dummy } from "./sync/v3/index.js";
export {
  proveAggregateV3,
  verifyAggregateV3,
  proveBlockV3,
  verifyBlockV3,
  v3Identity,
  type V3BlockUpdate,
  type V3ProveOptions,
  type V3Timings,
  type V3VerifyOptions,
} from "./sync/v3/index.js";
export { V3_REJECT_CODES, type V3RejectCode, type V3Verdict } from "./sync/v3/index.js";
export { v3Soundness, type V3SoundnessBound, v3ZkSoundness, type V3ZkSoundnessBound } from "./sync/v3/index.js";

// Statements.
export { v3StatementOf } from "./smt/v3/input.js";
export { publicHalf, type V3OldLeafRule, type V3Statement } from "./smt/v3/statement.js";

// inner-proof-v3 and inner-proof-v3zk bytes.
export {
  decodeV3Message,
  encodeV3Message,
  type V3Message,
  decodeV3ZkMessage,
  encodeV3ZkMessage,
  type V3ZkMessage,
} from "./codec/v3/message.js";
export {
  V3DecodeError,
  V3EncodeError,
  V3_DECODE_ERROR_CODES,
  V3_ENCODE_ERROR_CODES,
  type V3DecodeErrorCode,
  type V3EncodeErrorCode,
} from "./codec/v3/errors.js";
export { V3_MAX_OPERATIONS, type V3CircuitIdentity } from "./codec/v3/layout.js";

// The auditor's check of a registry block directory (v2: block.json, requests.json, block.bin; v3: block.json, block.bin).
export {
  verifyRegistryBlock,
  parseBlockDescription,
  BLOCK_REJECT_CODES,
  type BlockFiles,
  type BlockDescription,
  type BlockRejectCode,
  type BlockVerdict,
} from "./registry/verify-block.js";

// The check of a consistency chain between two checkpoints (GET /v1/consistency).
export {
  verifyConsistency,
  CONSISTENCY_REJECT_CODES,
  type ChainEnd,
  type ConsistencyLink,
  type ConsistencyRejectCode,
  type ConsistencyVerdict,
} from "./registry/consistency/verify-consistency.js";

import { installKernelBackend } from "./kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
