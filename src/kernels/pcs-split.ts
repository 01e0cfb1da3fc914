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

/** Elements per call of the kernels with one long loop (the NTT's bit reversal). */
const CALL_ELEMENTS = 1 << 14;

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

/** Most stages one pass of `ntt_stages_pass` runs (its units are 2^s runs of 16 elements). */
export const PASS_STAGES = 6;

/** Words of scratch each call of the NTT's batches needs (`ntt_stages_pass`, `ntt_bit_reverse_copy`), `width` words per element. */
export function nttScratchWords(width: number): number {
  return (16 << PASS_STAGES) * width + 2 * 16 * ((1 << PASS_STAGES) - 1);
}

/**
 * The batches of the NTT's butterfly stages of 2^logN elements at byte pointer `data`, on
 * bit-reversed data: the stages of half-span below the cache block by blocks, then the longer ones
 * in passes of at most PASS_STAGES stages by units (`ntt_stages_pass`). Call i of a batch uses the
 * scratch at `scratch` + i·4·`nttScratchWords(width)` bytes.
 */
export function nttStageBatches(
  data: number,
  width: number,
  logN: number,
  tw: number,
  tws: number,
  parts: number,
  scratch: number,
): PcsKernelCall[][] {
  const n = 1 << logN;
  const block = Math.min(n, SPLIT_BLOCK);
  const batches: PcsKernelCall[][] = [
    ranges(n, parts, block).map(
      ([a, b]): PcsKernelCall => ({ fn: "ntt_stages_low", args: [data, logN, width, tw, tws, a, b] }),
    ),
  ];
  const logBlock = Math.log2(block);
  const high = logN - logBlock;
  const passes = Math.ceil(high / PASS_STAGES);
  const scratchBytes = 4 * nttScratchWords(width);
  for (let p = 0, logH = logBlock; p < passes; p++) {
    const s = Math.floor((high * (p + 1)) / passes) - Math.floor((high * p) / passes);
    const units = 1 << (logN - s - 4);
    const h = logH;
    batches.push(
      ranges(units, parts, 1).map(
        ([a, b], i): PcsKernelCall => ({
          fn: "ntt_stages_pass",
          args: [data, logN, width, tw, tws, h, s, scratch + i * scratchBytes, a, b],
        }),
      ),
    );
    logH += s;
  }
  return batches;
}

/** The batches of the forward NTT of 2^logN elements at byte pointer `data` in place: the bit reversal, then `nttStageBatches`. */
export function nttBatches(
  data: number,
  width: number,
  logN: number,
  tw: number,
  tws: number,
  parts: number,
  scratch: number,
): PcsKernelCall[][] {
  const n = 1 << logN;
  const reverse: PcsKernelCall[] = [];
  for (let from = 0; from < n; from += CALL_ELEMENTS)
    reverse.push({ fn: "ntt_bit_reverse", args: [data, logN, width, from, Math.min(CALL_ELEMENTS, n - from)] });
  return [reverse, ...nttStageBatches(data, width, logN, tw, tws, parts, scratch)];
}

/** Fewest log-elements of an NTT whose bit reversal runs by tiles (`ntt_bit_reverse_copy`: 16 × 16 elements each). */
export const TILED_REVERSE_LOG = 8;

/**
 * The batches of the codeword of `count` elements at byte pointer `src`, zero-padded to 2^logN
 * (logN ≥ TILED_REVERSE_LOG), into `dst`: the bit reversal out of place by tiles, then
 * `nttStageBatches` on `dst`.
 */
export function codewordBatches(
  dst: number,
  src: number,
  count: number,
  width: number,
  logN: number,
  tw: number,
  tws: number,
  parts: number,
  scratch: number,
): PcsKernelCall[][] {
  const scratchBytes = 4 * nttScratchWords(width);
  const reverse = ranges(1 << (logN - 2 * 4), parts, 1).map(
    ([a, b], i): PcsKernelCall => ({
      fn: "ntt_bit_reverse_copy",
      args: [dst, src, logN, width, count, scratch + i * scratchBytes, a, b],
    }),
  );
  return [reverse, ...nttStageBatches(dst, width, logN, tw, tws, parts, scratch)];
}

/** The batches of the Möbius transform of 2^logN elements at byte pointer `data` (low bits by blocks, high bits by columns). */
export function mobiusBatches(data: number, width: number, logN: number, parts: number): PcsKernelCall[][] {
  const n = 1 << logN;
  const block = Math.min(n, SPLIT_BLOCK);
  const batches: PcsKernelCall[][] = [
    ranges(n, parts, block).map(([a, b]): PcsKernelCall => ({ fn: "pcs_mobius_low", args: [data, logN, width, a, b] })),
  ];
  if (n > block)
    batches.push(
      ranges(block, parts, 4).map(
        ([a, b]): PcsKernelCall => ({ fn: "pcs_mobius_high", args: [data, logN, width, a, b] }),
      ),
    );
  return batches;
}

/** A kernel over `n` elements cut into ranges: `call(from, count)` for each. */
export function rangeCalls(
  n: number,
  parts: number,
  align: number,
  call: (from: number, count: number) => PcsKernelCall,
): PcsKernelCall[] {
  return ranges(n, parts, align).map(([a, b]) => call(a, b - a));
}
