// Forward number-theoretic transform over KoalaBear (docs/pcs.md §4.1), in place on canonical
// values: data[i] ← Σ_j data[j]·ω^(i·j) for the subgroup of order n = 2^logN, natural order in
// and out, on `width` interleaved lanes (1: base-field vectors; 4: extension vectors, one element
// per v128). Radix-2 decimation in time after a bit-reversal permutation; the stages of butterfly
// span below BLOCK run block by block so that they stay in cache, the longer ones stream.
//
// Twiddles come from the caller (src/kernels/ntt-kernel.ts): words [h, 2h) of `tw` hold ω_(2h)^k
// for k < h, for every stage half-span h = 1, 2, 4, …, n/2 (the table of the largest size serves
// every smaller one), and the same words of `tws` their Shoup companions, so multiplying by a
// twiddle is a Shoup product and the data stays canonical.
import { addS, shoupMulS, subS, vAdd, vShoupMul, vSub } from "./field";

/** Elements per cache block (16 KiB of base values, 64 KiB of extension values). */
const BLOCK: u32 = 4096;

// @ts-ignore: decorator
@inline function swapWords(data: usize, i: u32, j: u32, width: u32): void {
  if (width == 4) {
    const a = data + (<usize>i << 4);
    const b = data + (<usize>j << 4);
    const t = v128.load(a);
    v128.store(a, v128.load(b));
    v128.store(b, t);
  } else {
    const a = data + (<usize>i << 2);
    const b = data + (<usize>j << 2);
    const t = load<u32>(a);
    store<u32>(a, load<u32>(b));
    store<u32>(b, t);
  }
}

/** Swaps element i with element bitrev(i) for i in [from, from + count) where i < bitrev(i) (all of [0, 2^logN) is the bit-reversal permutation). */
function bitReverseRange(data: usize, logN: u32, width: u32, from: u32, count: u32): void {
  const n: u32 = 1 << logN;
  if (n < 2 || count == 0) return;
  let j: u32 = 0;
  for (let b: u32 = 0; b < logN; b++) j |= ((from >> b) & 1) << (logN - 1 - b);
  const end = from + count;
  for (let i = from; ; ) {
    if (i < j) swapWords(data, i, j, width);
    i++;
    if (i >= end) break;
    let bit = n >> 1;
    for (; (j & bit) != 0; bit >>= 1) j ^= bit;
    j ^= bit;
  }
}

/**
 * Part of the bit-reversal permutation that starts the forward NTT: elements [from, from + count)
 * swapped with their bit-reversed positions where these are larger. Calls over a partition of
 * [0, 2^logN) followed by `ntt_stages` equal `ntt_forward`.
 */
export function ntt_bit_reverse(data: usize, logN: u32, width: u32, from: u32, count: u32): void {
  bitReverseRange(data, logN, width, from, count);
}

/** The butterflies of half-span h over elements [from, to) (a multiple of 2h apart). */
function stage(data: usize, from: u32, to: u32, h: u32, width: u32, tw: usize, tws: usize): void {
  const len = h << 1;
  if (width == 4) {
    for (let start = from; start < to; start += len) {
      for (let k: u32 = 0; k < h; k++) {
        const w = i32x4.splat(load<u32>(tw + (<usize>(h + k) << 2)));
        const ws = i32x4.splat(load<u32>(tws + (<usize>(h + k) << 2)));
        const lo = data + (<usize>(start + k) << 4);
        const hi = lo + (<usize>h << 4);
        const u = v128.load(lo);
        const x = vShoupMul(v128.load(hi), w, ws);
        v128.store(lo, vAdd(u, x));
        v128.store(hi, vSub(u, x));
      }
    }
  } else if (h >= 4) {
    for (let start = from; start < to; start += len) {
      for (let k: u32 = 0; k < h; k += 4) {
        const w = v128.load(tw + (<usize>(h + k) << 2));
        const ws = v128.load(tws + (<usize>(h + k) << 2));
        const lo = data + (<usize>(start + k) << 2);
        const hi = lo + (<usize>h << 2);
        const u = v128.load(lo);
        const x = vShoupMul(v128.load(hi), w, ws);
        v128.store(lo, vAdd(u, x));
        v128.store(hi, vSub(u, x));
      }
    }
  } else {
    for (let start = from; start < to; start += len) {
      for (let k: u32 = 0; k < h; k++) {
        const w = load<u32>(tw + (<usize>(h + k) << 2));
        const ws = load<u32>(tws + (<usize>(h + k) << 2));
        const lo = data + (<usize>(start + k) << 2);
        const hi = lo + (<usize>h << 2);
        const u = load<u32>(lo);
        const x = shoupMulS(load<u32>(hi), w, ws);
        store<u32>(lo, addS(u, x));
        store<u32>(hi, subS(u, x));
      }
    }
  }
}

