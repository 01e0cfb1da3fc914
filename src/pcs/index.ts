export {
  whirCommit,
  whirOpen,
  whirVerify,
  acceptedWhirSets,
  type WhirCommitted,
  type WhirAcceptance,
  type WhirVerifyOptions,
} from "./api.js";
export {
  releaseWhirState,
  whirCommitOn,
  whirOpenOn,
  type WhirCommitOptions,
  type WhirOpenOptions,
  type WhirProverState,
  type WhirAdversary,
} from "./prover.js";
export { useDefaultPcsWorkers, defaultPcsWorkers, type PcsMerkleWorkers, type PcsWorkersProvider } from "./parallel.js";
export { whirReadCommitmentOn, whirVerifyOn, type WhirReadCommitment } from "./verifier.js";
export {
  encodeWhirCommitment,
  decodeWhirCommitment,
  encodeWhirProof,
  decodeWhirProof,
  WHIR_COMMITMENT_MAGIC,
  WHIR_PROOF_MAGIC,
} from "./codec.js";
export {
  whirParameterSet,
  whirParameterSets,
  whirSchedule,
  maxVariables,
  DEFAULT_WHIR_SET,
  PROVABLE_WHIR_SET,
  DEFAULT_HIDING_WHIR_SET,
  PROVABLE_HIDING_WHIR_SET,
  FINAL_VARIABLES_MAX,
  MAX_POW_BITS,
  type WhirParameterSet,
  type WhirSetId,
  type LeafWidth,
  type SoundnessRegime,
  type WhirRound,
  type WhirSchedule,
} from "./params.js";
export { whirSecurity, type WhirSecurityReport, type WhirRegimeSecurity, type WhirSecurityTerm } from "./security.js";
export { EXTENSION_FIELD_BITS } from "./security-terms.js";
export { PcsError, PCS_ERROR_CODES, PCS_REJECT_CODES, type PcsErrorCode, type PcsRejectCode } from "./errors.js";
export type {
  CommittedWidth,
  WhirAnyClaim,
  WhirBlockClaim,
  WhirBoundBlocksClaim,
  WhirClaim,
  WhirCommitment,
  WhirHidingCommitment,
  WhirHidingLayout,
  WhirHidingProof,
  WhirProof,
  WhirRoundProof,
  WhirVerdict,
  WhirWeightBlock,
} from "./types.js";
export {
  whirCommitHiding,
  whirOpenHiding,
  whirVerifyHiding,
  type WhirHidingCommitted,
} from "./hiding-api.js";
export {
  releaseWhirHidingState,
  whirCommitHidingOn,
  whirOpenHidingOn,
  type WhirHidingCommitOptions,
  type WhirHidingProverState,
  type WhirHidingAdversary,
} from "./hiding-prover.js";
export { whirReadHidingCommitmentOn, whirVerifyHidingOn, type WhirReadHidingCommitment } from "./hiding-verifier.js";
export {
  encodeWhirHidingCommitment,
  decodeWhirHidingCommitment,
  encodeWhirHidingProof,
  decodeWhirHidingProof,
  WHIR_HIDING_COMMITMENT_MAGIC,
  WHIR_HIDING_PROOF_MAGIC,
  WHIR_HIDING_WIDTH_CODE,
} from "./hiding-codec.js";
export {
  whirHidingSchedule,
  whirHidingSecurity,
  minHidingVariables,
  hidingWidthCode,
  WHIR_HIDING_LAYOUTS,
  type WhirHidingSchedule,
  type WhirHidingSecurityReport,
} from "./hiding-params.js";
export { cryptoRandomSource, whirSeededRandomSource, WHIR_SEED_DOMAIN_TAG, type WhirRandomSource } from "./random.js";
export { evaluateMultilinear } from "./multilinear.js";
