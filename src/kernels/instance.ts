/**
 * Region-level kernel API: one module instance over the shared memory, operating on regions that
 * already live in that memory. This is what worker threads use (`attachKernels`); the
 * array-level convenience API is `Kernels` (kernels.ts).
 *
 * Representations (see src/kernels/README.md): the binary product kernels compute Montgomery
 * products mont(x, y) = x·y·2^−32 mod p, so operands in Montgomery form give a result in
 * Montgomery form and one canonical operand gives a canonical result. Fold kernels take canonical
 * challenges and preserve the representation of the table. Poseidon2 works on canonical states.
 * No kernel validates its inputs; `firstNonCanonical` is the check to run when inputs are untrusted.
 *
 * Every method checks its descriptors first: `KernelError` `BAD_REGION` for a pointer that is not a
 * non-negative multiple of 4 or a region outside the memory, `BAD_LENGTH` for a region smaller
 * than the operation needs or an odd/zero fold length; challenges must be canonical (`FieldError`
 * `NOT_AN_INTEGER` / `NEGATIVE` / `NON_CANONICAL`). Lengths are in elements, pointers in bytes.
 */
import { element } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { KernelError } from "./errors.js";
import { instantiateKernels, type KernelExports } from "./loader.js";
import { Region, type RegionDescriptor } from "./memory.js";
import { POSEIDON2_CONSTANT_WORDS } from "./constants.js";

/** Everything a thread needs to run kernels over an existing shared memory (postMessage-able). */
export interface SharedKernels {
  /** The compiled kernel module. */
  readonly module: WebAssembly.Module;
  /** The shared memory (created by `KernelMemory` on the owning thread). */
  readonly memory: WebAssembly.Memory;
  /** The Poseidon2 constants region, already filled (see constants.ts). */
  readonly constants: RegionDescriptor;
}

export class KernelInstance {
  readonly memory: WebAssembly.Memory;
  /** Raw module exports (byte pointers, element counts, no checks). */
  readonly raw: KernelExports;
  readonly constants: RegionDescriptor;

  /** @throws KernelError `BAD_REGION` if the constants region is smaller than the module expects. */
  constructor(shared: SharedKernels) {
    this.memory = shared.memory;
    this.raw = instantiateKernels(shared.memory, shared.module);
    const expected = this.raw.poseidon2_constant_words();
    if (expected !== POSEIDON2_CONSTANT_WORDS || shared.constants.words < expected) {
      throw new KernelError(
        "BAD_REGION",
        `constants region has ${shared.constants.words} words, the module expects ${expected}`,
      );
    }
    this.constants = checked(this.memory, shared.constants, expected, "constants");
  }

  /** A `Region` (with views) for a descriptor received from another thread. */
  region(d: RegionDescriptor): Region {
    return Region.attach(this.memory, d);
  }

  /** dst[i] = src[i]·2^32 mod p for i < n (any u32 input is reduced). dst may equal src. */
  toMontgomery(dst: RegionDescriptor, src: RegionDescriptor, n = src.words): void {
    this.raw.to_mont(this.need(dst, n, "dst"), this.need(src, n, "src"), n);
  }

  /** dst[i] = src[i]·2^−32 mod p for i < n. dst may equal src. */
  fromMontgomery(dst: RegionDescriptor, src: RegionDescriptor, n = src.words): void {
    this.raw.from_mont(this.need(dst, n, "dst"), this.need(src, n, "src"), n);
  }

  /** Index of the first word ≥ p among the first n, or −1. */
  firstNonCanonical(src: RegionDescriptor, n = src.words): number {
    return this.raw.first_noncanonical(this.need(src, n, "src"), n);
  }

  /** dst[i] = mont(a[i], b[i]) for i < n. dst may equal a or b. */
  baseMul(dst: RegionDescriptor, a: RegionDescriptor, b: RegionDescriptor, n = a.words): void {
    this.raw.base_mul(this.need(dst, n, "dst"), this.need(a, n, "a"), this.need(b, n, "b"), n);
  }

  /** Σ_{i<n} mont(a[i], b[i]) mod p. */
  innerProduct(a: RegionDescriptor, b: RegionDescriptor, n = a.words): number {
    return this.raw.inner_product(this.need(a, n, "a"), this.need(b, n, "b"), n) >>> 0;
  }

