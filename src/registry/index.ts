/**
 * `statesync-gkr/registry`: the persistent registry — name-keyed (`NameStore`) and slot
 * (`RegistryStore`) stores on LMDB, record → leaf mapping, bulk import of record sources (the
 * offline npm-repos dataset among them), planned updates, statements proved from a registry and
 * the counterparty's one-call checks (docs/registry.md).
 *
 * @example
 * ```ts
 * import { NameStore, planNameInsert, proveNameStatement } from "statesync-gkr/registry";
 * const store = NameStore.openOrCreate("registry");
 * planNameInsert(store, "left-pad", "https://github.com/left-pad/left-pad").commit();
 * const { request, proof } = proveNameStatement(store, "membership", "left-pad");
 * ```
 */
export { RegistryError, REGISTRY_ERROR_CODES, type RegistryErrorCode } from "./errors.js";
export {
  maxValueFields,
  encodingLength,
  isWellFormedString,
  nameBytes,
  checkNameBytes,
  checkTextBytes,
  checkFields,
  textCode,
  nameIdentity,
  valuePayload,
  recordLeaf,
  describeValue,
  ValueCode,
  ValueForm,
  MAX_NAME_BYTES,
  MAX_TEXT_BYTES,
  TEXT_PAYLOAD_FIELDS,
  MIN_REGISTRY_LEAF_MAX_FIELDS,
  MAPPING_ID,
  type RecordValue,
} from "./mapping.js";
export {
  RegistryStore,
  checkRegistryConfig,
  defaultDigests,
  MAX_REGISTRY_DEPTH,
  type RegistryConfig,
  type RegistryHead,
  type HistoryEntry,
  type SlotState,
  type OpenOptions,
} from "./store/store.js";
export {
  resolveTarget,
  planInsert,
  planReplace,
  planDelete,
  planRestore,
  insertRecord,
  replaceRecord,
  deleteRecord,
  restoreRecord,
  type RecordTarget,
  type UpdateKind,
  type UpdateResult,
  type PlannedUpdate,
} from "./operations.js";
export { proveStatement, REGISTRY_STATEMENTS, type RegistryStatement, type RegistryProof } from "./prove.js";
export {
  importRecords,
  type ImportOptions,
  type ImportReport,
  type ImportIssue,
  type ImportProgress,
  type ImportTimings,
} from "./import/import.js";
export {
  packageRoot,
  npmReposSubsetPath,
  npmReposCachePath,
  npmReposFullPath,
  npmReposSource,
  fileSource,
  NPM_REPOS_PACKAGE,
  NPM_REPOS_VERSION,
  NPM_REPOS_RECORDS,
  NPM_REPOS_SUBSET_RECORDS,
} from "./import/dataset.js";
export type { RecordSource, RecordSink } from "./import/sources/source.js";
export { RecordState, type StoredRecord } from "./store/record-codec.js";
export { upgradeRegistry, type UpgradeReport } from "./store/upgrade.js";
export type { Retention } from "./store/name-versions.js";
export {
  checkRegistry,
  type CheckOptions,
  type CheckProgress,
  type CheckReport,
  type NonNfcRecord,
} from "./store/check.js";
export {
  nfcFormOf,
  requireNfcName,
  nameNotice,
  nameNotNfcError,
  nonNfcClaimReason,
  codePoints,
  spelled,
} from "./name-form.js";
export {
  NAME_MAPPING_ID,
  SLOT_MAPPING_ID,
  DEFAULT_NAME_DEPTH,
  MAX_NAME_DEPTH,
  nameKey,
  nameKeyBig,
  expectedCollisions,
} from "./name-key.js";
export {
  NameStore,
  checkNameConfig,
  peekRegistryMapping,
  type NameRegistryConfig,
  type NameCreateOptions,
  type ProvableWindow,
  type NameHead,
  type NameHistoryEntry,
  type NameLookup,
  type NameState,
} from "./store/name-store.js";
export { importNames, type NameImportOptions, type NameImportReport } from "./import/name-import.js";
export {
  planNameInsert,
  planNameReplace,
  planNameDelete,
  planNameRestore,
  planNameUpdate,
  type NameUpdateKind,
  type PlannedNameUpdate,
} from "./name-operations.js";
export { proveNameStatement, nameReadRequest, type NameProof, type NameProveOptions } from "./name-prove.js";
export { openRegistry, registryMapping, type AnyRegistry } from "./store/open-any.js";
export {
  verifyRecordProof,
  verifyRecordUpdateProof,
  parseRoot,
  type RecordClaim,
  type RecordUpdateClaim,
  type RecordVerdict,
  type RecordProofProfile,
  type NameSide,
  type RequestInput,
} from "./verify-record.js";
/** A root in its one text form (64 hex characters) and its 32 bytes: see `formatRoot`, `rootBytes`, `rootFromBytes`. */
export { formatRoot, rootBytes, rootFromBytes, ROOT_BYTES } from "./root.js";
/** Signed checkpoints (C2SP tlog-checkpoint, signed-note Ed25519): verify, sign, keys. */
export {
  verifyCheckpoint,
  checkpointText,
  parseCheckpointText,
  type CheckpointBody,
  type CheckpointVerdict,
} from "./checkpoint/checkpoint.js";
export { parseVerifierKey, formatVerifierKey, keyHash, type VerifierKey } from "./checkpoint/note.js";
export {
  generateSigningKey,
  readSigningKey,
  signCheckpoint,
  DEFAULT_ORIGIN,
  type SigningKey,
} from "./checkpoint/signing-key.js";
export type { Trust } from "./verify-record.js";
/** Consistency between checkpoints: the background block prover and the check of a chain. */
export {
  BlockProver,
  batchProofState,
  proveBatch,
  type BatchProofState,
  type BlockProverOptions,
  type BlockProofKeeper,
} from "./consistency/block-prover.js";
export {
  verifyConsistency,
  CONSISTENCY_REJECT_CODES,
  MONITOR_REJECT_CODES,
  type ChainEnd,
  type ConsistencyLink,
  type ConsistencyRejectCode,
  type ConsistencyVerdict,
  type MonitorRejectCode,
} from "./consistency/verify-consistency.js";
/** Blocks: the bounds on one block proof, and blocks of any size proved in parts. */
export { MAX_BLOCK_UPDATES } from "./block-limits.js";
export { maxBlockUpdates, blockParts } from "./block-size.js";
export { maxZkBlockUpdates } from "./block-v3.js";
export {
  proveBlockToDir,
  proveBlockToDirInParallel,
  type BlockDirOptions,
  type BlockProfile,
  type BlockStep,
  type BlockWritten,
} from "./block-dir.js";
export { batchBlockParts, batchPartUpdates } from "./consistency/replay.js";
export { parseBlockUpdates, type BlockUpdate } from "./name-block.js";
export { monitorStep, type MonitoredCheckpoint, type MonitorStep } from "./consistency/monitor-step.js";
export type { LoggedChange, ChangeHeader } from "./store/change-log.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
