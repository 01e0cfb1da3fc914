/**
 * The shared linear memory of the WASM kernels and its TypeScript-side allocator.
 *
 * One `WebAssembly.Memory({ shared: true })` backs every kernel instance of a process: the main
 * thread creates it and allocates every region; worker threads receive the memory and region
 * descriptors (`{ ptr, words }`, structured-clone friendly) and only read/write inside the regions
 * handed to them. The kernel module has no heap of its own (see src/kernels/README.md).
 *
 * Views: a `Region` hands out `Uint32Array` views and re-creates them whenever `memory.buffer`
 * changed (memory growth replaces the buffer object), so always call `view()` after anything that
 * may allocate instead of keeping a view across calls.
 */
import { KernelError } from "./errors.js";

/** Bytes per WebAssembly page. */
export const PAGE_BYTES = 65536;
/** Largest memory the kernel module accepts, in pages (2 GiB; declared by scripts/build-kernels.mjs). */
export const MODULE_MAXIMUM_PAGES = 32768;
/** Region alignment in bytes: one cache line, so regions of different threads never share a line. */
export const REGION_ALIGN = 64;
/** Bytes [0, RESERVED_BYTES) are never handed out (a zero pointer is never a valid region). */
export const RESERVED_BYTES = 64;

/** A region of the shared memory: byte offset and size in u32 words. Safe to post to a worker. */
export interface RegionDescriptor {
  /** Byte offset into the memory, a multiple of 16 (64 for regions made by `KernelMemory`). */
  readonly ptr: number;
  /** Size in u32 words. */
  readonly words: number;
}

/** A typed window on a region of a memory; views are refreshed after memory growth. */
export class Region implements RegionDescriptor {
  readonly memory: WebAssembly.Memory;
  readonly ptr: number;
  readonly words: number;
  private cached: Uint32Array | undefined;

  /**
   * @throws KernelError `BAD_REGION` if ptr is not a non-negative multiple of 16, words is not a
   *   non-negative integer, or the region does not lie inside the memory.
   */
  constructor(memory: WebAssembly.Memory, ptr: number, words: number) {
    if (!Number.isInteger(ptr) || ptr < 0 || ptr % 16 !== 0) {
      throw new KernelError("BAD_REGION", `region pointer must be a non-negative multiple of 16, got ${ptr}`, { ptr });
    }
    if (!Number.isInteger(words) || words < 0) {
      throw new KernelError("BAD_REGION", `region size must be a non-negative number of words, got ${words}`, {
        words,
      });
    }
    if (ptr + 4 * words > memory.buffer.byteLength) {
      throw new KernelError(
        "BAD_REGION",
        `region [${ptr}, ${ptr + 4 * words}) lies outside the memory of ${memory.buffer.byteLength} bytes`,
        { ptr, words },
      );
    }
    this.memory = memory;
    this.ptr = ptr;
    this.words = words;
  }

  /** Region of a descriptor received from another thread. */
  static attach(memory: WebAssembly.Memory, d: RegionDescriptor): Region {
    return new Region(memory, d.ptr, d.words);
  }

  /** Size in bytes. */
  get bytes(): number {
    return 4 * this.words;
  }

  /** The whole region as u32 words (re-created if the memory grew since the last call). */
  view(): Uint32Array {
    const buffer = this.memory.buffer;
    if (this.cached === undefined || this.cached.buffer !== buffer) {
      this.cached = new Uint32Array(buffer, this.ptr, this.words);
    }
    return this.cached;
  }

  /** Sub-region of `words` words starting at word `offset` (pointer kept 16-byte aligned). */
  slice(offset: number, words: number): Region {
    if (!Number.isInteger(offset) || offset < 0 || offset % 4 !== 0 || offset + words > this.words) {
      throw new KernelError(
        "BAD_REGION",
        `slice [${offset}, ${offset + words}) must start at a multiple of 4 words inside a region of ${this.words} words`,
        { offset, words },
      );
    }
    return new Region(this.memory, this.ptr + 4 * offset, words);
  }

  /** Plain descriptor for postMessage. */
  describe(): RegionDescriptor {
    return { ptr: this.ptr, words: this.words };
  }
}

