/**
 * The permutation used by default for sequential hashing (the transcript, h_node, h_leaf): this
 * thread's hashing backend (src/hash/backend.ts) — the WASM single-state kernel once
 * `installKernelBackend()` (src/kernels/backend.ts) has injected it and the module is available,
 * otherwise the TypeScript reference `permuteInPlace`. Both compute compat-v1 §3 exactly; the
 * differential tests in test/kernels/hash-kernels.test.ts compare them.
 */
import { currentHashBackend } from "./backend.js";

/** A Poseidon2 permutation applied in place to 16 canonical words. */
export type Permutation = (state: Uint32Array) => void;

/**
 * Poseidon2 (§3) in place on 16 canonical words (not validated), with this thread's hashing
 * backend (a lazily injected WASM backend is compiled on the first call).
 */
export function permuteFast(state: Uint32Array): void {
  currentHashBackend().permute(state);
}

/** Which implementation `permuteFast`, `compress` and `sponge` use in this thread. */
export function hashBackend(): "wasm" | "typescript" {
  return currentHashBackend().name;
}
