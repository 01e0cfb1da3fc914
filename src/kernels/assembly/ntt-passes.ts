// The NTT's passes over memory (docs/pcs.md §4.1) for codewords larger than the caches: the
// bit-reversal permutation as an out-of-place copy by tiles, and the butterfly stages of half-span
// 4096 and above several at a time. Each call owns whole tiles or units, so calls over a partition
// run on any thread in any order; a call's `scratch` (16·16·width words for a tile, 2^s·16·width
// for a unit and 2·(2^s − 1)·16 for its twiddles) is its own. The results are those of
// `ntt_forward` in ntt.ts.
//
// Tiles: with Q = 4 and L = logN − 2Q, index i = a·2^(logN−Q) + b·2^Q + c (a, c < 2^Q, b < 2^L)
// has the bit reversal rev(i) = rev_Q(c)·2^(logN−Q) + rev_L(b)·2^Q + rev_Q(a), so the 2^Q × 2^Q
// elements of tile b are those of tile rev_L(b) transposed: 2^Q runs of 2^Q contiguous elements are
// read into the scratch, then written out as 2^Q runs.
//
// Units: the stages of half-span h, 2h, …, 2^(s−1)·h act within the 2^s elements
// start + k + j·h (j < 2^s) for each start, a multiple of 2^s·h, and column k < h. A unit is 16
// adjacent columns of one start: its 2^s runs of 16 elements are gathered into the scratch, the s
// stages run there (in L1, whatever the stride h) with the unit's twiddles gathered beside them, and
// the runs are written back. Twiddles as in ntt.ts: words [H, 2H) of `tw` hold ω_(2H)^k, `tws`
// their Shoup companions.
import { vAdd, vShoupMul, vSub } from "./field";

const Q: u32 = 4;
const SIDE: u32 = 1 << Q;

/** Copies `bytes` (a multiple of 16) from `from` to `to` by vectors. */
// @ts-ignore: decorator
@inline function copyVectors(to: usize, from: usize, bytes: usize): void {
  for (let o: usize = 0; o < bytes; o += 16) v128.store(to + o, v128.load(from + o));
}

/** Zeros `bytes` (a multiple of 4) at `to`. */
// @ts-ignore: decorator
@inline function zeroWords(to: usize, bytes: usize): void {
  for (let o: usize = 0; o < bytes; o += 4) store<u32>(to + o, 0);
}

// @ts-ignore: decorator
@inline function reverseBits(x: u32, bits: u32): u32 {
  let v = x;
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = bswap<u32>(v);
  return bits == 0 ? 0 : v >>> (32 - bits);
}

/** Copies the 16 elements at index `at` of `src` (zeros from index `count` on) to `to`, `width` words each. */
// @ts-ignore: decorator
@inline function readRun(to: usize, src: usize, at: u32, count: u32, width: u32): void {
  const bytes = <usize>(SIDE * width) << 2;
  if (at + SIDE <= count) {
    copyVectors(to, src + ((<usize>at * width) << 2), bytes);
  } else if (at >= count) {
    zeroWords(to, bytes);
  } else {
    const kept = <usize>((count - at) * width) << 2;
    for (let o: usize = 0; o < kept; o += 4) store<u32>(to + o, load<u32>(src + ((<usize>at * width) << 2) + o));
    zeroWords(to + kept, bytes - kept);
  }
}

/**
 * dst[i] = src[rev(i)] for the indices i of tiles [from, to) of 2^logN (logN ≥ 8), where src
 * holds `count` elements of `width` (1 or 4) words and zeros after them: the bit-reversal
 * permutation of the zero-padded input, out of place. Calls over a partition of
 * [0, 2^(logN − 8)) write all of dst.
 */
export function ntt_bit_reverse_copy(dst: usize, src: usize, logN: u32, width: u32, count: u32, scratch: usize, from: u32, to: u32): void {
  const L = logN - 2 * Q;
  const rowStride: u32 = 1 << (logN - Q);
  for (let b = from; b < to; b++) {
    const rb = reverseBits(b, L);
    for (let c: u32 = 0; c < SIDE; c++) {
      readRun(scratch + ((<usize>(c * SIDE * width)) << 2), src, reverseBits(c, Q) * rowStride + (rb << Q), count, width);
    }
    for (let a: u32 = 0; a < SIDE; a++) {
      const ra = reverseBits(a, Q);
      const out = dst + ((<usize>((a * rowStride + (b << Q)) * width)) << 2);
      if (width == 4) {
        for (let c: u32 = 0; c < SIDE; c++) v128.store(out + (<usize>c << 4), v128.load(scratch + (<usize>(c * SIDE + ra) << 4)));
      } else {
        for (let c: u32 = 0; c < SIDE; c += 4) {
          let v = i32x4.splat(load<u32>(scratch + (<usize>(c * SIDE + ra) << 2)));
          v = i32x4.replace_lane(v, 1, load<u32>(scratch + (<usize>((c + 1) * SIDE + ra) << 2)));
          v = i32x4.replace_lane(v, 2, load<u32>(scratch + (<usize>((c + 2) * SIDE + ra) << 2)));
          v = i32x4.replace_lane(v, 3, load<u32>(scratch + (<usize>((c + 3) * SIDE + ra) << 2)));
          v128.store(out + (<usize>c << 2), v);
        }
      }
    }
  }
}

