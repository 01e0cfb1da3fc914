/**
 * Poseidon2 (compat-v1 §3) on many independent states at once: the WASM SIMD kernel
 * `poseidon2_permute` (src/kernels/assembly/poseidon2.ts, four states side by side) over a private
 * kernel memory of this thread, or the TypeScript reference `permuteInPlace` when the kernel module
 * is not available. Both compute the same states (test/hash/permute-batch.test.ts).
 */
import { Kernels } from "../kernels/kernels.js";
import type { Region } from "../kernels/memory.js";
import { KernelError } from "../kernels/errors.js";
import { WIDTH, permuteInPlace } from "./poseidon2.js";

/** Applies Poseidon2 in place to states[16i, 16i + 16) for i < n (canonical words, not validated). */
export type BatchPermute = (states: Uint32Array, n: number) => void;

/** The TypeScript reference: one `permuteInPlace` per state. */
export function permuteBatchReference(states: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) permuteInPlace(states.subarray(WIDTH * i, WIDTH * i + WIDTH));
}

class WasmBatch {
  private readonly kernels = Kernels.create({ initialPages: 64 });
  private region: Region | undefined;

  permute(states: Uint32Array, n: number): void {
    const words = WIDTH * n;
    if (words === 0) return;
    if (this.region === undefined || this.region.words < words) {
      if (this.region !== undefined) this.kernels.heap.release(this.region);
      this.region = this.kernels.heap.alloc(Math.max(words, WIDTH * 1024));
    }
    const view = this.region.view();
    view.set(states.subarray(0, words));
    this.kernels.instance.poseidon2Permute(this.region, n);
    states.set(this.region.view().subarray(0, words));
  }
}

let resolved: BatchPermute | undefined;

function resolve(): BatchPermute {
  try {
    const w = new WasmBatch();
    return (s, n) => w.permute(s, n);
  } catch (e) {
    if (e instanceof KernelError) return permuteBatchReference;
    throw e;
  }
}

/**
 * Poseidon2 in place on n states stored back to back (16 canonical words each, not validated),
 * with the fastest available implementation; the kernel module is loaded on the first call.
 */
export function permuteBatch(states: Uint32Array, n: number): void {
  (resolved ??= resolve())(states, n);
}

/** Which implementation `permuteBatch` uses in this thread. */
export function permuteBatchBackend(): "wasm" | "typescript" {
  resolved ??= resolve();
  return resolved === permuteBatchReference ? "typescript" : "wasm";
}
