/**
 * `statesync-gkr/engine`: the low-level proof engine for people building their own layered
 * circuits — the KoalaBear field and its degree-4 extension, Poseidon2 width 16 and its sponge,
 * the duplex-challenger transcript, sumcheck, the GKR prover and verifier with their layer
 * oracles and wiring predicates, and the WebAssembly kernels (compat-v1 §3–§10).
 *
 * @example
 * ```ts
 * import { CircuitBuilder, evaluateCircuit, proveGkr, verifyGkr, shapeOf, TableWiring, DuplexChallenger } from "statesync-gkr/engine";
 * ```
 */
export {
  FieldError,
  add,
  sub,
  neg,
  mul,
  square,
  cube,
  pow,
  inverse,
  batchInverse,
  fromU32,
  fromU64,
  element,
  isCanonical,
  random,
  P,
  GENERATOR,
  TWO_ADICITY,
  vecAdd,
  vecSub,
  vecMul,
  vecScale,
  innerProduct,
  embed,
  ext,
  extAdd,
  extSub,
  extNeg,
  extScale,
  extMul,
  extSquare,
  extEq,
  extIsZero,
  extInverse,
  extPow,
  extRandom,
  W,
  DTH_ROOT,
  EXT_ZERO,
  EXT_ONE,
  ExtVector,
  encodeElements,
  decodeElements,
  type Ext,
} from "./field/index.js";
export {
  typescriptHashBackend,
  useHashBackend,
  currentHashBackend,
  externalLinearLayer,
  internalLinearLayer,
  permuteInPlace,
  permute,
  WIDTH,
  RATE,
  M4,
  digest,
  digestEquals,
  compress,
  sponge,
  compressReference,
  spongeReference,
  permuteFast,
  hashBackend,
  type HashBackend,
  type HashBackendProvider,
  type Digest,
  type Permutation,
} from "./hash/index.js";
/** The Poseidon2 constants of compat-v1 (Plonky3 0.4.x KoalaBear width 16): round constants and the internal diagonal, canonical. */
export * as poseidon2Constants from "./hash/poseidon2-constants.js";
export {
  DuplexChallenger,
  PROOF_DOMAIN_TAG,
  COMMITMENT_DOMAIN_TAG,
  PROOF_DIGEST_DOMAIN_TAG,
  PCS_DOMAIN_TAG,
} from "./transcript/index.js";
export { SumcheckError } from "./sumcheck/errors.js";
export { interpolateRoundPoly, evalRoundPoly, roundSum, ROUND_POLY_COEFFS } from "./sumcheck/interpolate.js";
export {
  MAX_TABLE_BITS,
  eqTable,
  eqAt,
  betaAt,
  foldBase,
  foldExtInPlace,
  mleEvalBase,
  mleEvalExt,
  mleEvalByDefinition,
} from "./sumcheck/mle.js";
export type { RoundMessage, SumcheckOracle } from "./sumcheck/oracle.js";
export { proveSumcheck, MAX_ROUND_DEGREE, type SumcheckProof } from "./sumcheck/prover.js";
export {
  verifySumcheck,
  SUMCHECK_REJECT_CODES,
  type SumcheckRejectCode,
  type SumcheckRejection,
  type SumcheckSubclaim,
  type SumcheckVerifyResult,
} from "./sumcheck/verifier.js";
export {
  widthBits,
  gateCount,
  constCount,
  gateAt,
  inputBitsOf,
  makeLayer,
  validateCircuit,
  evaluateLayer,
  padInput,
  evaluateCircuit,
  GateKind,
  type Gate,
  type Layer,
  type Circuit,
} from "./gkr/circuit.js";
export type { RoundPoly, LayerProof, GkrProof, InputClaim } from "./gkr/proof.js";
export { CircuitError, CIRCUIT_ERROR_CODES, type CircuitErrorCode } from "./gkr/errors.js";
export { claimWeights, type Claim } from "./gkr/claims.js";
export type { LayerOracleInput, LayerSumcheckOracle, LayerOracleFactory } from "./gkr/layer-oracle.js";
export { SparseLayerOracle, sparseLayerOracle, type SparseOracleExtension } from "./gkr/sparse-oracle.js";
export {
  proveGkr,
  defaultLayerOracleFactory,
  type LayerProveStats,
  type ProveGkrOptions,
  type GkrProveResult,
} from "./gkr/prover.js";
export { shapeOf, shapeInputBits, type CircuitShape } from "./gkr/shape.js";
export { combinedPredicates, combinedConst, type LayerPredicates, type WiringOracle } from "./gkr/wiring/oracle.js";
export { TableWiring } from "./gkr/wiring/table.js";
export {
  verifyGkr,
  GKR_REJECT_CODES,
  type GkrRejectCode,
  type GkrRejection,
  type GkrVerifyResult,
} from "./gkr/verifier.js";
export { checkInputClaim } from "./gkr/input-claim.js";
export { gkrProofBytes } from "./gkr/proof-bytes.js";
export {
  NodeKind,
  CircuitBuilder,
  type NodeId,
  type Term,
  type Tap,
  type ScopeTag,
  type FamilyPlacement,
  type LayerTags,
  type CircuitTags,
  type BuiltCircuit,
} from "./gkr/builder.js";
export { DerivedRegularWiring, type DerivedWiringOptions, type DerivedWiringStats } from "./gkr/wiring/derived.js";
export { WasmLayerOracle, wasmLayerOracle, wasmLayerOracleFactory } from "./gkr/wasm/oracle.js";
export { evaluateCircuitFast } from "./gkr/wasm/evaluate.js";
export { KernelError } from "./kernels/errors.js";
export { kernelModule, instantiateKernels, type KernelExports } from "./kernels/loader.js";
export { Kernels, defaultKernels } from "./kernels/kernels.js";
export { HashKernels, hashKernels } from "./kernels/hash-kernels.js";
export { installKernelBackend, installedKernelBackend, type KernelBackendChoice } from "./kernels/backend.js";
export { SsgkrError } from "./errors.js";
import { installKernelBackend } from "./kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
