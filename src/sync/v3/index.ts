/** Profile v3 (docs/profile-v3.md): prepare, prove and verify aggregates and blocks from their statements alone. */
export { type PreparedV3, type V3Dummy, prepareV3 } from "./prepared.js";
export {
  type V3BlockUpdate,
  type V3ProveOptions,
  type V3Timings,
  type V3VerifyOptions,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  v3Identity,
} from "./proof.js";
export { V3_PROOF_DOMAIN_TAG, V3_COMMITMENT_DOMAIN_TAG } from "./domains.js";
export { type PublicTable, committedClaims, committedPoint, publicEvals, publicTable } from "./input-claims.js";
export { type V3RejectCode, type V3Verdict, V3_REJECT_CODES } from "./verdict.js";
export { type V3SoundnessBound, v3Soundness } from "./soundness.js";
export { type V3ZkSoundnessBound, v3ZkSoundness } from "./zk-soundness.js";
export { v3ZkMaxCopyBits } from "./zk-proof.js";