/**
 * The butterflies of one stage on a unit in the scratch: rows g and g + half for g mod 2·half
 * below half, 16 columns; the twiddles of row pair jj are the gathered run half − 1 + jj of `tw`
 * and `tws` (16 words each).
 */
// @ts-ignore: decorator
@inline function unitStage(scratch: usize, rows: u32, half: u32, width: u32, tw: usize, tws: usize): void {
  const span = half << 1;
  const rowBytes = <usize>(SIDE * width) << 2;
  for (let jj: u32 = 0; jj < half; jj++) {
    const twAt = tw + (<usize>((half - 1 + jj) * SIDE) << 2);
    const twsAt = tws + (<usize>((half - 1 + jj) * SIDE) << 2);
    if (width == 4) {
      for (let col: u32 = 0; col < SIDE; col++) {
        const w = i32x4.splat(load<u32>(twAt + (<usize>col << 2)));
        const ws = i32x4.splat(load<u32>(twsAt + (<usize>col << 2)));
        for (let g = jj; g < rows; g += span) {
          const lo = scratch + <usize>g * rowBytes + (<usize>col << 4);
          const hi = lo + <usize>half * rowBytes;
          const u = v128.load(lo);
          const x = vShoupMul(v128.load(hi), w, ws);
          v128.store(lo, vAdd(u, x));
          v128.store(hi, vSub(u, x));
        }
      }
    } else {
      for (let col: u32 = 0; col < SIDE; col += 4) {
        const w = v128.load(twAt + (<usize>col << 2));
        const ws = v128.load(twsAt + (<usize>col << 2));
        for (let g = jj; g < rows; g += span) {
          const lo = scratch + <usize>g * rowBytes + (<usize>col << 2);
          const hi = lo + <usize>half * rowBytes;
          const u = v128.load(lo);
          const x = vShoupMul(v128.load(hi), w, ws);
          v128.store(lo, vAdd(u, x));
          v128.store(hi, vSub(u, x));
        }
      }
    }
  }
}

/**
 * The NTT's stages of half-span 2^logH … 2^(logH + s − 1) (logH ≥ 4, logH + s ≤ logN) on units
 * [from, to) of the 2^(logN − s − 4) units (unit u: start (u >> (logH − 4))·2^(logH + s), columns
 * 16·(u mod 2^(logH − 4)) and the next 15), on data whose stages below 2^logH are done.
 */
export function ntt_stages_pass(data: usize, logN: u32, width: u32, tw: usize, tws: usize, logH: u32, s: u32, scratch: usize, from: u32, to: u32): void {
  const h: u32 = 1 << logH;
  const rows: u32 = 1 << s;
  const chunkBits = logH - Q;
  const rowBytes = <usize>(SIDE * width) << 2;
  const strideBytes = (<usize>h * width) << 2;
  const twRuns = scratch + <usize>rows * rowBytes;
  const twsRuns = twRuns + (<usize>((rows - 1) * SIDE) << 2);
  for (let u = from; u < to; u++) {
    const k0 = (u & ((1 << chunkBits) - 1)) << Q;
    const start = (u >> chunkBits) << (logH + s);
    const base = data + ((<usize>(start + k0) * width) << 2);
    for (let j: u32 = 0; j < rows; j++) copyVectors(scratch + <usize>j * rowBytes, base + <usize>j * strideBytes, rowBytes);
    // The twiddles of stage half and row pair jj are words (half + jj)·h + k0 … + 15: run r = half + jj − 1 of the gathered ones.
    for (let r: u32 = 1; r < rows; r++) {
      const at = (<usize>(r * h + k0)) << 2;
      const to = (<usize>((r - 1) * SIDE)) << 2;
      copyVectors(twRuns + to, tw + at, SIDE << 2);
      copyVectors(twsRuns + to, tws + at, SIDE << 2);
    }
    for (let half: u32 = 1; half < rows; half <<= 1) unitStage(scratch, rows, half, width, twRuns, twsRuns);
    for (let j: u32 = 0; j < rows; j++) copyVectors(base + <usize>j * strideBytes, scratch + <usize>j * rowBytes, rowBytes);
  }
}
