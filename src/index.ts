/**
 * `statesync-gkr`: prove and verify sparse-Merkle-tree statements (membership, non-membership,
 * update) with the compat-v1 profile of StateSync-GKR — what a prover or a verifier needs.
 * The registry lives in `statesync-gkr/registry`, serving in `statesync-gkr/serve`, profile v2
 * in `statesync-gkr/v2`, the WHIR polynomial commitment in `statesync-gkr/pcs`, and the
 * low-level field / hash / transcript / sumcheck / GKR engine in `statesync-gkr/engine`.
 *
 * @example
 * ```ts
 * import { prepare, goldenFixture, provePrepared, encodeSyncResult, verifyEncoded } from "statesync-gkr";
 * const prepared = prepare("membership", { depth: 24 });
 * const request = goldenFixture("membership", 24, 5n);
 * const bytes = encodeSyncResult(prepared, provePrepared(prepared, request));
 * verifyEncoded(prepared, request, bytes); // { ok: true }
 * ```
 */

// Errors: every error thrown is an SsgkrError with a stable `code`.
export { SsgkrError } from "./errors.js";
export type { ErrorCode } from "./error-catalogue.js";
export type { LibraryErrorCode } from "./error-codes.js";
export { SyncError } from "./statement/errors.js";
export { SmtError, CompileError } from "./smt/errors.js";
export { CircuitError } from "./gkr/errors.js";
export { FieldError } from "./field/errors.js";
export { KernelError } from "./kernels/errors.js";
export { ParallelError, JobError } from "./sync/parallel/errors.js";
export { DecodeError, EncodeError, type DecodeErrorCode, type EncodeErrorCode } from "./codec/errors.js";

// Values: field elements and digests.
export { P } from "./field/koalabear.js";
export { type Digest, digestEquals } from "./hash/digest.js";

// Statements: kinds, configuration, public inputs.
export {
  OpKind,
  OP_KIND_NAMES,
  opKindTag,
  opKindOf,
  type OpKindName,
  type OpKindTag,
  type PublicInputs,
  type CircuitIdentity,
} from "./statement/types.js";
export { DEFAULT_CONFIG, syncConfig, type SyncConfig, type LayerStrategy } from "./smt/config.js";
export type { Operation, MembershipOp, NonMembershipOp, UpdateOp, Witness, OpRequest } from "./smt/operation.js";
export {
  LeafTag,
  EMPTY,
  TOMBSTONE,
  occupied,
  hashLeaf,
  leafEquals,
  describeLeaf,
  DEFAULT_LEAF_MAX_FIELDS,
  type Leaf,
  type EmptyLeaf,
  type OccupiedLeaf,
  type TombstoneLeaf,
} from "./smt/leaf.js";
export { SparseMerkleTree, type TreeOptions, type UpdateRecord } from "./smt/tree.js";
export { computeRoot, DEFAULT_DEPTH, MAX_DEPTH } from "./smt/path.js";
export { checkOperation, checkStatement, type Verdict, type VerdictCode } from "./smt/semantics.js";

// Proving and verifying.
export { prepare, type PreparedSync, type PrepareOptions } from "./sync/prepared.js";
export { prepareAll, type PreparedAll, type PrepareAllOptions } from "./sync/prepare-all.js";
export { provePrepared, proveSync, type SyncResult } from "./sync/prove.js";
export { verifyPrepared, verifySync, type SyncVerdict } from "./sync/verify.js";
export { encodeSyncResult, verifyEncoded } from "./sync/encoded.js";
export { verifyRequestProof, declaredIdentityDifferences, type VerifyRequestOptions } from "./sync/verify-request.js";
export {
  PreparedCache,
  defaultPreparedCache,
  type PreparedCacheOptions,
  type PreparedCacheStats,
} from "./sync/prepared-cache.js";
export { maxProofBytes, MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS, MAX_REQUEST_BYTES } from "./sync/limits.js";
export { checkLeafRules, type LeafRule, type LeafRuleViolation } from "./sync/input-rules.js";

// The counterparty's one-call checks of registry statements about names (no database code).
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
  type RootLike,
} from "./registry/verify-record.js";
export { nameKey, nameKeyBig, NAME_MAPPING_ID, SLOT_MAPPING_ID, DEFAULT_NAME_DEPTH } from "./registry/name-key.js";
// The check of a proof body as the HTTP API and the browser page exchange it ({statement, request, proof}).
export {
  checkProofBody,
  base64Bytes,
  bytesBase64,
  UNPINNED_NOTICE,
  type ProofBody,
  type BodyVerdict,
} from "./counterparty/body.js";
export type { StatementJson, ReadStatementJson, UpdateStatementJson } from "./counterparty/claim.js";
// The check of a profile v3 registry block as the HTTP API and the browser page exchange it ({block, proof}).
export { checkBlockBody, type BlockBody, type BlockBodyVerdict, type BlockRoots } from "./counterparty/block-body.js";
export { proveBatchSequential, type BatchOutcome } from "./sync/batch.js";
export {
  SyncPool,
  createSyncPool,
  proveBatch,
  verifyBatch,
  type SyncPoolOptions,
  type SyncPoolStats,
  type ProveOutcome,
  type VerifyOutcome,
  type VerifyItem,
  type ParallelBatchOptions,
} from "./sync/parallel/index.js";

// inner-proof-v1 bytes.
export {
  encodeProof,
  decodeProof,
  identityEquals,
  encodedProofSize,
  expectedEncodedSize,
  type EncodedResult,
} from "./codec/index.js";

// Request files and fixtures.
export {
  parseRequest,
  parseRequestText,
  requestToJson,
  RequestError,
  type SyncRequest,
  type RequestLeaf,
} from "./sync/request.js";
export { toOpRequest, fromOpRequest } from "./sync/request-convert.js";
export { goldenFixture, type GoldenFixture } from "./smt/fixture.js";
export { corpusRequest, corpus, type CorpusFixture } from "./serve/fixtures/corpus.js";

// Roots in their one text form: 64 hex characters, the 32 bytes of the 8 elements (little-endian u32 each).
export { formatRoot, rootBytes, rootFromBytes } from "./registry/root.js";
import { installKernelBackend } from "./kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
