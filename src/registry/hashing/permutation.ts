/**
 * The batched Poseidon2 permutation the registry hashes with (compat-v1 §3): n independent
 * 16-lane states per call. Two interchangeable implementations: the WASM SIMD kernel of
 * src/kernels (`Kernels`, four permutations side by side) and the TypeScript reference
 * (`permuteInPlace` of src/hash). Both give identical results (test/registry/permutation.test.ts).
 */
import { permuteInPlace, WIDTH, RATE } from "../../hash/poseidon2.js";
import { P } from "../../field/koalabear.js";
import { RegistryError } from "../errors.js";
import { Kernels } from "../../kernels/kernels.js";
import type { Region } from "../../kernels/memory.js";

/** Poseidon2 applied in place to n states of 16 canonical words (the registry's hashing seam: WASM or the TypeScript reference). */
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

/** True iff `perm` agrees with the TypeScript permutation on a few fixed states (5: one SIMD group and a partial one). */
export function agreesWithReference(perm: BatchPermutation): boolean {
  const n = 5;
  const states = new Uint32Array(WIDTH * n);
  for (let i = 0; i < states.length; i++) states[i] = (Math.imul(i + 1, 0x9e3779b1) >>> 0) % P;
  const expected = states.slice();
  typescriptPermutation().permute(expected, n);
  perm.permute(states, n);
  for (let i = 0; i < states.length; i++) if (states[i] !== expected[i]) return false;
  return true;
}

/**
 * The WASM kernel permutation (own memory and instance; one per thread), checked against the
 * TypeScript reference on creation.
 * @throws KernelError `MODULE_MISSING` if the kernel module was not built; RegistryError
 * `KERNEL_MISMATCH` if it disagrees with the reference.
 */
export function wasmPermutation(): BatchPermutation {
  const perm = new WasmPermutation();
  if (!agreesWithReference(perm))
    throw new RegistryError(
      "KERNEL_MISMATCH",
      "the WASM Poseidon2 kernel disagrees with the TypeScript permutation; rebuild it with `npm run build:kernels`",
    );
  return perm;
}

/** The WASM kernel if its module is built and agrees with the reference, else the TypeScript reference. */
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
