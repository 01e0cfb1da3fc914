/**
 * The GKR kernels' context in one thread: an instance of the kernel module over a memory, an
 * allocator for work regions and a cache of layer images (src/gkr/wasm-image.ts).
 *
 * Three ways to get one:
 * - `gkrKernels()`: this thread's default, over a private memory (created on first use, like
 *   `hashKernels()`): nothing is shared with other threads, so it is safe in any worker thread.
 * - `GkrKernels.over(kernels)`: on the thread that owns a shared `Kernels` memory, allocating from
 *   its heap.
 * - `GkrKernels.attach(shared, scratch)`: in a worker attached to a shared memory
 *   (src/kernels/README.md, memory model): every allocation comes from the worker's own scratch
 *   region (stack discipline), layer images are staged per layer instead of cached, and nothing
 *   outside the scratch region is written.
 *
 * Kernel sources: src/kernels/assembly/gkr-layer.ts. TypeScript reference: the sparse oracle
 * (src/gkr/sparse-oracle.ts) and `evaluateCircuit` (src/gkr/circuit.ts).
 */
import { KernelError } from "../kernels/errors.js";
import { kernelModule } from "../kernels/loader.js";
import { KernelMemory, Region, type RegionDescriptor } from "../kernels/memory.js";
import type { Kernels } from "../kernels/kernels.js";
import type { SharedKernels } from "../kernels/instance.js";
import type { Layer } from "./circuit.js";
import { type LayerImage, checkLayer, imageWords, writeLayerImage } from "./wasm-image.js";

/** Raw exports of the GKR kernels (byte pointers, element counts, no checks). */
export interface GkrKernelExports {
  gkr_out_words(): number;
  gkr_eq(dst: number, point: number, nbits: number): void;
  gkr_weights(dst: number, tmp: number, claims: number, nclaims: number, nbits: number): void;
  gkr_fill(desc: number, W: number, Vb: number, Aaos: number, Paos: number, A: number, Pw: number, n: number, nOut: number): void;
  gkr_round(A: number, Pw: number, Vx: number, Vb: number, len: number, r0: number, r1: number, r2: number, r3: number, flags: number, out: number): void;
  gkr_phase2_start(desc: number, W: number, eqx: number, Maos: number, M: number, n: number, nOut: number, out: number): void;
  gkr_mle_base(Vb: number, tmp: number, point: number, nbits: number, out: number): void;
  gkr_eval_layer(desc: number, below: number, out: number, nIn: number, nOut: number): void;
  to_mont(dst: number, src: number, n: number): void;
  from_mont(dst: number, src: number, n: number): void;
}

const REQUIRED_EXPORTS: readonly (keyof GkrKernelExports)[] = [
  "gkr_out_words", "gkr_eq", "gkr_weights", "gkr_fill", "gkr_round", "gkr_phase2_start", "gkr_mle_base", "gkr_eval_layer", "to_mont", "from_mont",
];

/** Flags of `gkr_round` (src/kernels/assembly/gkr-layer.ts). */
export const ROUND_FOLD = 1;
export const ROUND_POW = 2;
export const ROUND_VBASE = 4;
export const ROUND_RAW = 8;
export const ROUND_CLAIM = 16;
/** Words of a kernel output region; results start at word OUT_RESULT. */
export const OUT_WORDS = 128;
export const OUT_RESULT = 80;

/** Pages of a private memory: 1 MiB at first, at most 1 GiB. */
const PRIVATE_INITIAL_PAGES = 16;
const PRIVATE_MAXIMUM_PAGES = 16384;
/** Bytes of cached layer images kept before the least recently used are dropped. */
const DEFAULT_IMAGE_BUDGET = 256 * 2 ** 20;

/** Options of a private context. */
export interface GkrKernelsOptions {
  /** Bytes of layer images kept in the cache (default 256 MiB; 0 keeps none after use). */
  imageBudgetBytes?: number;
  /** Time every kernel call (for benchmarks; `timings` collects the totals). */
  timed?: boolean;
}

/** Calls and total milliseconds per kernel export (timed contexts only). */
export type KernelTimings = Map<string, { calls: number; ms: number }>;

function timedExports(raw: GkrKernelExports, timings: KernelTimings): GkrKernelExports {
  const out: Record<string, unknown> = {};
  for (const name of REQUIRED_EXPORTS) {
    const f = raw[name] as (...a: number[]) => number;
    const entry = { calls: 0, ms: 0 };
    timings.set(name, entry);
    // gkr_round binding the last variable of a phase (length 2) only folds: counted apart.
    const foldOnly = name === "gkr_round" ? { calls: 0, ms: 0 } : null;
    if (foldOnly) timings.set("gkr_round_fold", foldOnly);
    out[name] = (...a: number[]) => {
      const t0 = performance.now();
      const r = f(...a);
      const e = foldOnly && a[4] === 2 && (a[9]! & ROUND_FOLD) !== 0 ? foldOnly : entry;
      e.ms += performance.now() - t0;
      e.calls++;
      return r;
    };
  }
  return out as unknown as GkrKernelExports;
}

