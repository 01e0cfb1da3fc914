/**
 * Sequential Poseidon2 hashing in WASM (compat-v1 §3–5): one permutation at a time for the duplex
 * transcript and the native hashes, sponges over word streams for the circuit commitment (§12),
 * and two or four independent sponges at once.
 *
 * Each thread gets its own `HashKernels` (`hashKernels()`): a private kernel memory (small at
 * first, grown for stream windows), one instance of the kernel module and the Poseidon2 constants
 * region. Nothing here is shared with `Kernels`/`defaultKernels`, so hashing never races with
 * kernels that other code runs on the process-wide shared memory.
 *
 * Kernel sources: src/kernels/assembly/sponge.ts. TypeScript reference: src/hash/poseidon2.ts
 * (`permuteInPlace`); differential tests in test/kernels/hash-kernels.test.ts.
 */
import type { HashBackend } from "../hash/backend.js";
import { KernelError } from "./errors.js";
import { kernelModule, kernelModuleEnabled } from "./loader.js";
import { KernelMemory, type Region } from "./memory.js";
import { poseidon2ConstantWords } from "./constants.js";
import {
  hashKernelExportNames,
  POSEIDON2_CONSTANT_WORDS,
  SPONGE_CONSTANT_WORDS,
  SPONGE_JOB_WORDS,
  type HashKernelExports,
} from "./abi.js";

/** Raw exports of the sequential hashing kernels (signatures generated into abi.ts). */
export type { HashKernelExports } from "./abi.js";

/**
 * Words of the extended constants region of the sequential kernels (the 148 Poseidon2 constants,
 * then the internal diagonal with Shoup companions and a lane mask written by the module's
 * `sponge_constants_init`), of a multi-sponge job region, and the word offsets inside a job region
 * (lane states, lane (pointer, count) pairs): layouts in abi.ts.
 */
export { SPONGE_CONSTANT_WORDS, SPONGE_JOB_WORDS, JOB_STATES, JOB_LANES } from "./abi.js";

const REQUIRED_EXPORTS = hashKernelExportNames() as readonly (keyof HashKernelExports)[];

/** Initial pages of a hashing memory (1 MiB); it grows on demand. */
const INITIAL_PAGES = 16;
/** Growth limit of a hashing memory (256 MiB; stream windows keep the use far below). */
const MAXIMUM_PAGES = 4096;
/** Words of the single-state scratch: a 16-word state and up to 64 words of sponge input. */
const SCRATCH_WORDS = 16 + 64;

/** States per call of `permuteMany` (64 KiB of states at a time). */
const BATCH_STATES = 1024;

/**
 * Per-thread Poseidon2 kernels on a private WASM memory (≤ 256 MiB, the 184-word constants region
 * first): the WASM hashing backend of this thread (a `HashBackend`, see src/hash/backend.ts) — the
 * sequential permutation, batched permutation, sponge and compression paths of `src/hash`. Falls
 * back to the TypeScript reference when the module lacks them.
 * @throws KernelError `MODULE_MISSING`, `OUT_OF_MEMORY`.
 */
export class HashKernels implements HashBackend {
  readonly name = "wasm" as const;
  /** The private memory and its allocator (owned by this thread). */
  readonly heap: KernelMemory;
  readonly raw: HashKernelExports;
  /** The extended constants region (Poseidon2 constants in Montgomery form first). */
  readonly constants: Region;
  /**
   * View of the scratch words. The memory is shared, so growing it never detaches this view and
   * the scratch (allocated first, at the bottom of the memory) stays inside it.
   */
  private readonly words: Uint32Array;
  private readonly statePtr: number;
  private readonly inputPtr: number;
  private readonly constsPtr: number;

  private constructor(heap: KernelMemory, raw: HashKernelExports, constants: Region, scratch: Region) {
    this.heap = heap;
    this.raw = raw;
    this.constants = constants;
    this.words = scratch.view();
    this.statePtr = scratch.ptr;
    this.inputPtr = scratch.ptr + 64;
    this.constsPtr = constants.ptr;
  }

  /**
   * A new private memory with the constants in place and an instance of the kernel module.
   * @throws KernelError `MODULE_MISSING` if wasm/kernels.wasm is missing, does not compile
   *   or lacks the hashing kernels.
   */
  static create(): HashKernels {
    const module = kernelModule();
    const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
    const missing = REQUIRED_EXPORTS.filter((n) => !names.has(n));
    if (missing.length > 0) {
      throw new KernelError(
        "MODULE_MISSING",
        `kernel module lacks the hashing kernels (${missing.join(", ")}); run \`npm run build:kernels\``,
      );
    }
    const heap = new KernelMemory({ initialPages: INITIAL_PAGES, maximumPages: MAXIMUM_PAGES });
    const raw = new WebAssembly.Instance(module, { env: { memory: heap.memory } })
      .exports as unknown as HashKernelExports;
    if (
      raw.poseidon2_constant_words() !== POSEIDON2_CONSTANT_WORDS ||
      raw.sponge_constant_words() !== SPONGE_CONSTANT_WORDS ||
      raw.sponge_job_words() !== SPONGE_JOB_WORDS
    ) {
      throw new KernelError(
        "MODULE_MISSING",
        "kernel module layout does not match this build (constants or job region size)",
      );
    }
    const scratch = heap.alloc(SCRATCH_WORDS);
    const constants = heap.alloc(SPONGE_CONSTANT_WORDS);
    constants.view().set(poseidon2ConstantWords());
    raw.sponge_constants_init(constants.ptr);
    return new HashKernels(heap, raw, constants, scratch);
  }

