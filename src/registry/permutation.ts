/**
 * The batched Poseidon2 permutation the registry hashes with (compat-v1 §3): n independent
 * 16-lane states per call. Two interchangeable implementations: the WASM SIMD kernel of
 * src/kernels (`Kernels`, four permutations side by side) and the TypeScript reference
 * (`permuteInPlace` of src/hash). Both give identical results (test/registry/permutation.test.ts).
 */
import { permuteInPlace, WIDTH, RATE } from "../hash/poseidon2.js";
import { Kernels } from "../kernels/kernels.js";
import type { Region } from "../kernels/memory.js";

export interface BatchPermutation {
  /** "wasm" or "typescript". */
  readonly kind: string;
  /** Applies Poseidon2 in place to states[16i, 16i + 16) for i < n; words must be canonical. */
  permute(states: Uint32Array, n: number): void;
}

/** The TypeScript reference: one `permuteInPlace` per state. */
export function typescriptPermutation(): BatchPermutation {
  return {
    kind: "typescript",
    permute(states: Uint32Array, n: number): void {
      for (let i = 0; i < n; i++) permuteInPlace(states.subarray(WIDTH * i, WIDTH * i + WIDTH));
    },
  };
}

class WasmPermutation implements BatchPermutation {
  readonly kind = "wasm";
  private readonly kernels: Kernels;
  private region: Region | undefined;

  constructor() {
    this.kernels = Kernels.create({ initialPages: 64 });
  }

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

/**
 * The WASM kernel permutation (own memory and instance; one per thread).
 * @throws KernelError `MODULE_MISSING` if the kernel module was not built.
 */
export function wasmPermutation(): BatchPermutation {
  return new WasmPermutation();
}

/** The WASM kernel if its module is built, else the TypeScript reference. */
export function defaultPermutation(): BatchPermutation {
  try {
    return wasmPermutation();
  } catch {
    return typescriptPermutation();
  }
}

/**
 * h_node on n pairs: pairs[16i, 16i + 8) is the left child and [16i + 8, 16i + 16) the right;
 * returns the n parent digests (8n words). `pairs` is overwritten.
 */
export function compressPairs(perm: BatchPermutation, pairs: Uint32Array, n: number): Uint32Array {
  perm.permute(pairs, n);
  const out = new Uint32Array(RATE * n);
  for (let i = 0; i < n; i++) out.set(pairs.subarray(WIDTH * i, WIDTH * i + RATE), RATE * i);
  return out;
}