interface Allocator {
  alloc(words: number): Region;
  release(region: Region): void;
}

/** Stack allocator inside one scratch region (worker threads). */
class ScratchStack implements Allocator {
  private readonly live: { region: Region; start: number; released: boolean }[] = [];
  private top = 0;
  constructor(private readonly scratch: Region) {}
  alloc(words: number): Region {
    const start = this.top;
    const rounded = Math.ceil(Math.max(words, 1) / 16) * 16;
    if (start + rounded > this.scratch.words) {
      throw new KernelError("OUT_OF_MEMORY", `scratch region of ${this.scratch.words} words cannot fit ${words} more words (${this.scratch.words - start} left)`, { words });
    }
    this.top += rounded;
    const region = this.scratch.slice(start, words);
    this.live.push({ region, start, released: false });
    return region;
  }
  release(region: Region): void {
    const entry = this.live.find((e) => e.region === region);
    if (!entry) throw new KernelError("BAD_REGION", `region at ${region.ptr} was not allocated from this scratch region`, { ptr: region.ptr });
    entry.released = true;
    while (this.live.length > 0 && this.live[this.live.length - 1]!.released) this.top = this.live.pop()!.start;
  }
}

interface CachedImage {
  image: LayerImage;
  layer: WeakRef<Layer>;
  pins: number;
  released: boolean;
}

export class GkrKernels {
  readonly raw: GkrKernelExports;
  readonly memory: WebAssembly.Memory;
  /** Per-export call counts and times when created with `timed`, else null. */
  readonly timings: KernelTimings | null;
  private readonly allocator: Allocator;
  /** Layer images by layer object (null: images are staged per use, not cached). */
  private readonly images: WeakMap<Layer, CachedImage> | null;
  /** Cached images in least-recently-used order. */
  private readonly lru = new Set<CachedImage>();
  private readonly entries = new WeakMap<LayerImage, CachedImage>();
  private imageBytes = 0;
  private readonly imageBudget: number;
  private readonly finalizer: FinalizationRegistry<CachedImage> | null;
  /** Free work regions kept for reuse (oracles of successive layers). */
  private readonly spare: Region[] = [];
  private cachedView: Uint32Array | undefined;

  private constructor(raw: GkrKernelExports, memory: WebAssembly.Memory, allocator: Allocator, cacheImages: boolean, imageBudget = DEFAULT_IMAGE_BUDGET, timed = false) {
    this.timings = timed ? new Map() : null;
    this.raw = this.timings ? timedExports(raw, this.timings) : raw;
    this.memory = memory;
    this.allocator = allocator;
    this.images = cacheImages ? new WeakMap() : null;
    this.imageBudget = imageBudget;
    this.finalizer = cacheImages ? new FinalizationRegistry((c) => this.drop(c)) : null;
  }

  /**
   * A context over a new private memory (owned by the calling thread).
   * @throws KernelError `MODULE_MISSING` if the kernel module is missing or lacks the GKR kernels.
   */
  static create(options: GkrKernelsOptions = {}): GkrKernels {
    const module = checkedModule();
    const heap = new KernelMemory({ initialPages: PRIVATE_INITIAL_PAGES, maximumPages: PRIVATE_MAXIMUM_PAGES });
    const raw = new WebAssembly.Instance(module, { env: { memory: heap.memory } }).exports as unknown as GkrKernelExports;
    return new GkrKernels(raw, heap.memory, heap, true, options.imageBudgetBytes, options.timed);
  }

  /** A context on the thread that owns `kernels` (allocates from its heap, caches images). */
  static over(kernels: Kernels, options: { imageBudgetBytes?: number } = {}): GkrKernels {
    const shared = kernels.share();
    const raw = new WebAssembly.Instance(checkedModule(shared.module), { env: { memory: shared.memory } }).exports as unknown as GkrKernelExports;
    return new GkrKernels(raw, shared.memory, kernels.heap, true, options.imageBudgetBytes);
  }

