// Merkle trees of a Reed–Solomon codeword's rows (docs/pcs.md §4.3), hashed straight from the
// codeword in natural order: row j of R = n / 2^k rows is the 2^k values at j + t·R (t < 2^k,
// `width` words each, docs/pcs.md §4.1). Four rows share the four SIMD lanes: for a base-field
// codeword, word t of rows j … j+3 is one vector load at element j + t·R; for an extension
// codeword, one 4×4 transpose of elements j … j+3 at t·R gives words 4t … 4t+3. The sponge
// states stay transposed in Montgomery form (`permuteMont4`) from the first block to the digest.
// Also the NTT's twiddle tables and the lift of base-field values to the extension.
import { P, R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP, shoupMulS, shoupOf, vShoupMul } from "./field";
import { permute4, permuteMont4 } from "./poseidon2-x4";

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

/**
 * Leaf digests of the rows of a codeword of 2^logN elements of `width` (1 or 4) canonical words
 * at `src` (natural order), R = 2^(logN − k) rows of 2^k elements: the compat-v1 overwrite sponge
 * of row j's 2^k·width words, lanes 0..7, at out + 32·j (canonical). Needs R a multiple of 4 and
 * 2^k·width a multiple of 8; `work` is 256 scratch bytes (16-byte aligned).
 */
export function pcs_merkle_leaves(out: usize, src: usize, logN: u32, k: u32, width: u32, consts: usize, work: usize): void {
  const rows: u32 = 1 << (logN - k);
  const zero = i32x4.splat(0);
  for (let j: u32 = 0; j < rows; j += 4) {
    for (let l: usize = 0; l < 16; l++) v128.store(work + (l << 4), zero);
    absorbRows(work, src, j, rows, k, width, consts);
    storeDigests(out, j, work);
  }
}

/**
 * The leaf digests of rows [from, from + count) only (multiples of 4), as `pcs_merkle_leaves`
 * writes them (at out + 32·j): calls over a partition of the rows, each with its own `work`, run
 * independently.
 */
export function pcs_merkle_leaves_rows(out: usize, src: usize, logN: u32, k: u32, width: u32, consts: usize, work: usize, from: u32, count: u32): void {
  const rows: u32 = 1 << (logN - k);
  const zero = i32x4.splat(0);
  for (let j = from; j < from + count; j += 4) {
    for (let l: usize = 0; l < 16; l++) v128.store(work + (l << 4), zero);
    absorbRows(work, src, j, rows, k, width, consts);
    storeDigests(out, j, work);
  }
}

/**
 * Leaf digests over two codewords of 2^logN elements on the same domain (the hiding commitment,
 * docs/pcs.md §12.3): leaf j is the overwrite sponge of row j of `first` (`firstWidth` words per
 * element) followed by row j of `second` (`secondWidth`), each part as in `pcs_merkle_leaves`
 * (each part's 2^k·width a multiple of 8); out + 32·j, canonical.
 */
export function pcs_merkle_leaves_pair(out: usize, first: usize, firstWidth: u32, second: usize, secondWidth: u32, logN: u32, k: u32, consts: usize, work: usize): void {
  const rows: u32 = 1 << (logN - k);
  const zero = i32x4.splat(0);
  for (let j: u32 = 0; j < rows; j += 4) {
    for (let l: usize = 0; l < 16; l++) v128.store(work + (l << 4), zero);
    absorbRows(work, first, j, rows, k, firstWidth, consts);
    absorbRows(work, second, j, rows, k, secondWidth, consts);
    storeDigests(out, j, work);
  }
}

/** Absorbs rows j … j+3 of a codeword of `rows` rows (2^k elements of `width` words) into the four transposed Montgomery states at `work`. */
// @ts-ignore: decorator
@inline function absorbRows(work: usize, src: usize, j: u32, rows: u32, k: u32, width: u32, consts: usize): void {
  const blocks: u32 = ((<u32>1 << k) * width) >> 3;
  const toR = i32x4.splat(R_MOD_P), toRs = i32x4.splat(R_MOD_P_SHOUP);
  for (let b: u32 = 0; b < blocks; b++) {
    if (width == 1) {
      for (let l: u32 = 0; l < 8; l++) {
        const t = (b << 3) + l;
        v128.store(work + (<usize>l << 4), vShoupMul(v128.load(src + (<usize>(j + t * rows) << 2)), toR, toRs));
      }
    } else {
      for (let e: u32 = 0; e < 2; e++) {
        const at = src + (<usize>(j + ((b << 1) + e) * rows) << 4);
        transposeStore(work + (<usize>e << 6), v128.load(at), v128.load(at, 16), v128.load(at, 32), v128.load(at, 48), toR, toRs);
      }
    }
    permuteMont4(work, consts);
  }
}

/** Words 0..7 of the four transposed states at `work` (vector c = word c of rows j … j+3), out of Montgomery form, as digests j … j+3 at out + 32·j. */
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
 * One level of a Merkle tree: node i = h_node(src[16i .. 16i+8), src[16i+8 .. 16i+16)) (compat-v1
 * §4, the first 8 words of the permutation of the 16 words), 8 canonical words at out + 32·i,
 * for i < parents. `work` is 256 scratch bytes (16-byte aligned).
 */
export function pcs_merkle_level(out: usize, src: usize, parents: u32, consts: usize, work: usize): void {
  for (let i: u32 = 0; i < parents; i += 4) {
    const left = parents - i;
    const count = left < 4 ? left : 4;
    const from = src + (<usize>i << 6);
    for (let l: usize = 0; l < <usize>(count << 2); l++) v128.store(work + (l << 4), v128.load(from + (l << 4)));
    permute4(work, count, consts);
    const to = out + (<usize>i << 5);
    for (let l: usize = 0; l < <usize>count; l++) {
      v128.store(to + (l << 5), v128.load(work + (l << 6)));
      v128.store(to + (l << 5), v128.load(work + (l << 6), 16), 16);
    }
  }
}

// ⌊b·2^32 / p⌋ for a canonical b without a 64-bit division: the quotient in double precision,
// then corrected by the remainder b·2^32 − q·p (known modulo 2^32, it lies in (−p, 2p)).
// @ts-ignore: decorator
@inline function companion(b: u32): u32 {
  let q = <u32>((<f64>b * 4294967296.0) / <f64>P);
  const r: u32 = 0 - q * P;
  if (r >= <u32>(<u64>4294967296 - <u64>P)) q -= 1;
  else if (r >= P) q += 1;
  return q;
}

/**
 * A run of a geometric sequence and its Shoup companions (the NTT's twiddle tables, built in
 * bounded calls by src/kernels/pcs-kernels.ts): tw[k] = first·ratio^k and tws[k] = ⌊tw[k]·2^32 / p⌋
 * for k < count, canonical `first` and `ratio`.
 */
export function ntt_twiddles(tw: usize, tws: usize, count: u32, first: u32, ratio: u32): void {
  const rs = shoupOf(ratio);
  let acc = first;
  for (let k: u32 = 0; k < count; k++) {
    store<u32>(tw + (<usize>k << 2), acc);
    store<u32>(tws + (<usize>k << 2), companion(acc));
    acc = shoupMulS(acc, ratio, rs);
  }
}

/** dst[4i] = src[i], dst[4i + 1 .. 4i + 4) = 0 for i < n: base-field values as interleaved extension values. */
export function pcs_lift(dst: usize, src: usize, n: u32): void {
  for (let i: u32 = 0; i < n; i++) v128.store(dst + (<usize>i << 4), i32x4.replace_lane(i32x4.splat(0), 0, load<i32>(src + (<usize>i << 2))));
}
