/**
 * How the commitment's bulk kernels (src/kernels/pcs-kernels.ts) are cut into calls that run on
 * several threads at once (the pool's `kernelCalls`, src/pcs/parallel.ts): each function returns
 * the calls of one step, which write disjoint memory, so they may run in any order and on any
 * thread attached to the same kernel memory, and their union is the whole kernel call. Steps that
 * depend on each other (the NTT's bit reversal, its short stages, its long stages) are separate
 * batches. With one part, each step is one call: the one-thread path runs the same calls.
 */
import type { PcsKernelCall } from "../pcs/backend.js";

/** Elements of a cache block of the NTT and Möbius kernels (`BLOCK` in assembly/ntt.ts). */
export const SPLIT_BLOCK = 4096;

/** [from, to) ranges cutting [0, n) into at most `parts` pieces, each a multiple of `align` (n a multiple of `align`). */
export function ranges(n: number, parts: number, align: number): [number, number][] {
  const units = Math.floor(n / align);
  const count = Math.max(1, Math.min(parts, units));
  const out: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const a = Math.floor((units * i) / count) * align;
    const b = i === count - 1 ? n : Math.floor((units * (i + 1)) / count) * align;
    if (b > a) out.push([a, b]);
  }
  return out;
}

/** The calls of one step over [0, n) cut by `ranges`: `call(from, to, i)` for the i-th range. */
export function cut(
  n: number,
  parts: number,
  align: number,
  call: (from: number, to: number, i: number) => PcsKernelCall,
): PcsKernelCall[] {
  return ranges(n, parts, align).map(([a, b], i) => call(a, b, i));
}

/** Most stages one pass of `ntt_stages_pass` runs (its units are 2^s runs of 16 elements). */
export const PASS_STAGES = 6;

/** Words of scratch each call of the NTT's batches needs (`ntt_stages_pass`, `ntt_bit_reverse_copy`, `ntt_bit_reverse_tiles`), `width` words per element. */
export function nttScratchWords(width: number): number {
  return (16 << PASS_STAGES) * width + 16 * ((1 << PASS_STAGES) - 1);
}

/** Fewest log-elements of an NTT whose bit reversal runs by tiles (`ntt_bit_reverse_copy`, `ntt_bit_reverse_tiles`: 16 × 16 elements each). */
export const TILED_REVERSE_LOG = 8;

/** Most of the NTT's first stages the codeword's bit reversal does itself (a tile's side is 2^4). */
const MAX_COPIED_STAGES = 4;

/**
 * An NTT of 2^logN elements of `width` (1 or 4) words at byte pointer `data`, with the twiddle
 * tables at `tw` and `tws` (assembly/ntt.ts); call i of a batch uses the scratch at
 * `scratch` + i·4·`nttScratchWords(width)` bytes.
 */
export interface NttOperands {
  readonly data: number;
  readonly width: number;
  readonly logN: number;
  readonly tw: number;
  readonly tws: number;
  readonly scratch: number;
}

function scratchOf(op: NttOperands, i: number): number {
  return op.scratch + i * 4 * nttScratchWords(op.width);
}

/**
 * The batches of the NTT's butterfly stages from half-span 2^first on, on bit-reversed data whose
 * earlier stages are done: the stages of half-span below the cache block by blocks, then the
 * longer ones in passes of at most PASS_STAGES stages by units (`ntt_stages_pass`).
 */
export function nttStageBatches(op: NttOperands, parts: number, first = 0): PcsKernelCall[][] {
  const { data, width, logN, tw, tws } = op;
  const n = 1 << logN;
  const block = Math.min(n, SPLIT_BLOCK);
  const batches: PcsKernelCall[][] = [
    cut(n, parts, block, (a, b) => ({ fn: "ntt_stages_low", args: [data, logN, width, tw, tws, first, a, b] })),
  ];
  const logBlock = Math.log2(block);
  const high = logN - logBlock;
  const passes = Math.ceil(high / PASS_STAGES);
  for (let p = 0, logH = logBlock; p < passes; p++) {
    const s = Math.floor((high * (p + 1)) / passes) - Math.floor((high * p) / passes);
    const h = logH;
    batches.push(
      cut(1 << (logN - s - 4), parts, 1, (a, b, i) => ({
        fn: "ntt_stages_pass",
        args: [data, logN, width, tw, tws, h, s, scratchOf(op, i), a, b],
      })),
    );
    logH += s;
  }
  return batches;
}

/** The batches of the forward NTT in place: the bit reversal (by pairs of tiles from 2^TILED_REVERSE_LOG elements on), then `nttStageBatches`. */
export function nttBatches(op: NttOperands, parts: number): PcsKernelCall[][] {
  const { data, width, logN } = op;
  const reverse =
    logN >= TILED_REVERSE_LOG
      ? cut(1 << (logN - 8), parts, 1, (a, b, i) => ({
          fn: "ntt_bit_reverse_tiles",
          args: [data, logN, width, scratchOf(op, i), a, b],
        }))
      : [{ fn: "ntt_bit_reverse", args: [data, logN, width, 0, 1 << logN] }];
  return [reverse, ...nttStageBatches(op, parts)];
}

/** How many of the NTT's first stages only copy for `count` values zero-padded to 2^logN (at most MAX_COPIED_STAGES). */
export function copiedStages(count: number, logN: number): number {
  const logCount = count <= 1 ? 0 : 32 - Math.clz32(count - 1);
  return Math.max(0, Math.min(MAX_COPIED_STAGES, logN - logCount));
}

/**
 * The batches of the codeword of `count` elements at byte pointer `src`, zero-padded to 2^logN
 * (logN ≥ TILED_REVERSE_LOG), into `op.data`: the bit reversal out of place by tiles, which also
 * writes what the first stages make of the zeros (`copiedStages`: 2 at rate 1/4), then
 * `nttStageBatches` from the next stage.
 */
export function codewordBatches(op: NttOperands, src: number, count: number, parts: number): PcsKernelCall[][] {
  const { data, width, logN } = op;
  const r = copiedStages(count, logN);
  const reverse = cut(1 << (logN - 8), parts, 1, (a, b, i) => ({
    fn: "ntt_bit_reverse_copy",
    args: [data, src, logN, width, count, r, scratchOf(op, i), a, b],
  }));
  return [reverse, ...nttStageBatches(op, parts, r)];
}

/** The batches of the Möbius transform of 2^logN elements at byte pointer `data` (low bits by blocks, high bits by columns). */
export function mobiusBatches(data: number, width: number, logN: number, parts: number): PcsKernelCall[][] {
  const n = 1 << logN;
  const block = Math.min(n, SPLIT_BLOCK);
  const batches: PcsKernelCall[][] = [
    cut(n, parts, block, (a, b) => ({ fn: "pcs_mobius_low", args: [data, logN, width, a, b] })),
  ];
  if (n > block)
    batches.push(cut(block, parts, 4, (a, b) => ({ fn: "pcs_mobius_high", args: [data, logN, width, a, b] })));
  return batches;
}
