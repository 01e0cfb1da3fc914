/**
 * The K copies' witness on the WASM kernels (docs/profile-v2.md §6.2): every layer of the K copies
 * evaluated in kernel memory (Montgomery form), per copy the plain gates (`gkr_eval_layer`), then
 * per group all K copies at once (`dp_eval_group`). With a `ResidentCopies` keeper the layer
 * vectors stay there until the proof is done and are handed out as `KeptVector`s, read in place by
 * the data-parallel prover's WASM backend (dp-wasm.ts) and read out canonical only when asked.
 * Same values as the TypeScript evaluation (test/gkr/structured-dp.test.ts).
 */
import { mul } from "../../field/koalabear.js";
import { MONTGOMERY_R } from "../../kernels/constants.js";
import { KernelError } from "../../kernels/errors.js";
import type { Region } from "../../kernels/memory.js";
import { INTERNAL_DIAGONAL } from "../../hash/poseidon2-constants.js";
import { giveBackWords, takeWords } from "../../memory/recycled-words.js";
import type { HeldValues } from "./dp-oracle.js";
import type { StructuredCircuit } from "./linear.js";
import type { LayerImage } from "../wasm/image.js";
import type { GkrKernelExports, GkrKernels } from "../wasm/kernels.js";

/** `x` rounded up to a multiple of `m`. */
export function up(x: number, m: number): number {
  return Math.ceil(x / m) * m;
}

/** Sub-regions (word offsets) carved from one region. */
export class Carver {
  private at = 0;
  take(words: number): number {
    const start = this.at;
    this.at += up(Math.max(words, 1), 4);
    return start;
  }
  get words(): number {
    return this.at;
  }
}

/** Export of the witness kernel (src/kernels/assembly/gkr-copies.ts). */
interface CopiesEvalExports extends GkrKernelExports {
  dp_eval_group(
    below: number,
    nIn: number,
    out: number,
    nOut: number,
    K: number,
    map: number,
    laneBits: number,
    cubeMask: number,
    consts: number,
    diag: number,
    inBase: number,
    outBase: number,
    nb: number,
    scratch: number,
  ): void;
}

/** True iff the module has the data-parallel witness kernel. */
export function hasCopiesEvalKernel(kernels: GkrKernels): boolean {
  return typeof (kernels.raw as Partial<CopiesEvalExports>).dp_eval_group === "function";
}

const DIAG_MONT = Uint32Array.from(INTERNAL_DIAGONAL, (d) => mul(d, MONTGOMERY_R));

/** Word offsets (from `base`, a word index into kernel memory) of the scratch a layer's groups use. */
interface GroupScratch {
  base: number;
  consts: number;
  diag: number;
  scratch: number;
  inB: number;
  outB: number;
}

/**
 * Layer i of the K copies from the layer below, both byte pointers into kernel memory (Montgomery
 * form, copy c at c·2^width): the plain gates copy by copy (`gkr_eval_layer`), then each group for
 * all K copies at once (`dp_eval_group`). The layer's image is pinned and pushed on `images` for
 * the caller to unpin. Returns the layer's width 2^s.
 */
