// The NTT's passes over memory (docs/pcs.md §4.1) for codewords larger than the caches: the
// bit-reversal permutation by tiles (out of place for a codeword, in place for the NTT), and the
// butterfly stages of half-span 4096 and above several at a time. Each call owns whole tiles (or
// pairs of tiles) or units, so calls over a partition run on any thread in any order; a call's
// `scratch` (2·16·16·width words for two tiles, 2^s·16·width for a unit and (2^s − 1)·16 for its
// twiddles) is its own. The results are those of `ntt_forward` in ntt.ts.
//
// Tiles: with Q = 4 and L = logN − 2Q, index i = a·2^(logN−Q) + b·2^Q + c (a, c < 2^Q, b < 2^L)
// has the bit reversal rev(i) = rev_Q(c)·2^(logN−Q) + rev_L(b)·2^Q + rev_Q(a), so the 2^Q × 2^Q
// elements of tile b are those of tile rev_L(b) transposed: 2^Q runs of 2^Q contiguous elements are
// read into the scratch, then written out as 2^Q runs. A zero-padded input of at most 2^(logN − r)
// values (r ≤ Q) has zeros wherever one of the low r bits of i is set, and the first r stages of
// the NTT turn each group of 2^r elements (the value, then zeros) into 2^r copies of the value:
// the copy writes those copies and the stages start at half-span 2^r.
//
// Units: the stages of half-span h, 2h, …, 2^(s−1)·h act within the 2^s elements
// start + k + j·h (j < 2^s) for each start, a multiple of 2^s·h, and column k < h. A unit is 16
// adjacent columns of one start: its 2^s runs of 16 elements are gathered into the scratch, the s
// stages run there (in L1, whatever the stride h) with the unit's twiddles gathered beside them, and
// the runs are written back. Twiddles as in ntt.ts: words [H, 2H) of `tw` hold ω_(2H)^k, `tws`
// their Shoup companions. A unit's twiddles are not gathered from the tables (for the top stages
// they are twice the data): the twiddle of stage H = half·h, row pair jj, column k0 + c is
// ω_(2H)^(jj·h + k0 + c) = ω_(2·half)^jj · ω_(2H)^(k0 + c), words half + jj and H + k0 + c of `tw`;
// one run of 16 per stage is read, and the products are computed in Montgomery form, which the
// butterflies multiply by (a Montgomery product with a canonical operand is canonical).
import { R_MOD_P, R_MOD_P_SHOUP, vAdd, vMontMul, vShoupMul, vSub } from "./field";

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

/** Reads tile `rb` of `src` (run c from row rev_Q(c), zeros from element `count` on) into `scratch`: the runs c that are multiples of `step` (the others are not read). */
// @ts-ignore: decorator
@inline function readTile(scratch: usize, src: usize, rb: u32, rowStride: u32, count: u32, width: u32, step: u32): void {
  for (let c: u32 = 0; c < SIDE; c += step) {
    readRun(scratch + ((<usize>(c * SIDE * width)) << 2), src, reverseBits(c, Q) * rowStride + (rb << Q), count, width);
  }
}

/** Writes the tile in `scratch` transposed to tile b of `dst`: element c of output run a is element rev_Q(a) of scratch run c & `mask`. */
// @ts-ignore: decorator
@inline function writeTile(dst: usize, scratch: usize, b: u32, rowStride: u32, width: u32, mask: u32): void {
  for (let a: u32 = 0; a < SIDE; a++) {
    const ra = reverseBits(a, Q);
    const out = dst + ((<usize>((a * rowStride + (b << Q)) * width)) << 2);
    if (width == 4) {
      for (let c: u32 = 0; c < SIDE; c++) v128.store(out + (<usize>c << 4), v128.load(scratch + (<usize>((c & mask) * SIDE + ra) << 4)));
    } else {
      for (let c: u32 = 0; c < SIDE; c += 4) {
        let v = i32x4.splat(load<u32>(scratch + (<usize>((c & mask) * SIDE + ra) << 2)));
        v = i32x4.replace_lane(v, 1, load<u32>(scratch + (<usize>(((c + 1) & mask) * SIDE + ra) << 2)));
        v = i32x4.replace_lane(v, 2, load<u32>(scratch + (<usize>(((c + 2) & mask) * SIDE + ra) << 2)));
        v = i32x4.replace_lane(v, 3, load<u32>(scratch + (<usize>(((c + 3) & mask) * SIDE + ra) << 2)));
        v128.store(out + (<usize>c << 2), v);
      }
    }
  }
}

/**
 * dst[i] = src[rev(i)] for the indices i of tiles [from, to) of 2^logN (logN ≥ 8), where src
 * holds `count` elements of `width` (1 or 4) words and zeros after them: the bit-reversal
 * permutation of the zero-padded input, out of place. With `r` > 0 (r ≤ 4, count ≤ 2^(logN − r))
 * it writes instead what the first r stages of the NTT make of it: dst[i] = src[rev(i − i mod 2^r)].
 * Calls over a partition of [0, 2^(logN − 8)) write all of dst.
 */
