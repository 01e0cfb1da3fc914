/**
 * Poseidon2 (compat-v1 §3) on many independent states at once: the hashing backend's
 * `permuteMany` (the WASM SIMD kernel, four states side by side, when the kernels are installed),
 * or the TypeScript reference `permuteInPlace`. Both compute the same states (test/hash/permute-batch.test.ts).
 */
import { currentHashBackend } from "./backend.js";
import { WIDTH, permuteInPlace } from "./poseidon2.js";

/** Applies Poseidon2 in place to states[16i, 16i + 16) for i < n (canonical words, not validated). */
export type BatchPermute = (states: Uint32Array, n: number) => void;

/** The TypeScript reference: one `permuteInPlace` per state. */
export function permuteBatchReference(states: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) permuteInPlace(states.subarray(WIDTH * i, WIDTH * i + WIDTH));
}

/**
 * Poseidon2 in place on n states stored back to back (16 canonical words each, not validated),
 * with this thread's hashing backend (src/hash/backend.ts: the WASM kernels once
 * `installKernelBackend()` has injected them, else the TypeScript reference).
 */
export function permuteBatch(states: Uint32Array, n: number): void {
  currentHashBackend().permuteMany(states, n);
}

/** Which implementation `permuteBatch` uses in this thread. */
export function permuteBatchBackend(): "wasm" | "typescript" {
  return currentHashBackend().name;
}