function evaluateLayerCopies(
  kernels: GkrKernels,
  circuit: StructuredCircuit,
  i: number,
  K: number,
  below: number,
  cur: number,
  s: GroupScratch,
  images: LayerImage[],
): number {
  const raw = kernels.raw as CopiesEvalExports;
  const layer = circuit.layers[i]!;
  const inBits = i + 1 < circuit.layers.length ? circuit.layers[i + 1]!.widthBits : circuit.inputWidthBits;
  const nIn = 2 ** inBits,
    nOut = 2 ** layer.widthBits;
  const image = kernels.pinImage(layer, inBits, i);
  images.push(image);
  for (let c = 0; c < K; c++) raw.gkr_eval_layer(image.desc, below + 4 * c * nIn, cur + 4 * c * nOut, nIn, nOut);
  const ptr = (o: number) => 4 * (s.base + o);
  for (const g of layer.linear) {
    const w = kernels.words();
    const lanes = 2 ** g.map.laneBits;
    for (let z = 0; z < lanes; z++) w[s.base + s.consts + z] = mul(g.constants[z]!, MONTGOMERY_R);
    w.set(g.inBase, s.base + s.inB);
    w.set(g.outBase, s.base + s.outB);
    raw.dp_eval_group(
      below,
      nIn,
      cur,
      nOut,
      K,
      g.map.id,
      g.map.laneBits,
      g.cubeMask,
      ptr(s.consts),
      ptr(s.diag),
      ptr(s.inB),
      ptr(s.outB),
      g.outBase.length,
      ptr(s.scratch),
    );
  }
  return nOut;
}

/**
 * The `words` words at byte pointer `src` of kernel memory (Montgomery form), converted by
 * `from_mont` into the scratch at byte pointer `conv` (may be `src`) and copied out canonical into
 * an array from this thread's free list.
 */
function canonicalCopy(kernels: GkrKernels, src: number, conv: number, words: number): Uint32Array {
  kernels.raw.from_mont(conv, src, words);
  const v = takeWords(words);
  const at = conv >>> 2;
  v.set(kernels.words().subarray(at, at + words));
  return v;
}

/** Largest `maxBlocks` of the circuit's groups (the scratch of their block offsets). */
function maxGroupBlocks(circuit: StructuredCircuit): number {
  let maxBlocks = 0;
  for (const l of circuit.layers) for (const g of l.linear) maxBlocks = Math.max(maxBlocks, g.outBase.length);
  return maxBlocks;
}

/**
 * `evaluateStructuredCopies` on the kernels: every layer of the K copies in WASM memory (Montgomery
 * form). Without `keep` (or when the layers do not fit one region) each layer is copied out
 * canonical; with it, vector 0 (the outputs) is copied out and vectors 1..D are `KeptVector`s
 * (vector D holds the input itself). Same values as the TypeScript evaluation
 * (test/gkr/structured-dp.test.ts).
 * @param input K inputs of 2^inputWidthBits canonical values back to back (checked by the caller).
 */
export function evaluateCopiesWasm(
  kernels: GkrKernels,
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
): Uint32Array[];
export function evaluateCopiesWasm(
  kernels: GkrKernels,
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
  keep: ResidentCopies | null,
): (Uint32Array | KeptVector)[];
export function evaluateCopiesWasm(
  kernels: GkrKernels,
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
  keep: ResidentCopies | null = null,
): (Uint32Array | KeptVector)[] {
  const raw = kernels.raw as CopiesEvalExports;
  const K = 2 ** copyBits;
  const D = circuit.layers.length;
  const bitsOf = (j: number) => (j < D ? circuit.layers[j]!.widthBits : circuit.inputWidthBits);
  let maxWords = 0;
  for (let j = 0; j <= D; j++) maxWords = Math.max(maxWords, K * 2 ** bitsOf(j));
  if (keep !== null) {
    const kept = evaluateKept(kernels, circuit, copyBits, input, keep);
    if (kept !== null) return kept;
  }
  const maxBlocks = maxGroupBlocks(circuit);
  const lay = new Carver();
  const bufA = lay.take(maxWords),
    bufB = lay.take(maxWords),
    conv = lay.take(maxWords);
  const consts = lay.take(16),
    diag = lay.take(16),
    scratch = lay.take(16),
    inB = lay.take(maxBlocks),
    outB = lay.take(maxBlocks);
  const images: LayerImage[] = [];
  const region = kernels.acquire(lay.words);
  try {
    const b = region.ptr >>> 2;
    const ptr = (o: number) => 4 * (b + o);
    const out: Uint32Array[] = new Array(D + 1);
    out[D] = input;
    const w = kernels.words();
    w.set(input, b + bufA);
    w.set(DIAG_MONT, b + diag);
    raw.to_mont(ptr(bufA), ptr(bufA), input.length);
    let below = bufA,
      cur = bufB;
    const groupScratch: GroupScratch = { base: b, consts, diag, scratch, inB, outB };
    for (let i = D - 1; i >= 0; i--) {
      const nOut = evaluateLayerCopies(kernels, circuit, i, K, ptr(below), ptr(cur), groupScratch, images);
      out[i] = canonicalCopy(kernels, ptr(cur), ptr(conv), K * nOut);
      [below, cur] = [cur, below];
    }
    if (keep !== null) keep.adopt(out.slice(1, D));
    return out;
  } finally {
    for (const image of images) kernels.unpin(image);
    kernels.giveBack(region);
  }
}