export function ntt_bit_reverse_copy(dst: usize, src: usize, logN: u32, width: u32, count: u32, r: u32, scratch: usize, from: u32, to: u32): void {
  const L = logN - 2 * Q;
  const rowStride: u32 = 1 << (logN - Q);
  const step: u32 = 1 << r;
  for (let b = from; b < to; b++) {
    readTile(scratch, src, reverseBits(b, L), rowStride, count, width, step);
    writeTile(dst, scratch, b, rowStride, width, ~(step - 1));
  }
}

/**
 * The bit-reversal permutation of the 2^logN (logN ≥ 8) elements at `data` in place, for the
 * tiles b in [from, to) with b ≤ rev_L(b) (each swapped with tile rev_L(b), both transposed, in a
 * scratch of two tiles): calls over a partition of [0, 2^(logN − 8)) permute all of data.
 */
export function ntt_bit_reverse_tiles(data: usize, logN: u32, width: u32, scratch: usize, from: u32, to: u32): void {
  const L = logN - 2 * Q;
  const rowStride: u32 = 1 << (logN - Q);
  const n: u32 = 1 << logN;
  const other = scratch + ((<usize>(SIDE * SIDE * width)) << 2);
  for (let b = from; b < to; b++) {
    const rb = reverseBits(b, L);
    if (rb < b) continue;
    readTile(scratch, data, rb, rowStride, n, width, 1);
    if (rb != b) readTile(other, data, b, rowStride, n, width, 1);
    writeTile(data, scratch, b, rowStride, width, ~0);
    if (rb != b) writeTile(data, other, rb, rowStride, width, ~0);
  }
}

/** lo, hi ← lo + hi·t, lo − hi·t for the twiddles t·R mod p in `tR` (a Montgomery product). */
// @ts-ignore: decorator
@inline function butterfly(lo: usize, hi: usize, tR: v128): void {
  const u = v128.load(lo);
  const x = vMontMul(v128.load(hi), tR);
  v128.store(lo, vAdd(u, x));
  v128.store(hi, vSub(u, x));
}

/**
 * The butterflies of one stage on a unit in the scratch: rows g and g + half for g mod 2·half
 * below half, 16 columns; the twiddles of row pair jj are run half − 1 + jj of `twR` (16 words,
 * Montgomery form). Width 4: one column per vector, its twiddle in every lane; width 1: four
 * columns per vector.
 */
// @ts-ignore: decorator
@inline function unitStage(scratch: usize, rows: u32, half: u32, width: u32, twR: usize): void {
  const span = half << 1;
  const rowBytes = <usize>(SIDE * width) << 2;
  const step: u32 = width == 4 ? 1 : 4;
  for (let jj: u32 = 0; jj < half; jj++) {
    const twAt = twR + (<usize>((half - 1 + jj) * SIDE) << 2);
    for (let col: u32 = 0; col < SIDE; col += step) {
      const tR = width == 4 ? i32x4.splat(load<u32>(twAt + (<usize>col << 2))) : v128.load(twAt + (<usize>col << 2));
      const colAt = scratch + ((<usize>(col * width)) << 2);
      for (let g = jj; g < rows; g += span) {
        const lo = colAt + <usize>g * rowBytes;
        butterfly(lo, lo + <usize>half * rowBytes, tR);
      }
    }
  }
}

/**
 * Run half − 1 + jj of `out` (16 words) ← the twiddles of stage half·h, row pair jj, columns
 * k0 … k0 + 15 in Montgomery form, for every stage half < rows and jj < half: the run of words
 * half·h + k0 … of `tw` times word half + jj (ω_(2·half)^jj, companion in `tws`).
 */
// @ts-ignore: decorator
@inline function unitTwiddles(out: usize, tw: usize, tws: usize, h: u32, k0: u32, rows: u32): void {
  const r = i32x4.splat(R_MOD_P);
  const rs = i32x4.splat(R_MOD_P_SHOUP);
  for (let half: u32 = 1; half < rows; half <<= 1) {
    const from = tw + ((<usize>(half * h + k0)) << 2);
    const run = out + (<usize>((half - 1) * SIDE) << 2);
    for (let c: u32 = 0; c < SIDE; c += 4) {
      const baseR = vShoupMul(v128.load(from + (<usize>c << 2)), r, rs);
      v128.store(run + (<usize>c << 2), baseR);
      for (let jj: u32 = 1; jj < half; jj++) {
        const w = i32x4.splat(load<u32>(tw + (<usize>(half + jj) << 2)));
        const ws = i32x4.splat(load<u32>(tws + (<usize>(half + jj) << 2)));
        v128.store(run + (<usize>(jj * SIDE + c) << 2), vShoupMul(baseR, w, ws));
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
  const twR = scratch + <usize>rows * rowBytes;
  for (let u = from; u < to; u++) {
    const k0 = (u & ((1 << chunkBits) - 1)) << Q;
    const start = (u >> chunkBits) << (logH + s);
    const base = data + ((<usize>(start + k0) * width) << 2);
    for (let j: u32 = 0; j < rows; j++) copyVectors(scratch + <usize>j * rowBytes, base + <usize>j * strideBytes, rowBytes);
    unitTwiddles(twR, tw, tws, h, k0, rows);
    for (let half: u32 = 1; half < rows; half <<= 1) unitStage(scratch, rows, half, width, twR);
    for (let j: u32 = 0; j < rows; j++) copyVectors(base + <usize>j * strideBytes, scratch + <usize>j * rowBytes, rowBytes);
  }
}