  /** Byte pointer of the constants region, for raw kernel calls. */
  get constantsPtr(): number {
    return this.constsPtr;
  }

  /** Poseidon2 (§3) in place on 16 canonical words (not validated: callers pass field values). */
  permute(s: Uint32Array): void {
    const w = this.words;
    for (let i = 0; i < 16; i++) w[i] = s[i]!;
    this.raw.poseidon2_permute_one(this.statePtr, this.constsPtr);
    for (let i = 0; i < 16; i++) s[i] = w[i]!;
  }

  /**
   * Poseidon2 in place on n states of 16 canonical words stored back to back (4 states per SIMD
   * vector, `BATCH_STATES` states per kernel call, staged through this thread's private memory).
   */
  permuteMany(states: Uint32Array, n: number): void {
    if (!Number.isInteger(n) || n < 0 || states.length < 16 * n) {
      throw new KernelError("BAD_LENGTH", `permuteMany: ${states.length} words cannot hold ${n} states of 16 words`, {
        n,
        words: states.length,
      });
    }
    if (n === 0) return;
    const batch = Math.min(n, BATCH_STATES);
    const region = this.heap.alloc(16 * batch);
    try {
      for (let i = 0; i < n; i += batch) {
        const m = Math.min(batch, n - i);
        const part = states.subarray(16 * i, 16 * (i + m));
        const view = region.view();
        view.set(part);
        this.raw.poseidon2_permute(region.ptr, m, this.constsPtr);
        part.set(view.subarray(0, 16 * m));
      }
    } finally {
      this.heap.release(region);
    }
  }

  /**
   * The proof-of-work search of `HashBackend.grindSearch` in one kernel call (four candidates per
   * SIMD vector, in this thread's private memory). Inputs canonical (not validated).
   */
  grindSearch(template: Uint32Array, lane: number, mask: number, start: number, count: number): number {
    const w = this.words;
    for (let i = 0; i < 16; i++) w[i] = template[i]!;
    return this.raw.poseidon2_grind(this.statePtr, lane, mask >>> 0, start, count, this.constsPtr, this.inputPtr);
  }

  /** h_node (§4): the first 8 lanes of permute(left ‖ right); inputs canonical (not validated). */
  compress(left: ArrayLike<number>, right: ArrayLike<number>): Uint32Array {
    const w = this.words;
    for (let i = 0; i < 8; i++) {
      w[i] = left[i]!;
      w[8 + i] = right[i]!;
    }
    this.raw.poseidon2_permute_one(this.statePtr, this.constsPtr);
    return w.slice(0, 8);
  }

  /**
   * Overwrite absorption of whole blocks into a given state (the duplex of §5 with observes only):
   * for each block of 8 words of input[from, from + words), lanes 0..7 ← the block, then permute.
   * `state` (16 words) is updated in place; `words` must be a multiple of 8. Inputs canonical (not
   * validated).
   */
  absorbBlocks(state: Uint32Array, input: ArrayLike<number>, from: number, words: number): void {
    const w = this.words;
    for (let i = 0; i < 16; i++) w[i] = state[i]!;
    for (let off = 0; off < words; off += 64) {
      const m = Math.min(64, words - off);
      for (let i = 0; i < m; i++) w[16 + i] = input[from + off + i]!;
      this.raw.poseidon2_sponge(this.statePtr, this.inputPtr, m, this.constsPtr);
    }
    for (let i = 0; i < 16; i++) state[i] = w[i]!;
  }

  /**
   * Padding-free overwrite sponge (§4) from the zero state: lanes 0..7 of the final state. Inputs
   * canonical (not validated).
   */
  sponge(input: ArrayLike<number>): Uint32Array {
    const w = this.words;
    w.fill(0, 0, 16);
    const n = input.length;
    for (let off = 0; off < n; off += 64) {
      const m = Math.min(64, n - off);
      for (let i = 0; i < m; i++) w[16 + i] = input[off + i]!;
      this.raw.poseidon2_sponge(this.statePtr, this.inputPtr, m, this.constsPtr);
    }
    return w.slice(0, 8);
  }
}

let cached: HashKernels | null | undefined;

/**
 * This thread's `HashKernels`, created on first use; `null` when the kernel module is not
 * available (not built, or built without the hashing kernels; the failure is remembered) or is
 * switched off (`installKernelBackend("typescript")`; asked on every call).
 */
export function hashKernels(): HashKernels | null {
  if (!kernelModuleEnabled()) return null;
  if (cached === undefined) {
    try {
      cached = HashKernels.create();
    } catch (e) {
      if (!(e instanceof KernelError)) throw e;
      cached = null;
    }
  }
  return cached;
}