/** Sizes of a new kernel memory, in 64 KiB pages. */
export interface KernelMemoryOptions {
  /** Initial size (default 256 pages = 16 MiB). */
  initialPages?: number;
  /** Growth limit (default and upper bound: 32768 pages = 2 GiB). */
  maximumPages?: number;
}

interface FreeBlock {
  start: number;
  end: number;
}

/**
 * Owner of the shared memory: a first-fit allocator of 64-byte-aligned regions that grows the
 * memory (up to its maximum) when no free block fits. Only the thread that created it allocates.
 */
export class KernelMemory {
  readonly memory: WebAssembly.Memory;
  readonly maximumPages: number;
  /** Free blocks sorted by start, never adjacent (coalesced). Byte offsets. */
  private readonly freeBlocks: FreeBlock[] = [];
  /** Live allocations: pointer → bytes reserved. */
  private readonly live = new Map<number, number>();

  /** @throws KernelError `BAD_OPTIONS` for sizes outside [1, 32768] pages or initial > maximum. */
  constructor(options: KernelMemoryOptions = {}) {
    const maximumPages = options.maximumPages ?? MODULE_MAXIMUM_PAGES;
    const initialPages = options.initialPages ?? Math.min(256, maximumPages);
    for (const [name, v] of [
      ["initialPages", initialPages],
      ["maximumPages", maximumPages],
    ] as const) {
      if (!Number.isInteger(v) || v < 1 || v > MODULE_MAXIMUM_PAGES) {
        throw new KernelError("BAD_OPTIONS", `${name} must be an integer in [1, ${MODULE_MAXIMUM_PAGES}], got ${v}`, {
          [name]: v,
        });
      }
    }
    if (initialPages > maximumPages) {
      throw new KernelError("BAD_OPTIONS", `initialPages ${initialPages} exceeds maximumPages ${maximumPages}`, {
        initialPages,
        maximumPages,
      });
    }
    this.maximumPages = maximumPages;
    this.memory = new WebAssembly.Memory({ initial: initialPages, maximum: maximumPages, shared: true });
    this.freeBlocks.push({ start: RESERVED_BYTES, end: initialPages * PAGE_BYTES });
  }

  /** Current size in bytes. */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Bytes currently allocated (after alignment). */
  get allocatedBytes(): number {
    let total = 0;
    for (const b of this.live.values()) total += b;
    return total;
  }

  /**
   * Allocates a region of `words` u32 words (contents unspecified: reused blocks are not cleared).
   * @throws KernelError `BAD_LENGTH` for a negative or non-integer size, `OUT_OF_MEMORY` if the
   *   memory cannot grow enough.
   */
  alloc(words: number): Region {
    if (!Number.isInteger(words) || words < 0) {
      throw new KernelError(
        "BAD_LENGTH",
        `allocation size must be a non-negative integer number of words, got ${words}`,
        { words },
      );
    }
    const bytes = Math.max(REGION_ALIGN, Math.ceil((4 * words) / REGION_ALIGN) * REGION_ALIGN);
    let index = this.freeBlocks.findIndex((b) => b.end - b.start >= bytes);
    if (index < 0) {
      this.grow(bytes);
      index = this.freeBlocks.findIndex((b) => b.end - b.start >= bytes);
    }
    const block = this.freeBlocks[index]!;
    const ptr = block.start;
    block.start += bytes;
    if (block.start === block.end) this.freeBlocks.splice(index, 1);
    this.live.set(ptr, bytes);
    return new Region(this.memory, ptr, words);
  }

  /** Allocates a region and copies `values` into it. */
  allocFrom(values: ArrayLike<number>): Region {
    const region = this.alloc(values.length);
    region.view().set(values);
    return region;
  }

