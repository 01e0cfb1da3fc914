/**
 * The permutation used by default for sequential hashing (the transcript, h_node, h_leaf): the
 * single-state WASM kernel (src/kernels/hash-kernels.ts) when the kernel module is available,
 * otherwise the TypeScript reference `permuteInPlace`. Both compute compat-v1 §3 exactly; the
 * differential tests in test/kernels/hash-kernels.test.ts compare them.
 */
import { hashKernels } from "../kernels/hash-kernels.js";
import { permuteInPlace } from "./poseidon2.js";

/** A Poseidon2 permutation applied in place to 16 canonical words. */
export type Permutation = (state: Uint32Array) => void;

let resolved: Permutation | undefined;

function resolve(): Permutation {
  const hk = hashKernels();
  return hk ? (s) => hk.permute(s) : permuteInPlace;
}

/**
 * Poseidon2 (§3) in place on 16 canonical words (not validated), with the fastest available
 * implementation; the WASM module is loaded synchronously on the first call.
 */
export function permuteFast(state: Uint32Array): void {
  (resolved ??= resolve())(state);
}

/** Which implementation `permuteFast`, `compress` and `sponge` use in this thread. */
export function hashBackend(): "wasm" | "typescript" {
  return hashKernels() ? "wasm" : "typescript";
}
