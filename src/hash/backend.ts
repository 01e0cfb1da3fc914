/**
 * The hashing backend seam: where `permuteFast`, `compress`, `sponge` (and so the transcript,
 * h_node and h_leaf) get their Poseidon2 implementation. This folder never imports the kernels:
 * the plain TypeScript reference (`typescriptHashBackend`) is the default, and the WASM kernels
 * are injected from outside through `useHashBackend`, by `installKernelBackend()`
 * (src/kernels/backend.ts), the one place that chooses the backend.
 *
 * Every backend computes compat-v1 §3–4 exactly; test/kernels/hash-kernels.test.ts compares the
 * WASM backend with this reference.
 */
import { RATE, WIDTH, permuteInPlace } from "./poseidon2.js";

/** One implementation of the §3 permutation and the §4 compression and sponge. Inputs are canonical (not validated). */
export interface HashBackend {
  /** `"wasm"` for the WebAssembly kernels, `"typescript"` for the reference. */
  readonly name: "wasm" | "typescript";
  /** Poseidon2 in place on 16 canonical words. */
  permute(state: Uint32Array): void;
  /** Poseidon2 in place on n states of 16 words stored back to back (`states.length` ≥ 16n). */
  permuteMany(states: Uint32Array, n: number): void;
  /** h_node: the first 8 lanes of permute(left ‖ right), 8 + 8 canonical words in. */
  compress(left: ArrayLike<number>, right: ArrayLike<number>): Uint32Array;
  /** Padding-free overwrite sponge, rate 8, from the zero state: lanes 0..7 of the final state. */
  sponge(input: ArrayLike<number>): Uint32Array;
  /**
   * Duplex absorption of whole blocks (the transcript's fast path): for each of the `words / 8`
   * blocks of input[from, from + words), overwrite lanes 0..7 of the 16-word state with the block
   * and permute, in place. `words` is a multiple of 8; inputs canonical (not validated). Optional:
   * without it the transcript absorbs word by word.
   */
  absorbBlocks?(state: Uint32Array, input: ArrayLike<number>, from: number, words: number): void;
  /**
   * Proof-of-work search (the transcript's `grind`, docs/pcs.md §4.6): the least i < count such
   * that permuting `template` (16 canonical words, not changed) with word `lane` (< 8) set to
   * start + i gives word 7 & mask = 0, or −1 when none of the count candidates does. Requires
   * start + count ≤ p. Optional: without it the transcript grinds one candidate at a time on a clone
   * (`DuplexChallenger.grindReference`).
   */
  grindSearch?(template: Uint32Array, lane: number, mask: number, start: number, count: number): number;
}

/** TypeScript reference of `grindSearch`: one permutation per candidate. */
export function grindSearchReference(
  template: Uint32Array,
  lane: number,
  mask: number,
  start: number,
  count: number,
): number {
  const s = new Uint32Array(WIDTH);
  for (let i = 0; i < count; i++) {
    s.set(template);
    s[lane] = start + i;
    permuteInPlace(s);
    if ((s[7]! & mask) === 0) return i;
  }
  return -1;
}

/** TypeScript reference of `compress` (compat-v1 §4). */
export function compressReference(left: ArrayLike<number>, right: ArrayLike<number>): Uint32Array {
  const s = new Uint32Array(WIDTH);
  for (let i = 0; i < RATE; i++) {
    s[i] = left[i]!;
    s[RATE + i] = right[i]!;
  }
  permuteInPlace(s);
  return s.slice(0, RATE);
}

/** TypeScript reference of `sponge` (compat-v1 §4). */
export function spongeReference(input: ArrayLike<number>): Uint32Array {
  const s = new Uint32Array(WIDTH);
  const n = input.length;
  for (let off = 0; off < n; off += RATE) {
    const end = Math.min(n, off + RATE);
    for (let i = off; i < end; i++) s[i - off] = input[i]!;
    permuteInPlace(s);
  }
  return s.slice(0, RATE);
}

/** The plain TypeScript reference backend (src/hash/poseidon2.ts), always available. */
export const typescriptHashBackend: HashBackend = Object.freeze({
  name: "typescript" as const,
  permute: permuteInPlace,
  permuteMany(states: Uint32Array, n: number): void {
    for (let i = 0; i < n; i++) permuteInPlace(states.subarray(16 * i, 16 * i + 16));
  },
  compress: compressReference,
  sponge: spongeReference,
  grindSearch: grindSearchReference,
  absorbBlocks(state: Uint32Array, input: ArrayLike<number>, from: number, words: number): void {
    for (let off = 0; off < words; off += RATE) {
      for (let j = 0; j < RATE; j++) state[j] = input[from + off + j]!;
      permuteInPlace(state);
    }
  },
});

/** A backend made on first use; `null` (e.g. the kernel module is unavailable) selects the reference. */
export type HashBackendProvider = () => HashBackend | null;

let provider: HashBackendProvider | null = null;
let current: HashBackend | undefined;

/**
 * Selects this thread's hashing backend: a backend, a provider called on first use (lazy: nothing
 * is compiled until something hashes), or `null` for the TypeScript reference.
 * @example
 *   useHashBackend(typescriptHashBackend); // hash in TypeScript from now on
 */
export function useHashBackend(backend: HashBackend | HashBackendProvider | null): void {
  if (typeof backend === "function") {
    provider = backend;
    current = undefined;
  } else {
    provider = null;
    current = backend ?? typescriptHashBackend;
  }
}

/** The backend this thread hashes with (resolving a pending provider once). */
export function currentHashBackend(): HashBackend {
  return current ?? resolve();
}

function resolve(): HashBackend {
  const p = provider;
  provider = null;
  return (current = (p ? p() : null) ?? typescriptHashBackend);
}
