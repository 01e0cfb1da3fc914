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
export * from "./field/index.js";
export * from "./hash/index.js";
export * from "./transcript/index.js";
export { SumcheckError } from "./sumcheck/errors.js";
export * from "./sumcheck/interpolate.js";
export { MAX_TABLE_BITS, eqTable, eqAt, betaAt, foldBase, foldExtInPlace, mleEvalBase, mleEvalExt, mleEvalByDefinition } from "./sumcheck/mle.js";
export type { RoundMessage, SumcheckOracle } from "./sumcheck/oracle.js";
export * from "./sumcheck/prover.js";
export * from "./sumcheck/verifier.js";
export * from "./gkr/circuit.js";
export * from "./gkr/proof.js";
export * from "./gkr/errors.js";
export * from "./gkr/claims.js";
export * from "./gkr/layer-oracle.js";
export * from "./gkr/sparse-oracle.js";
export * from "./gkr/prover.js";
export * from "./gkr/shape.js";
export * from "./gkr/wiring/oracle.js";
export * from "./gkr/wiring/table.js";
export * from "./gkr/verifier.js";
export * from "./gkr/input-claim.js";
export * from "./gkr/proof-bytes.js";
export * from "./gkr/builder.js";
export * from "./gkr/wiring/derived.js";
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