/**
 * A layer vector of the K copies that a `ResidentCopies` keeps in kernel memory (Montgomery form)
 * from its evaluation until the keeper lets it go: the WASM backend reads it where it is; `values()`
 * reads it out canonical (once) while the keeper is live, and after `release()` (which reads every
 * vector out first); after `recycle()` it has no values any more.
 */
export class KeptVector implements HeldValues {
  private canonical: Uint32Array | null;

  /** @internal Made by the evaluation (`canonical`: the values when the caller holds them, as the input). */
  constructor(
    readonly keeper: ResidentCopies,
    /** Byte pointer of the vector in the keeper's kernel memory while it is live. */
    readonly ptr: number,
    readonly length: number,
    canonical: Uint32Array | null = null,
  ) {
    this.canonical = canonical;
  }

  /** True iff the vector can be read at `ptr` in the memory of `kernels`. */
  residentIn(kernels: GkrKernels): boolean {
    return this.keeper.live && this.keeper.kernels === kernels;
  }

  /**
   * The canonical values (read out of kernel memory on the first call, then the same array).
   * @throws KernelError `BAD_REGION` after the keeper's `recycle()` if they were never read out.
   */
  values(): Uint32Array {
    if (this.canonical !== null) return this.canonical;
    if (!this.keeper.live)
      throw new KernelError("BAD_REGION", "the layer vector was given back with its keeper (ResidentCopies.recycle)");
    const k = this.keeper.kernels;
    const region = k.acquire(this.length);
    try {
      this.canonical = canonicalCopy(k, this.ptr, region.ptr, this.length);
    } finally {
      k.giveBack(region);
    }
    this.keeper.adopt([this.canonical]);
    return this.canonical;
  }

  /** @internal The canonical values if read out (or given), else null. */
  get read(): Uint32Array | null {
    return this.canonical;
  }
}

/**
 * Layer vectors of K copies kept in WASM memory (Montgomery form) from their evaluation until
 * `recycle()` or `release()`: the data-parallel prover's `load` uses them where they are instead of
 * copying canonical vectors in (docs/profile-v2.md §6.2), and nothing is copied out for it. One
 * region for vectors 1..D (the layers below some layer and the input); vector 0 (the outputs) is
 * never loaded and is copied out.
 */
export class ResidentCopies {
  private region: Region | null = null;
  private vectors: KeptVector[] = [];
  /** Canonical vectors this keeper took from the free list, which `recycle()` gives back. */
  private owned: Uint32Array[] = [];

  constructor(readonly kernels: GkrKernels) {}

  /** False after `release()` or `recycle()`. */
  get live(): boolean {
    return this.region !== null;
  }

  /** @internal Takes the region and the vectors kept in it. */
  attach(region: Region, vectors: readonly KeptVector[]): void {
    this.region = region;
    this.vectors = [...vectors];
  }

  /** @internal Records canonical vectors handed out from the free list, for `recycle()`. */
  adopt(vectors: readonly Uint32Array[]): void {
    this.owned.push(...vectors);
  }

