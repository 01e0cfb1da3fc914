/**
 * `statesync-gkr/pcs`: the WHIR multilinear polynomial commitment over KoalaBear (docs/pcs.md) —
 * commit to 2^m hypercube evaluations, open any number of evaluation claims in one proof, verify
 * from the commitment alone; strict byte codecs; the parameter sets and their security; the hiding
 * commitment and masked opening (docs/pcs.md §12). Importing
 * this entry installs the WASM kernels (`installKernelBackend()`) when they are available, and, on
 * a machine with more than one core, a default worker pool for the Merkle hashing
 * (`installDefaultPcsPool()`: made on first use, unref'd; proofs are the same bytes with or without it).
 *
 * @example
 * ```ts
 * import { whirCommit, whirOpen, whirVerify, evaluateMultilinear } from "statesync-gkr/pcs";
 * const evaluations = new Uint32Array(1 << 10).map((_, i) => i);
 * const point = Array.from({ length: 10 }, (_, j) => [j + 2, 1, 0, 0] as const);
 * const claim = { point, value: evaluateMultilinear(evaluations, point) };
 * const committed = whirCommit(evaluations);
 * whirVerify(committed.commitment, [claim], whirOpen(committed, [claim])); // { ok: true }
 * ```
 */
export {
  whirCommit,
  whirOpen,
  whirVerify,
  acceptedWhirSets,
  type WhirCommitted,
  type WhirAcceptance,
  type WhirVerifyOptions,
  releaseWhirState,
  whirCommitOn,
  whirOpenOn,
  type WhirCommitOptions,
  type WhirOpenOptions,
  type WhirProverState,
  type WhirAdversary,
  useDefaultPcsWorkers,
  defaultPcsWorkers,
  type PcsMerkleWorkers,
  type PcsWorkersProvider,
  whirReadCommitmentOn,
  whirVerifyOn,
  type WhirReadCommitment,
  encodeWhirCommitment,
  decodeWhirCommitment,
  encodeWhirProof,
  decodeWhirProof,
  WHIR_COMMITMENT_MAGIC,
  WHIR_PROOF_MAGIC,
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
  type SoundnessRegime,
  type WhirRound,
  type WhirSchedule,
  whirSecurity,
  type WhirSecurityReport,
  type WhirRegimeSecurity,
  type WhirSecurityTerm,
  EXTENSION_FIELD_BITS,
  PcsError,
  PCS_ERROR_CODES,
  PCS_REJECT_CODES,
  type PcsErrorCode,
  type PcsRejectCode,
  type CommittedWidth,
  type WhirAnyClaim,
  type WhirBlockClaim,
  type WhirBoundBlocksClaim,
  type WhirClaim,
  type WhirCommitment,
  type WhirProof,
  type WhirRoundProof,
  type WhirVerdict,
  type WhirWeightBlock,
  whirCommitHiding,
  whirOpenHiding,
  whirVerifyHiding,
  type WhirHidingCommitted,
  releaseWhirHidingState,
  whirCommitHidingOn,
  whirOpenHidingOn,
  type WhirHidingCommitOptions,
  type WhirHidingProverState,
  type WhirHidingAdversary,
  whirReadHidingCommitmentOn,
  whirVerifyHidingOn,
  type WhirReadHidingCommitment,
  encodeWhirHidingCommitment,
  decodeWhirHidingCommitment,
  encodeWhirHidingProof,
  decodeWhirHidingProof,
  WHIR_HIDING_COMMITMENT_MAGIC,
  WHIR_HIDING_PROOF_MAGIC,
  WHIR_HIDING_WIDTH_CODE,
  whirHidingSchedule,
  whirHidingSecurity,
  minHidingVariables,
  type WhirHidingSchedule,
  type WhirHidingSecurityReport,
  cryptoRandomSource,
  whirSeededRandomSource,
  WHIR_SEED_DOMAIN_TAG,
  type WhirRandomSource,
  type WhirHidingCommitment,
  type WhirHidingProof,
  evaluateMultilinear,
} from "./pcs/index.js";

export {
  createPcsPool,
  PcsPool,
  type PcsPoolOptions,
  installDefaultPcsPool,
  uninstallDefaultPcsPool,
  defaultPcsThreads,
} from "./pcs-workers/index.js";

import { installKernelBackend } from "./kernels/backend.js";
import { installDefaultPcsPool } from "./pcs-workers/index.js";

installKernelBackend();
installDefaultPcsPool();