/** The butterflies of half-span h (≥ 4 for width 1, a multiple of 4 apart) for k in [k0, k1) in every span of 2h, on columns of the caller's choosing. */
function stageCols(data: usize, n: u32, h: u32, width: u32, tw: usize, tws: usize, block: u32, c0: u32, c1: u32): void {
  const len = h << 1;
  for (let start: u32 = 0; start < n; start += len) {
    for (let kb: u32 = 0; kb < h; kb += block) {
      const k0 = kb + c0, k1 = kb + c1;
      if (width == 4) {
        for (let k = k0; k < k1; k++) {
          const w = i32x4.splat(load<u32>(tw + (<usize>(h + k) << 2)));
          const ws = i32x4.splat(load<u32>(tws + (<usize>(h + k) << 2)));
          const lo = data + (<usize>(start + k) << 4);
          const hi = lo + (<usize>h << 4);
          const u = v128.load(lo);
          const x = vShoupMul(v128.load(hi), w, ws);
          v128.store(lo, vAdd(u, x));
          v128.store(hi, vSub(u, x));
        }
      } else {
        for (let k = k0; k < k1; k += 4) {
          const w = v128.load(tw + (<usize>(h + k) << 2));
          const ws = v128.load(tws + (<usize>(h + k) << 2));
          const lo = data + (<usize>(start + k) << 2);
          const hi = lo + (<usize>h << 2);
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
 * The NTT's stages of half-span 2^first up to below B = min(2^logN, 4096) on elements [from, to)
 * (multiples of B), on bit-reversed data whose stages below 2^first are done (first = 0: all of
 * them). Calls over a partition of [0, 2^logN), then `ntt_stages_high` over a partition of the
 * columns [0, B), equal `ntt_stages`: each block of B elements is closed under these stages.
 */
export function ntt_stages_low(data: usize, logN: u32, width: u32, tw: usize, tws: usize, first: u32, from: u32, to: u32): void {
  const n: u32 = 1 << logN;
  if (n < 2) return;
  const block = n < BLOCK ? n : BLOCK;
  for (let b = from; b < to; b += block) {
    for (let h: u32 = 1 << first; h < block; h <<= 1) stage(data, b, b + block, h, width, tw, tws);
  }
}

/**
 * The NTT's stages of half-span B = min(2^logN, 4096) and above on the elements whose index mod B
 * lies in [c0, c1) (multiples of 4): the elements of one such column are closed under these
 * stages, so calls over a partition of [0, B) run independently.
 */
export function ntt_stages_high(data: usize, logN: u32, width: u32, tw: usize, tws: usize, c0: u32, c1: u32): void {
  const n: u32 = 1 << logN;
  if (n < 2) return;
  const block = n < BLOCK ? n : BLOCK;
  for (let h = block; h < n; h <<= 1) stageCols(data, n, h, width, tw, tws, block, c0, c1);
}

/** Forward NTT in place of 2^logN elements of `width` (1 or 4) words with the caller's twiddle tables. */
export function ntt_forward(data: usize, logN: u32, width: u32, tw: usize, tws: usize): void {
  const n: u32 = 1 << logN;
  if (n < 2) return;
  bitReverseRange(data, logN, width, 0, n);
  ntt_stages(data, logN, width, tw, tws);
}

/** The butterfly stages of the forward NTT, on data already in bit-reversed order. */
export function ntt_stages(data: usize, logN: u32, width: u32, tw: usize, tws: usize): void {
  const n: u32 = 1 << logN;
  if (n < 2) return;
  const block = n < BLOCK ? n : BLOCK;
  for (let from: u32 = 0; from < n; from += block) {
    for (let h: u32 = 1; h < block; h <<= 1) stage(data, from, from + block, h, width, tw, tws);
  }
  for (let h = block; h < n; h <<= 1) stage(data, 0, n, h, width, tw, tws);
}

/**
 * Hypercube evaluations → multilinear coefficients in place (the Möbius transform, docs/pcs.md
 * §4.2): for each bit b, v[i] −= v[i − 2^b] where bit b of i is set; 2^logN elements of `width`
 * (1 or 4) words, canonical.
 */
export function pcs_mobius(data: usize, logN: u32, width: u32): void {
  const n: u32 = 1 << logN;
  for (let h: u32 = 1; h < n; h <<= 1) {
    for (let start: u32 = 0; start < n; start += h << 1) {
      if (width == 4) {
        for (let k: u32 = 0; k < h; k++) {
          const lo = data + (<usize>(start + k) << 4);
          const hi = lo + (<usize>h << 4);
          v128.store(hi, vSub(v128.load(hi), v128.load(lo)));
        }
      } else if (h >= 4) {
        for (let k: u32 = 0; k < h; k += 4) {
          const lo = data + (<usize>(start + k) << 2);
          const hi = lo + (<usize>h << 2);
          v128.store(hi, vSub(v128.load(hi), v128.load(lo)));
        }
      } else {
        for (let k: u32 = 0; k < h; k++) {
          const lo = data + (<usize>(start + k) << 2);
          const hi = lo + (<usize>h << 2);
          store<u32>(hi, subS(load<u32>(hi), load<u32>(lo)));
        }
      }
    }
  }
}

/** One Möbius step v[i + h] −= v[i] for the pairs starting at `start` with i − start in [k0, k1). */
// @ts-ignore: decorator
@inline function mobiusRun(data: usize, start: u32, k0: u32, k1: u32, h: u32, width: u32): void {
  if (width == 4) {
    for (let k = k0; k < k1; k++) {
      const lo = data + (<usize>(start + k) << 4);
      const hi = lo + (<usize>h << 4);
      v128.store(hi, vSub(v128.load(hi), v128.load(lo)));
    }
  } else if (h >= 4) {
    for (let k = k0; k < k1; k += 4) {
      const lo = data + (<usize>(start + k) << 2);
      const hi = lo + (<usize>h << 2);
      v128.store(hi, vSub(v128.load(hi), v128.load(lo)));
    }
  } else {
    for (let k = k0; k < k1; k++) {
      const lo = data + (<usize>(start + k) << 2);
      const hi = lo + (<usize>h << 2);
      store<u32>(hi, subS(load<u32>(hi), load<u32>(lo)));
    }
  }
}

/**
 * The Möbius transform's bits below B = min(2^logN, 4096) on elements [from, to) (multiples of
 * B). The steps of different bits commute, so calls over a partition of [0, 2^logN) and
 * `pcs_mobius_high` over a partition of [0, B), in any order, equal `pcs_mobius`.
 */
export function pcs_mobius_low(data: usize, logN: u32, width: u32, from: u32, to: u32): void {
  const n: u32 = 1 << logN;
  const block = n < BLOCK ? n : BLOCK;
  for (let b = from; b < to; b += block) {
    for (let h: u32 = 1; h < block; h <<= 1) {
      for (let start = b; start < b + block; start += h << 1) mobiusRun(data, start, 0, h, h, width);
    }
  }
}

/** The Möbius transform's bits B = min(2^logN, 4096) and above on the elements whose index mod B lies in [c0, c1) (multiples of 4). */
export function pcs_mobius_high(data: usize, logN: u32, width: u32, c0: u32, c1: u32): void {
  const n: u32 = 1 << logN;
  const block = n < BLOCK ? n : BLOCK;
  for (let h = block; h < n; h <<= 1) {
    for (let start: u32 = 0; start < n; start += h << 1) {
      for (let kb: u32 = 0; kb < h; kb += block) mobiusRun(data, start, kb + c0, kb + c1, h, width);
    }
  }
}

/**
 * The codeword's rows (docs/pcs.md §4.1): dst[(j·2^k + t)·width …] = src[(j + t·R)·width …] for
 * R = 2^(logN − k) rows, the rows j in [from, to) and t < 2^k, width 1 or 4.
 */
export function pcs_rows(dst: usize, src: usize, logN: u32, k: u32, width: u32, from: u32, to: u32): void {
  const rows: u32 = 1 << (logN - k);
  const cols: u32 = 1 << k;
  for (let j = from; j < to; j++) {
    for (let t: u32 = 0; t < cols; t++) {
      const from = <usize>(j + t * rows);
      const to = <usize>(j * cols + t);
      if (width == 4) v128.store(dst + (to << 4), v128.load(src + (from << 4)));
      else store<u32>(dst + (to << 2), load<u32>(src + (from << 2)));
    }
  }
}