  /**
   * Elementwise extension product of two plane-layout vectors of n elements (regions of 4n words),
   * coefficient-wise Montgomery products. dst may equal a or b.
   */
  extMul(dst: RegionDescriptor, a: RegionDescriptor, b: RegionDescriptor, n: number): void {
    this.raw.ext_mul(this.need(dst, 4 * n, "dst"), this.need(a, 4 * n, "a"), this.need(b, 4 * n, "b"), n);
  }

  /**
   * Fold of a base table of `len` words (even) with a base challenge r (canonical):
   * dst[j] = src[j] + r·(src[j + len/2] − src[j]) for j < len/2. dst may equal src.
   */
  foldBase(dst: RegionDescriptor, src: RegionDescriptor, len: number, r: number): void {
    const h = half(len);
    element(r, "challenge");
    this.raw.fold_base(this.need(dst, h, "dst"), this.need(src, len, "src"), h, r);
  }

  /**
   * Fold of a base table of `len` words with an extension challenge r: dst becomes a plane-layout
   * extension vector of len/2 elements (2·len words). dst may equal src if it has 2·len words.
   */
  foldBaseExt(dst: RegionDescriptor, src: RegionDescriptor, len: number, r: Ext): void {
    const h = half(len);
    checkExt(r);
    this.raw.fold_base_ext(this.need(dst, 4 * h, "dst"), this.need(src, len, "src"), h, r[0], r[1], r[2], r[3]);
  }

  /**
   * Fold of a plane-layout extension table of `len` elements (4·len words) with an extension
   * challenge r: dst becomes a plane-layout vector of len/2 elements (2·len words, planes of
   * len/2). dst may equal src (the result is then compacted into the first 2·len words).
   */
  foldExt(dst: RegionDescriptor, src: RegionDescriptor, len: number, r: Ext): void {
    const h = half(len);
    checkExt(r);
    this.raw.fold_ext(this.need(dst, 4 * h, "dst"), this.need(src, 4 * len, "src"), h, r[0], r[1], r[2], r[3]);
  }

  /** Applies Poseidon2 in place to n states of 16 canonical words stored back to back. */
  poseidon2Permute(states: RegionDescriptor, n: number): void {
    this.raw.poseidon2_permute(this.need(states, 16 * n, "states"), n, this.constants.ptr);
  }

  private need(d: RegionDescriptor, words: number, what: string): number {
    if (!Number.isInteger(words) || words < 0) {
      throw new KernelError("BAD_LENGTH", `${what}: length must be a non-negative integer, got ${words}`, {
        what,
        words,
      });
    }
    return checked(this.memory, d, words, what).ptr;
  }
}

/** Validates a descriptor against the memory and a minimum size. */
function checked(memory: WebAssembly.Memory, d: RegionDescriptor, words: number, what: string): RegionDescriptor {
  if (!Number.isInteger(d.ptr) || d.ptr < 0 || d.ptr % 4 !== 0) {
    throw new KernelError("BAD_REGION", `${what}: pointer must be a non-negative multiple of 4, got ${d.ptr}`, {
      what,
      ptr: d.ptr,
    });
  }
  if (d.words < words) {
    throw new KernelError("BAD_LENGTH", `${what}: region of ${d.words} words is too small, ${words} needed`, {
      what,
      words: d.words,
      needed: words,
    });
  }
  if (d.ptr + 4 * words > memory.buffer.byteLength) {
    throw new KernelError("BAD_REGION", `${what}: [${d.ptr}, ${d.ptr + 4 * words}) lies outside the memory`, {
      what,
      ptr: d.ptr,
    });
  }
  return d;
}

function half(len: number): number {
  if (!Number.isInteger(len) || len < 2 || len % 2 !== 0) {
    throw new KernelError("BAD_LENGTH", `fold needs an even table length ≥ 2, got ${len}`, { len });
  }
  return len / 2;
}

function checkExt(r: Ext): void {
  if (!Array.isArray(r) || r.length !== 4)
    throw new KernelError("BAD_LENGTH", `extension challenge must have 4 coefficients`);
  for (let k = 0; k < 4; k++) element(r[k], `challenge.c${k}`);
}

/** A kernel instance over a memory shared by another thread (typically inside a worker). */
export function attachKernels(shared: SharedKernels): KernelInstance {
  return new KernelInstance(shared);
}
