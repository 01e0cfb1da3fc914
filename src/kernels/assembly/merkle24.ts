// Merkle leaves under the Poseidon2-24 sponge at rate 16 (the `-l24` WHIR sets, docs/pcs.md §4.3),
// hashed straight from a natural-order codeword as `pcs_merkle_leaves` does (merkle.ts): row j of
// R = n / 2^k rows is the 2^k values at j + t·R, four rows share the four SIMD lanes, and the four
// width-24 sponge states stay transposed in Montgomery form (`permuteMont4w24`, 24 vectors) from
// the first block to the digest. Each block of 16 words overwrites vectors 0..15 (word l of the
// block of rows j … j+3 in vector l); vectors 16..23 (the capacity) start at zero and are never
// written but by the permutation. Also the permutation of whole canonical states, for tests.
import { R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP, vShoupMul } from "./field";
import { permuteMont4w24 } from "./poseidon2-x4w24";

// @ts-ignore: decorator
@inline function transposeStore(dst: usize, a0: v128, a1: v128, a2: v128, a3: v128, b: v128, bs: v128): void {
  // Vector c of the result holds word c of a0 … a3.
  const x0 = i32x4.shuffle(a0, a1, 0, 4, 1, 5), x1 = i32x4.shuffle(a0, a1, 2, 6, 3, 7);
  const y0 = i32x4.shuffle(a2, a3, 0, 4, 1, 5), y1 = i32x4.shuffle(a2, a3, 2, 6, 3, 7);
  v128.store(dst, vShoupMul(i64x2.shuffle(x0, y0, 0, 2), b, bs), 0);
  v128.store(dst, vShoupMul(i64x2.shuffle(x0, y0, 1, 3), b, bs), 16);
  v128.store(dst, vShoupMul(i64x2.shuffle(x1, y1, 0, 2), b, bs), 32);
  v128.store(dst, vShoupMul(i64x2.shuffle(x1, y1, 1, 3), b, bs), 48);
}

// @ts-ignore: decorator
@inline function zeroStates(work: usize): void {
  const zero = i32x4.splat(0);
  for (let l: usize = 0; l < 24; l++) v128.store(work + (l << 4), zero);
}

/**
 * Leaf digests of the rows of a codeword of 2^logN elements of `width` (1 or 4) canonical words
 * at `src` (natural order), R = 2^(logN − k) rows of 2^k elements: the width-24 padding-free
 * sponge at rate 16 of row j's 2^k·width words, lanes 0..7, at out + 32·j (canonical). Needs R a
 * multiple of 4 and 2^k·width a multiple of 16; `work` is 384 scratch bytes (16-byte aligned).
 */
export function pcs_merkle_leaves24(out: usize, src: usize, logN: u32, k: u32, width: u32, consts24: usize, work: usize): void {
  const rows: u32 = 1 << (logN - k);
  for (let j: u32 = 0; j < rows; j += 4) {
    zeroStates(work);
    absorbRows24(work, src, j, rows, k, width, consts24);
    storeDigests(out, j, work);
  }
}

/**
 * The width-24 leaf digests of rows [from, from + count) only (multiples of 4), as
 * `pcs_merkle_leaves24` writes them (at out + 32·j): calls over a partition of the rows, each with
 * its own `work`, run independently.
 */
export function pcs_merkle_leaves24_rows(out: usize, src: usize, logN: u32, k: u32, width: u32, consts24: usize, work: usize, from: u32, count: u32): void {
  const rows: u32 = 1 << (logN - k);
  for (let j = from; j < from + count; j += 4) {
    zeroStates(work);
    absorbRows24(work, src, j, rows, k, width, consts24);
    storeDigests(out, j, work);
  }
}

/**
 * Width-24 leaf digests over two codewords of 2^logN elements on the same domain (the hiding
 * commitment, docs/pcs.md §12.3): leaf j is the sponge of row j of `first` followed by row j of
 * `second`, each part as in `pcs_merkle_leaves24` (each part's 2^k·width a multiple of 16).
 */
export function pcs_merkle_leaves24_pair(out: usize, first: usize, firstWidth: u32, second: usize, secondWidth: u32, logN: u32, k: u32, consts24: usize, work: usize): void {
  const rows: u32 = 1 << (logN - k);
  for (let j: u32 = 0; j < rows; j += 4) {
    zeroStates(work);
    absorbRows24(work, first, j, rows, k, firstWidth, consts24);
    absorbRows24(work, second, j, rows, k, secondWidth, consts24);
    storeDigests(out, j, work);
  }
}