  /**
   * Gives the memory back, and the canonical layer vectors 1..D − 1 read out of it (or, when the
   * layers did not fit kernel memory, copied out by the evaluation) go back to this thread's free
   * list for the next evaluation (src/memory/recycled-words.ts): the caller must not read any of
   * the vectors afterwards. Idempotent. The input and the outputs are never taken.
   */
  recycle(): void {
    this.giveBackRegion();
    const owned = this.owned;
    this.owned = [];
    giveBackWords(owned);
  }

  /** Reads every kept vector out canonical (they stay readable), then gives the memory back; idempotent. */
  release(): void {
    if (this.region === null) return;
    for (const v of this.vectors) v.values();
    this.owned = [];
    this.giveBackRegion();
  }

  private giveBackRegion(): void {
    if (this.region === null) return;
    this.vectors = [];
    this.kernels.giveBack(this.region);
    this.region = null;
  }
}

/**
 * Largest region (words) `evaluateCopiesWasm` keeps for the layers: 1 GiB, half the private kernel
 * memory, the rest left to the prover's tables (a block of 2,048 d48 updates keeps 992 MiB); above
 * it the layers are copied out per layer.
 */
export const MAX_RESIDENT_WORDS = 1 << 28;

/** `evaluateCopiesWasm` computing each layer into its own part of one kept region; null when the region cannot be had. */
function evaluateKept(
  kernels: GkrKernels,
  circuit: StructuredCircuit,
  copyBits: number,
  input: Uint32Array,
  keep: ResidentCopies,
): (Uint32Array | KeptVector)[] | null {
  const raw = kernels.raw as CopiesEvalExports;
  const K = 2 ** copyBits;
  const D = circuit.layers.length;
  const bitsOf = (j: number) => (j < D ? circuit.layers[j]!.widthBits : circuit.inputWidthBits);
  const kept = new Carver();
  const slot: number[] = new Array(D + 1).fill(-1);
  for (let j = 1; j <= D; j++) slot[j] = kept.take(K * 2 ** bitsOf(j));
  if (kept.words > MAX_RESIDENT_WORDS) return null;
  let region: Region | null;
  try {
    region = kernels.acquire(kept.words);
  } catch {
    return null;
  }
  const lay = new Carver();
  const maxBlocks = maxGroupBlocks(circuit);
  const top = lay.take(K * 2 ** bitsOf(0));
  const consts = lay.take(16),
    diag = lay.take(16),
    scratch = lay.take(16),
    inB = lay.take(maxBlocks),
    outB = lay.take(maxBlocks);
  const images: LayerImage[] = [];
  let work: Region | null = null;
  try {
    work = kernels.acquire(lay.words);
    const b = work.ptr >>> 2,
      rb = region.ptr >>> 2;
    const ptr = (o: number) => 4 * (b + o);
    const at = (j: number) => (j === 0 ? ptr(top) : 4 * (rb + slot[j]!));
    const w = kernels.words();
    w.set(input, rb + slot[D]!);
    w.set(DIAG_MONT, b + diag);
    raw.to_mont(at(D), at(D), input.length);
    const groupScratch: GroupScratch = { base: b, consts, diag, scratch, inB, outB };
    for (let i = D - 1; i >= 0; i--)
      evaluateLayerCopies(kernels, circuit, i, K, at(i + 1), at(i), groupScratch, images);
    const out: (Uint32Array | KeptVector)[] = new Array(D + 1);
    out[0] = canonicalCopy(kernels, at(0), at(0), K * 2 ** bitsOf(0));
    for (let j = 1; j <= D; j++) out[j] = new KeptVector(keep, at(j), K * 2 ** bitsOf(j), j === D ? input : null);
    keep.attach(region, out.slice(1) as KeptVector[]);
    region = null;
    return out;
  } finally {
    for (const image of images) kernels.unpin(image);
    if (work !== null) kernels.giveBack(work);
    if (region !== null) kernels.giveBack(region);
  }
}
