/** Profile v2 (docs/profile-v2.md): prepare, prove, verify, encode. */
export { type PreparedV2, type PrepareV2Options, prepareV2 } from "./prepared.js";
export { type V2ProveTimings, proveV2 } from "./prove.js";
export { type V2RejectCode, type V2Verdict, verifyV2 } from "./verify.js";
export { encodeV2, verifyEncodedV2, v2Identity } from "./encoded.js";
export { v2CircuitCommitment } from "./commitment.js";
export { v2StatementTranscript, assetIdLimbs } from "./statement-transcript.js";
export { V2_PROOF_DOMAIN_TAG, V2_COMMITMENT_DOMAIN_TAG } from "./domains.js";
export { type AggregateTimings, type AggregateVerdict, proveAggregate, verifyAggregate } from "./aggregate.js";
export { statementCheck, statementChecks } from "./aggregate.js";
export { type VerifyBlockOptions, proveBlock, updateRequestOf, verifyBlock } from "./block.js";
export {
  type AggregateJobTimings,
  type AggregateOutcome,
  type AggregatePoolOptions,
  type ProveAggregatesOptions,
  AggregatePool,
  createAggregatePool,
  proveAggregates,
} from "./aggregate-pool.js";
