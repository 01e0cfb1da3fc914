export * from "./errors.js";
export * from "./mapping.js";
export { checkLmdbFile } from "./store/lmdb-header.js";
export { RegistryStore, checkRegistryConfig, defaultDigests, MAX_REGISTRY_DEPTH, type RegistryConfig, type RegistryHead, type HistoryEntry, type SlotState, type OpenOptions } from "./store/store.js";
export * from "./operations.js";
export * from "./prove.js";
export { importRecords, type ImportOptions, type ImportReport, type ImportIssue, type ImportProgress, type ImportTimings } from "./import/import.js";
export * from "./import/dataset.js";
export type { RecordSource, RecordSink } from "./import/sources/source.js";
export { RecordState, type StoredRecord } from "./store/record-codec.js";
export { KeccakBatch } from "../kernels/keccak-batch.js";
export { LeafHasher } from "./hashing/leaf-hasher.js";
export { typescriptPermutation, wasmPermutation, defaultPermutation, type BatchPermutation } from "./hashing/permutation.js";
export { upgradeRegistry, type UpgradeReport } from "./store/store.js";
export { checkRegistry, type CheckOptions, type CheckProgress, type CheckReport } from "./store/check.js";
export { createDirectoryAtomically, creationInProgress, removeStaleCreations } from "./store/atomic-create.js";
export { sealRow, sealInPlace, openRow, tryOpenRow, crc32Range, ROW_CHECKSUM_BYTES, ROW_CHECKSUM_ID } from "./store/row-checksum.js";
export { NAME_MAPPING_ID, SLOT_MAPPING_ID, DEFAULT_NAME_DEPTH, MAX_NAME_DEPTH, nameKey, nameKeyBig, expectedCollisions } from "./name-key.js";
export { NameStore, checkNameConfig, peekRegistryMapping, type NameRegistryConfig, type NameHead, type NameHistoryEntry, type NameLookup, type NameState } from "./store/name-store.js";
export { importNames, type NameImportOptions, type NameImportReport } from "./import/name-import.js";
export { planNameInsert, planNameReplace, planNameDelete, planNameRestore, planNameUpdate, type NameUpdateKind, type PlannedNameUpdate } from "./name-operations.js";
export { proveNameStatement, nameReadRequest, type NameProof } from "./name-prove.js";
export { openRegistry, registryMapping, type AnyRegistry } from "./store/open-any.js";
export { verifyRecordProof, verifyRecordUpdateProof, parseRoot, type RecordClaim, type RecordUpdateClaim, type RecordVerdict, type NameSide, type RequestInput } from "./verify-record.js";
/** A root in its one text form (64 hex characters) and its 32 bytes: see `formatRoot`, `rootBytes`, `rootFromBytes`. */
export { formatRoot, rootBytes, rootFromBytes, ROOT_BYTES } from "./root.js";
/** Signed checkpoints (C2SP tlog-checkpoint, signed-note Ed25519): verify, sign, keys. */
export { verifyCheckpoint, checkpointText, parseCheckpointText, type CheckpointBody, type CheckpointVerdict } from "./checkpoint/checkpoint.js";
export { parseVerifierKey, formatVerifierKey, keyHash, type VerifierKey } from "./checkpoint/note.js";
export { generateSigningKey, readSigningKey, signCheckpoint, DEFAULT_ORIGIN, type SigningKey } from "./checkpoint/signing-key.js";
export type { Trust } from "./verify-record.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