  /**
   * Runs `body` with a region per input (the one `inPlace` names for it, else a copy) and a
   * scratch region per entry of `scratchWords`; the copies and the scratch are released after.
   * @example heap.using([a, b], [4], ([pa, pb], [out]) => kernel(pa, pb, out.ptr))
   */
  using<T, A extends ArrayLike<number> = ArrayLike<number>>(
    inputs: readonly A[],
    scratchWords: readonly number[],
    body: (ptrs: number[], scratch: Region[]) => T,
    inPlace?: (values: A) => Region | undefined,
  ): T {
    const held: Region[] = [];
    try {
      const ptrs = inputs.map((x) => {
        const region = inPlace?.(x);
        if (region !== undefined) return region.ptr;
        const copy = this.allocFrom(x);
        held.push(copy);
        return copy.ptr;
      });
      const scratch = scratchWords.map((w) => {
        const r = this.alloc(w);
        held.push(r);
        return r;
      });
      return body(ptrs, scratch);
    } finally {
      for (const r of held) this.release(r);
    }
  }

  /** Returns a region to the free list. @throws KernelError `BAD_REGION` if it is not live. */
  release(region: RegionDescriptor): void {
    const bytes = this.live.get(region.ptr);
    if (bytes === undefined) {
      throw new KernelError("BAD_REGION", `region at ${region.ptr} is not allocated (released twice or foreign)`, {
        ptr: region.ptr,
      });
    }
    this.live.delete(region.ptr);
    this.insertFree(region.ptr, region.ptr + bytes);
  }

  private insertFree(start: number, end: number): void {
    const blocks = this.freeBlocks;
    let i = 0;
    while (i < blocks.length && blocks[i]!.start < start) i++;
    const prev = blocks[i - 1];
    const next = blocks[i];
    if (prev && prev.end === start) {
      prev.end = end;
      if (next && next.start === end) {
        prev.end = next.end;
        blocks.splice(i, 1);
      }
    } else if (next && next.start === end) {
      next.start = start;
    } else {
      blocks.splice(i, 0, { start, end });
    }
  }

  /** Grows the memory so that a block of `bytes` fits at its end. */
  private grow(bytes: number): void {
    const oldEnd = this.memory.buffer.byteLength;
    const last = this.freeBlocks[this.freeBlocks.length - 1];
    const tailFree = last && last.end === oldEnd ? last.end - last.start : 0;
    const pages = Math.ceil((bytes - tailFree) / PAGE_BYTES);
    const currentPages = oldEnd / PAGE_BYTES;
    if (currentPages + pages > this.maximumPages) {
      throw new KernelError(
        "OUT_OF_MEMORY",
        `cannot allocate ${bytes} bytes: memory would need ${currentPages + pages} pages, maximum is ${this.maximumPages}`,
        { bytes, pages: currentPages + pages, maximumPages: this.maximumPages },
      );
    }
    try {
      this.memory.grow(pages);
    } catch (e) {
      throw new KernelError(
        "OUT_OF_MEMORY",
        `growing the kernel memory by ${pages} pages failed: ${(e as Error).message}`,
        { pages },
      );
    }
    this.insertFree(oldEnd, oldEnd + pages * PAGE_BYTES);
  }
}

/**
 * Bump allocator inside one region, for per-thread scratch: a worker receives its scratch region
 * and carves temporaries out of it without touching the main allocator.
 */
export class ScratchArena {
  readonly region: Region;
  private top = 0;

  constructor(region: Region) {
    this.region = region;
  }

  /** Words still available. */
  get remaining(): number {
    return this.region.words - this.top;
  }

  /** A sub-region of `words` words (16-byte aligned). @throws KernelError `OUT_OF_MEMORY` when full. */
  alloc(words: number): Region {
    if (!Number.isInteger(words) || words < 0) {
      throw new KernelError(
        "BAD_LENGTH",
        `allocation size must be a non-negative integer number of words, got ${words}`,
        { words },
      );
    }
    const start = this.top;
    const rounded = Math.ceil(words / 4) * 4;
    if (start + rounded > this.region.words) {
      throw new KernelError(
        "OUT_OF_MEMORY",
        `scratch arena of ${this.region.words} words cannot fit ${words} more words (${this.remaining} left)`,
        { words, remaining: this.remaining },
      );
    }
    this.top += rounded;
    return this.region.slice(start, words);
  }

  /** Current position, for `reset`. */
  mark(): number {
    return this.top;
  }

  /** Frees everything allocated after `mark` (default: everything). */
  reset(mark = 0): void {
    this.top = mark;
  }
}