/** Absorbs rows j … j+3 (2^k elements of `width` words) into the four transposed width-24 Montgomery states at `work`, 16 words per permutation. */
// @ts-ignore: decorator
@inline function absorbRows24(work: usize, src: usize, j: u32, rows: u32, k: u32, width: u32, consts24: usize): void {
  const blocks: u32 = ((<u32>1 << k) * width) >> 4;
  const toR = i32x4.splat(R_MOD_P), toRs = i32x4.splat(R_MOD_P_SHOUP);
  for (let b: u32 = 0; b < blocks; b++) {
    if (width == 1) {
      for (let l: u32 = 0; l < 16; l++) {
        const t = (b << 4) + l;
        v128.store(work + (<usize>l << 4), vShoupMul(v128.load(src + (<usize>(j + t * rows) << 2)), toR, toRs));
      }
    } else {
      for (let e: u32 = 0; e < 4; e++) {
        const at = src + (<usize>(j + ((b << 2) + e) * rows) << 4);
        transposeStore(work + (<usize>e << 6), v128.load(at), v128.load(at, 16), v128.load(at, 32), v128.load(at, 48), toR, toRs);
      }
    }
    permuteMont4w24(work, consts24);
  }
}

/** Words 0..7 of the four transposed states at `work`, out of Montgomery form, as digests j … j+3 at out + 32·j. */
// @ts-ignore: decorator
@inline function storeDigests(out: usize, j: u32, work: usize): void {
  const fromR = i32x4.splat(R_INV), fromRs = i32x4.splat(R_INV_SHOUP);
  const dst = out + (<usize>j << 5);
  for (let h: usize = 0; h < 2; h++) {
    const v0 = v128.load(work + (h << 6)), v1 = v128.load(work + (h << 6), 16);
    const v2 = v128.load(work + (h << 6), 32), v3 = v128.load(work + (h << 6), 48);
    const x0 = i32x4.shuffle(v0, v1, 0, 4, 1, 5), x1 = i32x4.shuffle(v0, v1, 2, 6, 3, 7);
    const y0 = i32x4.shuffle(v2, v3, 0, 4, 1, 5), y1 = i32x4.shuffle(v2, v3, 2, 6, 3, 7);
    v128.store(dst + (h << 4), vShoupMul(i64x2.shuffle(x0, y0, 0, 2), fromR, fromRs), 0);
    v128.store(dst + (h << 4), vShoupMul(i64x2.shuffle(x0, y0, 1, 3), fromR, fromRs), 32);
    v128.store(dst + (h << 4), vShoupMul(i64x2.shuffle(x1, y1, 0, 2), fromR, fromRs), 64);
    v128.store(dst + (h << 4), vShoupMul(i64x2.shuffle(x1, y1, 1, 3), fromR, fromRs), 96);
  }
}

/**
 * The width-24 permutation of n canonical states of 24 words back to back at `states`, in place,
 * four at a time through `permuteMont4w24` (lanes without a state compute on zeros and are not
 * stored); `work` is 384 scratch bytes. The states go in and out of Montgomery form four lanes at a time (Shoup products).
 */
export function poseidon2_permute24(states: usize, n: u32, consts24: usize, work: usize): void {
  const toR = i32x4.splat(R_MOD_P), toRs = i32x4.splat(R_MOD_P_SHOUP);
  const fromR = i32x4.splat(R_INV), fromRs = i32x4.splat(R_INV_SHOUP);
  for (let i: u32 = 0; i < n; i += 4) {
    const left = n - i;
    const count = left < 4 ? left : 4;
    const s0 = states + (<usize>i * 96);
    const s1 = s0 + 96, s2 = s0 + 192, s3 = s0 + 288;
    for (let w: usize = 0; w < 24; w++) {
      const o = w << 2;
      let v = i32x4.splat(0);
      v = i32x4.replace_lane(v, 0, load<i32>(s0 + o));
      if (count > 1) v = i32x4.replace_lane(v, 1, load<i32>(s1 + o));
      if (count > 2) v = i32x4.replace_lane(v, 2, load<i32>(s2 + o));
      if (count > 3) v = i32x4.replace_lane(v, 3, load<i32>(s3 + o));
      v128.store(work + (w << 4), vShoupMul(v, toR, toRs));
    }
    permuteMont4w24(work, consts24);
    for (let w: usize = 0; w < 24; w++) {
      const o = w << 2;
      const v = vShoupMul(v128.load(work + (w << 4)), fromR, fromRs);
      store<i32>(s0 + o, i32x4.extract_lane(v, 0));
      if (count > 1) store<i32>(s1 + o, i32x4.extract_lane(v, 1));
      if (count > 2) store<i32>(s2 + o, i32x4.extract_lane(v, 2));
      if (count > 3) store<i32>(s3 + o, i32x4.extract_lane(v, 3));
    }
  }
}