  /**
   * A context in a thread attached to a shared kernel memory: every region comes from `scratch`
   * (this thread's own region, received from the owner); nothing else is written.
   * @throws KernelError `MODULE_MISSING`, `BAD_REGION` for a scratch region outside the memory.
   */
  static attach(shared: SharedKernels, scratch: RegionDescriptor): GkrKernels {
    const raw = new WebAssembly.Instance(checkedModule(shared.module), { env: { memory: shared.memory } }).exports as unknown as GkrKernelExports;
    return new GkrKernels(raw, shared.memory, new ScratchStack(Region.attach(shared.memory, scratch)), false);
  }

  /** All words of the memory (re-created after growth; do not keep across allocations). */
  words(): Uint32Array {
    const buffer = this.memory.buffer;
    if (this.cachedView === undefined || this.cachedView.buffer !== buffer) this.cachedView = new Uint32Array(buffer);
    return this.cachedView;
  }

  /** A work region of at least `words` words (contents unspecified). */
  acquire(words: number): Region {
    for (let i = 0; i < this.spare.length; i++) {
      const r = this.spare[i]!;
      if (r.words >= words) {
        this.spare.splice(i, 1);
        return r;
      }
    }
    return this.allocator.alloc(words);
  }

  /** Returns a work region from `acquire`. */
  giveBack(region: Region): void {
    if (this.images !== null && this.spare.length < 4) {
      this.spare.push(region);
      this.spare.sort((a, b) => a.words - b.words);
    } else {
      this.allocator.release(region);
    }
  }

  /**
   * The image of `layer` reading a vector of 2^inBits values, checked (`checkLayer`). Cached per
   * layer object when this context caches (the layer must not change afterwards); call
   * `unpin(image)` when done with it.
   * @throws CircuitError for a malformed layer (see `checkLayer`).
   */
  pinImage(layer: Layer, inBits: number, index: number): LayerImage {
    if (this.images === null) {
      const counts = checkLayer(layer, inBits, index);
      return writeLayerImage(this.allocator.alloc(imageWords(counts)), layer, inBits, counts);
    }
    const hit = this.images.get(layer);
    if (hit && !hit.released && hit.image.inBits === inBits && hit.image.outBits === layer.widthBits) {
      this.lru.delete(hit);
      this.lru.add(hit);
      hit.pins++;
      return hit.image;
    }
    const counts = checkLayer(layer, inBits, index);
    const image = writeLayerImage(this.allocator.alloc(imageWords(counts)), layer, inBits, counts);
    const entry: CachedImage = { image, layer: new WeakRef(layer), pins: 1, released: false };
    // A different shape replaces the cached image; the old one is dropped once unused.
    this.images.set(layer, entry);
    this.entries.set(image, entry);
    this.lru.add(entry);
    this.imageBytes += image.region.bytes;
    this.finalizer!.register(layer, entry, entry);
    this.trim();
    return image;
  }

  /** Ends a use of an image from `pinImage`. */
  unpin(image: LayerImage): void {
    if (this.images === null) {
      this.allocator.release(image.region);
      return;
    }
    const e = this.entries.get(image);
    if (e) e.pins = Math.max(0, e.pins - 1);
    this.trim();
  }

  /** Bytes of layer images currently cached. */
  get cachedImageBytes(): number {
    return this.imageBytes;
  }

  private trim(): void {
    if (this.imageBytes <= this.imageBudget) return;
    for (const e of [...this.lru]) {
      if (this.imageBytes <= this.imageBudget) break;
      if (e.pins === 0) this.evict(e);
    }
  }

  private evict(e: CachedImage): void {
    this.finalizer!.unregister(e);
    const layer = e.layer.deref();
    if (layer && this.images!.get(layer) === e) this.images!.delete(layer);
    this.drop(e);
  }

  private drop(e: CachedImage): void {
    if (e.released) return;
    e.released = true;
    this.lru.delete(e);
    this.imageBytes -= e.image.region.bytes;
    this.allocator.release(e.image.region);
  }
}

function checkedModule(module: WebAssembly.Module = kernelModule()): WebAssembly.Module {
  const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const missing = REQUIRED_EXPORTS.filter((n) => !names.has(n));
  if (missing.length > 0) {
    throw new KernelError("MODULE_MISSING", `kernel module lacks the GKR kernels (${missing.join(", ")}); run \`npm run build:kernels\``);
  }
  return module;
}

let cached: GkrKernels | null | undefined;

/**
 * This thread's default context over a private memory, created on first use; `null` when the
 * kernel module is not available (not built, or built without the GKR kernels). The failure is
 * remembered.
 */
export function gkrKernels(): GkrKernels | null {
  if (cached === undefined) {
    try {
      cached = GkrKernels.create();
    } catch (e) {
      if (!(e instanceof KernelError)) throw e;
      cached = null;
    }
  }
  return cached;
}
