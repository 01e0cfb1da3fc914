/**
 * Array-level kernel API for the thread that owns the shared memory: canonical `Uint32Array` /
 * `ExtVector` in, canonical out. Each call copies its operands into temporary regions, validates
 * them (WASM range check), runs the kernel and copies the result out; worth it from about 1k
 * elements. Hot loops that keep tables in WASM memory use the region API (`instance`) instead.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { KernelError } from "./errors.js";
import { kernelModule } from "./loader.js";
import { KernelMemory, type KernelMemoryOptions, type Region } from "./memory.js";
import { placeConstants } from "./constants.js";
import { KernelInstance, type SharedKernels } from "./instance.js";

/**
 * The array-level kernel API for the owning thread: canonical values in and out, Montgomery form inside WASM, on a shared memory (`heap`) that workers attach.
 * @throws KernelError `MODULE_MISSING`, `BAD_LENGTH`, `NON_CANONICAL`.
 */
export class Kernels {
  /** Allocator and owner of the shared memory. */
  readonly heap: KernelMemory;
  /** Region-level API over the same memory. */
  readonly instance: KernelInstance;
  /** The filled Poseidon2 constants region. */
  readonly constants: Region;
  private readonly module: WebAssembly.Module;

  private constructor(heap: KernelMemory, module: WebAssembly.Module, constants: Region) {
    this.heap = heap;
    this.module = module;
    this.constants = constants;
    this.instance = new KernelInstance({ module, memory: heap.memory, constants: constants.describe() });
  }

  /**
   * New shared memory, module instance and constants region.
   * @throws KernelError `MODULE_MISSING`, `BAD_OPTIONS`.
   */
  static create(options: KernelMemoryOptions = {}): Kernels {
    const module = kernelModule();
    const heap = new KernelMemory(options);
    return new Kernels(heap, module, placeConstants(heap));
  }

  /** What a worker thread needs to attach (`attachKernels`); post it with postMessage. */
  share(): SharedKernels {
    return { module: this.module, memory: this.heap.memory, constants: this.constants.describe() };
  }

  /** out[i] = a[i]·b[i]. @throws KernelError `BAD_LENGTH`, `NON_CANONICAL`. */
  vecMul(a: Uint32Array, b: Uint32Array): Uint32Array {
    sameLength(a.length, b.length, "vecMul");
    return this.scoped([a, b], ([ra, rb]) => {
      this.canonical(ra!, "a");
      this.canonical(rb!, "b");
      this.instance.toMontgomery(rb!, rb!);
      this.instance.baseMul(ra!, ra!, rb!);
      return ra!.view().slice();
    });
  }

  /** Σ a[i]·b[i]. @throws KernelError `BAD_LENGTH`, `NON_CANONICAL`. */
  innerProduct(a: Uint32Array, b: Uint32Array): number {
    sameLength(a.length, b.length, "innerProduct");
    return this.scoped([a, b], ([ra, rb]) => {
      this.canonical(ra!, "a");
      this.canonical(rb!, "b");
      this.instance.toMontgomery(rb!, rb!);
      return this.instance.innerProduct(ra!, rb!);
    });
  }

  /** out[i] = a[i]·b[i] in the extension. @throws KernelError `BAD_LENGTH`, `NON_CANONICAL`. */
  extVecMul(a: ExtVector, b: ExtVector): ExtVector {
    sameLength(a.length, b.length, "extVecMul");
    return this.scoped([a.data, b.data], ([ra, rb]) => {
      this.canonical(ra!, "a");
      this.canonical(rb!, "b");
      this.instance.toMontgomery(rb!, rb!);
      this.instance.extMul(ra!, ra!, rb!, a.length);
      return new ExtVector(a.length, ra!.view().slice());
    });
  }

  /**
   * Fold of a base table with a base challenge: out[j] = t[j] + r·(t[j+h] − t[j]), h = len/2.
   * @throws KernelError `BAD_LENGTH` (odd or zero length), `NON_CANONICAL`; FieldError for r.
   */
  fold(t: Uint32Array, r: number): Uint32Array {
    return this.scoped([t], ([rt]) => {
      this.canonical(rt!, "t");
      this.instance.foldBase(rt!, rt!, t.length, r);
      return rt!.view().slice(0, t.length / 2);
    });
  }

  /** Fold of a base table with an extension challenge; the result is an extension vector of len/2. */
  foldExtChallenge(t: Uint32Array, r: Ext): ExtVector {
    const h = t.length >> 1;
    return this.scoped([t], ([rt]) => {
      this.canonical(rt!, "t");
      const out = this.heap.alloc(4 * h);
      try {
        this.instance.foldBaseExt(out, rt!, t.length, r);
        return new ExtVector(h, out.view().slice());
      } finally {
        this.heap.release(out);
      }
    });
  }

  /** Fold of an extension table with an extension challenge; the result has len/2 elements. */
  foldExt(t: ExtVector, r: Ext): ExtVector {
    const h = t.length >> 1;
    return this.scoped([t.data], ([rt]) => {
      this.canonical(rt!, "t");
      this.instance.foldExt(rt!, rt!, t.length, r);
      return new ExtVector(h, rt!.view().slice(0, 4 * h));
    });
  }

  /**
   * Poseidon2 (compat-v1 §3) on n = states.length / 16 states stored back to back.
   * @throws KernelError `BAD_LENGTH` if the length is not a multiple of 16, `NON_CANONICAL`.
   */
  permuteMany(states: Uint32Array): Uint32Array {
    if (states.length % 16 !== 0) {
      throw new KernelError("BAD_LENGTH", `permuteMany: states length ${states.length} is not a multiple of 16`, {
        length: states.length,
      });
    }
    return this.scoped([states], ([rs]) => {
      this.canonical(rs!, "states");
      this.instance.poseidon2Permute(rs!, states.length / 16);
      return rs!.view().slice();
    });
  }

  /** Copies inputs into fresh regions, runs `body`, releases the regions. */
  private scoped<T>(inputs: Uint32Array[], body: (regions: Region[]) => T): T {
    const regions: Region[] = [];
    try {
      for (const x of inputs) regions.push(this.heap.allocFrom(x));
      return body(regions);
    } finally {
      for (const r of regions) this.heap.release(r);
    }
  }

  private canonical(region: Region, what: string): void {
    const i = this.instance.firstNonCanonical(region);
    if (i >= 0) {
      const v = region.view()[i]!;
      throw new KernelError(
        "NON_CANONICAL",
        `${what}[${i}] = ${v} is not a canonical field element (must be < p = ${P})`,
        { what, index: i, value: v },
      );
    }
  }
}

function sameLength(a: number, b: number, op: string): void {
  if (a !== b)
    throw new KernelError("BAD_LENGTH", `${op}: operands have lengths ${a} and ${b}`, { op, lengths: [a, b] });
}

let shared: Kernels | undefined;

/** A process-wide `Kernels` (created on first use with the default memory sizes). */
export function defaultKernels(): Kernels {
  shared ??= Kernels.create();
  return shared;
}
