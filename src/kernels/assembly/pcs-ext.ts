// Extension-field kernels of the polynomial commitment (docs/pcs.md §4.2, §4.5) on interleaved
// vectors: element i of K = F_p[X]/(X^4 − 3) is the v128 of its four canonical coordinates at
// byte 16i. A product by a constant α uses its table A_j = X^j·α in Montgomery form (16 words,
// made by the caller): x·α = Σ_j x_j·A_j, four lane-wise Montgomery products of a splat
// coordinate, so canonical x gives canonical x·α.
import { R_MOD_P, addS, montMulS, subS, toMontS, vAdd, vMontMul, vMontReduceWide, vSub, vTriple, wideHi, wideLo } from "./field";

// @ts-ignore: decorator
@inline function splat(x: v128, lane: u8): v128 {
  if (lane == 0) return i32x4.shuffle(x, x, 0, 0, 0, 0);
  if (lane == 1) return i32x4.shuffle(x, x, 1, 1, 1, 1);
  if (lane == 2) return i32x4.shuffle(x, x, 2, 2, 2, 2);
  return i32x4.shuffle(x, x, 3, 3, 3, 3);
}

// x·α = Σ_j x_j·A_j: the four lane-wise 64-bit products of each coordinate (each below p², their
// sum below 4p² < 2^64) summed, then one Montgomery reduction per lane.
// @ts-ignore: decorator
@inline function mulTable(x: v128, a0: v128, a1: v128, a2: v128, a3: v128): v128 {
  const x0 = splat(x, 0), x1 = splat(x, 1), x2 = splat(x, 2), x3 = splat(x, 3);
  return vMontReduceWide(
    i64x2.add(i64x2.add(wideLo(x0, a0), wideLo(x1, a1)), i64x2.add(wideLo(x2, a2), wideLo(x3, a3))),
    i64x2.add(i64x2.add(wideHi(x0, a0), wideHi(x1, a1)), i64x2.add(wideHi(x2, a2), wideHi(x3, a3))),
  );
}

/**
 * a·b·R^−1 coordinate-wise scaled (both canonical): Σ_j a_j·X^j·b as Montgomery products, with
 * X·b = (3·b3, b0, b1, b2), X²·b = (3·b2, 3·b3, b0, b1), X³·b = (3·b1, 3·b2, 3·b3, b0) taken from
 * b and 3·b by shuffles.
 */
// @ts-ignore: decorator
@inline function mulMontScaled(a: v128, b: v128): v128 {
  const t = vTriple(b);
  const b1 = i32x4.shuffle(b, t, 7, 0, 1, 2);
  const b2 = i32x4.shuffle(b, t, 6, 7, 0, 1);
  const b3 = i32x4.shuffle(b, t, 5, 6, 7, 0);
  return mulTable(a, b, b1, b2, b3);
}

/**
 * Folds n pairs by the constant α (table at `alpha`, 16 words): mode 0 (evaluations)
 * dst[i] = src[2i] + α·(src[2i+1] − src[2i]); mode 1 (coefficients) dst[i] = src[2i] + α·src[2i+1].
 * dst may equal src.
 */
export function pcs_fold(dst: usize, src: usize, n: u32, mode: u32, alpha: usize): void {
  const a0 = v128.load(alpha), a1 = v128.load(alpha + 16), a2 = v128.load(alpha + 32), a3 = v128.load(alpha + 48);
  for (let i: u32 = 0; i < n; i++) {
    const e = v128.load(src + (<usize>i << 5));
    const o = v128.load(src + (<usize>i << 5) + 16);
    const d = mode == 0 ? vSub(o, e) : o;
    v128.store(dst + (<usize>i << 4), vAdd(e, mulTable(d, a0, a1, a2, a3)));
  }
}

/**
 * dst[i] = ext[i] + α·base[i] for i < n: base-field values (one word each) scaled by the constant
 * α (table at `alpha`, 16 words) and added to interleaved extension values; for a base value x,
 * α·x is the one Montgomery product splat(x)·A_0. dst may equal ext.
 */
export function pcs_scale_add(dst: usize, base: usize, ext: usize, n: u32, alpha: usize): void {
  const a0 = v128.load(alpha);
  for (let i: u32 = 0; i < n; i++) {
    const x = i32x4.splat(load<i32>(base + (<usize>i << 2)));
    v128.store(dst + (<usize>i << 4), vAdd(v128.load(ext + (<usize>i << 4)), vMontMul(x, a0)));
  }
}

/**
 * The WHIR sumcheck round over n pairs of f and w (docs/pcs.md §4.5): writes h(0)·R^−1 to
 * out[0..4) and h(2)·R^−1 to out[4..8), with h(0) = Σ f[2i]·w[2i] and
 * h(2) = Σ (2f[2i+1] − f[2i])·(2w[2i+1] − w[2i]); the caller multiplies by R.
 */
export function pcs_round(f: usize, w: usize, n: u32, out: usize): void {
  let h0 = i32x4.splat(0);
  let h2 = i32x4.splat(0);
  for (let i: u32 = 0; i < n; i++) {
    const off = <usize>i << 5;
    const fe = v128.load(f + off), fo = v128.load(f + off + 16);
    const we = v128.load(w + off), wo = v128.load(w + off + 16);
    h0 = vAdd(h0, mulMontScaled(fe, we));
    h2 = vAdd(h2, mulMontScaled(vSub(vAdd(fo, fo), fe), vSub(vAdd(wo, wo), we)));
  }
  v128.store(out, h0);
  v128.store(out + 16, h2);
}

/**
 * F(z) = Σ_i c_i z^i by Horner's rule over n interleaved extension coefficients, with z's
 * constant table at `ztable` (16 words); the canonical value to out[0..4).
 */
export function pcs_horner(coeffs: usize, n: u32, ztable: usize, out: usize): void {
  const z0 = v128.load(ztable), z1 = v128.load(ztable + 16), z2 = v128.load(ztable + 32), z3 = v128.load(ztable + 48);
  let acc = i32x4.splat(0);
  for (let i = <i32>n - 1; i >= 0; i--) acc = vAdd(mulTable(acc, z0, z1, z2, z3), v128.load(coeffs + (<usize>i << 4)));
  v128.store(out, acc);
}

/**
 * acc[b] += c·eq(point, b) for the 2^nvars points b of the hypercube (interleaved extension):
 * `tables` holds c (4 canonical words), then for each coordinate j the constant tables of p_j
 * and of 1 − p_j (16 words each, at words 4 + 32j and 20 + 32j; only p_j's is read: x·(1 − p_j)
 * is x − x·p_j); `tmp` has room for 2·2^nvars words. The last coordinate's split is added to
 * `acc` directly.
 */
export function pcs_eq_add(acc: usize, tmp: usize, tables: usize, nvars: u32): void {
  eqInto(acc, tmp, tables, nvars, false);
}

/** Variables of the low table of the blocked eq (2^10 entries, 16 KiB: it stays in the first-level cache). */
const EQ_LOW: u32 = 10;

/**
 * The entries at `t` (2^j of them after step j) split by coordinates first … first + count − 1:
 * entry i becomes i (times 1 − p) and i + 2^j (times p), so coordinate first + j is bit j of the
 * index. t holds the seed on entry and 2^count entries on return; each keeps its seed's scaling.
 */
// @ts-ignore: decorator
@inline function eqExpand(t: usize, tables: usize, first: u32, count: u32): void {
  for (let j: u32 = 0; j < count; j++) {
    const tb = tables + 16 + (<usize>(first + j) << 7);
    const p0 = v128.load(tb), p1 = v128.load(tb + 16), p2 = v128.load(tb + 32), p3 = v128.load(tb + 48);
    const half: u32 = 1 << j;
    for (let i = <i32>half - 1; i >= 0; i--) {
      const at = t + (<usize>i << 4);
      const x = v128.load(at);
      const hi = mulTable(x, p0, p1, p2, p3);
      v128.store(at + (<usize>half << 4), hi);
      v128.store(at, vSub(x, hi));
    }
  }
}

/**
 * Σ_q c_q·eq(point_q, ·) for `count` points (tables `stride` apart, as `pcs_eq_write_many`'s) and
 * nvars ≥ 12, written over acc when `write`, else added to it. eq(point, h·2^10 + l) =
 * eq(low coordinates, l)·eq(high coordinates, h): per point a low table L (seed R, so its entries
 * are in Montgomery form) and a high table H (seed c) in `tmp`, 2^10 + 2^(nvars − 10) entries each;
 * then row h of acc (2^10 entries) gets every point's Montgomery products L[l]·H[h] while it is in
 * the first-level cache: one product per entry and point, as the level-by-level split needs, and
 * acc is the only large table written, once whatever the count.
 */
// @ts-ignore: decorator
@inline function eqBlocked(acc: usize, tmp: usize, tables: usize, nvars: u32, count: u32, write: bool): void {
  const stride = <usize>(4 + 32 * nvars) << 2;
  const high = nvars - EQ_LOW;
  const lowBytes = <usize>1 << (EQ_LOW + 4);
  const pairBytes = lowBytes + (<usize>1 << (high + 4));
  const seed = i32x4(R_MOD_P, 0, 0, 0);
  for (let q: u32 = 0; q < count; q++) {
    const at = tmp + <usize>q * pairBytes;
    const pt = tables + <usize>q * stride;
    v128.store(at, seed);
    eqExpand(at, pt, 0, EQ_LOW);
    v128.store(at + lowBytes, v128.load(pt));
    eqExpand(at + lowBytes, pt, EQ_LOW, high);
  }
  const rows: u32 = 1 << high;
  const cols: u32 = 1 << EQ_LOW;
  for (let h: u32 = 0; h < rows; h++) {
    const row = acc + (<usize>h << (EQ_LOW + 4));
    for (let q: u32 = 0; q < count; q++) {
      const lowTable = tmp + <usize>q * pairBytes;
      // H[h]'s table: X^j·H[h] from H[h] and 3·H[h] by shuffles (as `mulMontScaled`).
      const b = v128.load(lowTable + lowBytes + (<usize>h << 4));
      const t = vTriple(b);
      const b1 = i32x4.shuffle(b, t, 7, 0, 1, 2);
      const b2 = i32x4.shuffle(b, t, 6, 7, 0, 1);
      const b3 = i32x4.shuffle(b, t, 5, 6, 7, 0);
      if (q == 0 && write) {
        for (let l: u32 = 0; l < cols; l++)
          v128.store(row + (<usize>l << 4), mulTable(v128.load(lowTable + (<usize>l << 4)), b, b1, b2, b3));
      } else {
        for (let l: u32 = 0; l < cols; l++) {
          const at = row + (<usize>l << 4);
          v128.store(at, vAdd(v128.load(at), mulTable(v128.load(lowTable + (<usize>l << 4)), b, b1, b2, b3)));
        }
      }
    }
  }
}

/** c·eq(point, ·) added to `acc`, or written over it when `write` (a constant of each caller); from 12 variables on by `eqBlocked`. */
// @ts-ignore: decorator
@inline function eqInto(acc: usize, tmp: usize, tables: usize, nvars: u32, write: bool): void {
  if (nvars == 0) {
    v128.store(acc, write ? v128.load(tables) : vAdd(v128.load(acc), v128.load(tables)));
    return;
  }
  if (nvars >= EQ_LOW + 2) {
    eqBlocked(acc, tmp, tables, nvars, 1, write);
    return;
  }
  v128.store(tmp, v128.load(tables));
  eqExpand(tmp, tables, 0, nvars - 1);
  const t = tables + 16 + (<usize>(nvars - 1) << 7);
  const p0 = v128.load(t), p1 = v128.load(t + 16), p2 = v128.load(t + 32), p3 = v128.load(t + 48);
  const half: u32 = 1 << (nvars - 1);
  for (let i: u32 = 0; i < half; i++) {
    const x = v128.load(tmp + (<usize>i << 4));
    const hi = mulTable(x, p0, p1, p2, p3);
    const a = acc + (<usize>i << 4);
    const b = a + (<usize>half << 4);
    if (write) {
      v128.store(a, vSub(x, hi));
      v128.store(b, hi);
    } else {
      v128.store(a, vAdd(v128.load(a), vSub(x, hi)));
      v128.store(b, vAdd(v128.load(b), hi));
    }
  }
}

/**
 * acc[b] = Σ_q c_q·eq(point_q, b) for `count` ≥ 1 points whose tables (as `pcs_eq_add`'s, 4 + 32·nvars
 * words each) lie back to back at `tables`: from 12 variables on in one pass over acc
 * (`eqBlocked`); `tmp` has room for count·(2^10 + 2^(nvars − 10)) entries (2·2^nvars words below
 * 12 variables).
 */
export function pcs_eq_write_many(acc: usize, tmp: usize, tables: usize, nvars: u32, count: u32): void {
  const stride = <usize>(4 + 32 * nvars) << 2;
  if (nvars < EQ_LOW + 2) {
    eqInto(acc, tmp, tables, nvars, true);
    for (let q: u32 = 1; q < count; q++) eqInto(acc, tmp, tables + <usize>q * stride, nvars, false);
    return;
  }
  eqBlocked(acc, tmp, tables, nvars, count, true);
}

/**
 * acc[b] += c·eq(point, b) for a point of base-field coordinates (the WHIR query points): `tables`
 * holds c (4 canonical words), then p_j·R mod p (Montgomery form) at word 4 + j; each split is one
 * lane-wise product by the splat coordinate. `tmp` has room for 2·2^nvars words.
 */
export function pcs_eq_add_base(acc: usize, tmp: usize, tables: usize, nvars: u32): void {
  if (nvars == 0) {
    v128.store(acc, vAdd(v128.load(acc), v128.load(tables)));
    return;
  }
  v128.store(tmp, v128.load(tables));
  for (let j: u32 = 0; j + 1 < nvars; j++) {
    const p = i32x4.splat(load<i32>(tables + 16 + (<usize>j << 2)));
    const half: u32 = 1 << j;
    for (let i = <i32>half - 1; i >= 0; i--) {
      const at = tmp + (<usize>i << 4);
      const x = v128.load(at);
      const hi = vMontMul(x, p);
      v128.store(at + (<usize>half << 4), hi);
      v128.store(at, vSub(x, hi));
    }
  }
  const p = i32x4.splat(load<i32>(tables + 16 + (<usize>(nvars - 1) << 2)));
  const half: u32 = 1 << (nvars - 1);
  for (let i: u32 = 0; i < half; i++) {
    const x = v128.load(tmp + (<usize>i << 4));
    const hi = vMontMul(x, p);
    const a = acc + (<usize>i << 4);
    const b = a + (<usize>half << 4);
    v128.store(a, vAdd(v128.load(a), vSub(x, hi)));
    v128.store(b, vAdd(v128.load(b), hi));
  }
}

/**
 * `pcs_eq_add_base` for `count` points of `nvars` base-field coordinates each: their tables (c,
 * then the coordinates in Montgomery form; 4 + nvars words each) back to back at `tables`, all
 * added to `acc` in turn with the one scratch `tmp` (a batch of query weights in one call).
 */
export function pcs_eq_add_base_many(acc: usize, tmp: usize, tables: usize, nvars: u32, count: u32): void {
  const stride = (<usize>(4 + nvars)) << 2;
  for (let q: u32 = 0; q < count; q++) pcs_eq_add_base(acc, tmp, tables + <usize>q * stride, nvars);
}

/**
 * `pcs_fold` of a base-field table (one word per element; the first fold of a base-field
 * polynomial, without its lift): dst[i] = e + α·d with e = src[2i], o = src[2i + 1], d = o − e
 * (mode 0, evaluations) or o (mode 1, coefficients); α·d is the one product splat(d)·A_0.
 */
export function pcs_fold_base(dst: usize, src: usize, n: u32, mode: u32, alpha: usize): void {
  const a0 = v128.load(alpha);
  const zero = i32x4.splat(0);
  for (let i: u32 = 0; i < n; i++) {
    const e = load<u32>(src + (<usize>i << 3));
    const o = load<u32>(src + (<usize>i << 3) + 4);
    const d = mode == 0 ? subS(o, e) : o;
    v128.store(dst + (<usize>i << 4), vAdd(i32x4.replace_lane(zero, 0, <i32>e), vMontMul(i32x4.splat(<i32>d), a0)));
  }
}

/**
 * `pcs_round` with f a base-field table (one word per element) and w interleaved extension:
 * h(0)·R^−1 to out[0..4), h(2)·R^−1 to out[4..8), each product the lane-wise splat(f)·w.
 */
export function pcs_round_base(f: usize, w: usize, n: u32, out: usize): void {
  let h0 = i32x4.splat(0);
  let h2 = i32x4.splat(0);
  for (let i: u32 = 0; i < n; i++) {
    const fe = load<u32>(f + (<usize>i << 3)), fo = load<u32>(f + (<usize>i << 3) + 4);
    const off = <usize>i << 5;
    const we = v128.load(w + off), wo = v128.load(w + off + 16);
    h0 = vAdd(h0, vMontMul(i32x4.splat(<i32>fe), we));
    h2 = vAdd(h2, vMontMul(i32x4.splat(<i32>subS(addS(fo, fo), fe)), vSub(vAdd(wo, wo), we)));
  }
  v128.store(out, h0);
  v128.store(out + 16, h2);
}

/**
 * F(z) = Σ_i c_i z^i over n base-field coefficients (one word each, n a multiple of `block`, a
 * multiple of 4) by blocks: with z^l (l < block) at `powers` (interleaved, Montgomery form) and
 * the constant table of z^block at `ztable`, each block's S_b = Σ_l c_(b·block + l)·z^l sums the
 * 64-bit products of four terms before one Montgomery reduction (a canonical coefficient times a
 * Montgomery power is the canonical product), and F(z) = Σ_b (z^block)^b·S_b by Horner's rule
 * over the blocks. The canonical value to out[0..4): the value `pcs_horner_base` gives.
 */
export function pcs_eval_base(coeffs: usize, n: u32, powers: usize, block: u32, ztable: usize, out: usize): void {
  const z0 = v128.load(ztable), z1 = v128.load(ztable + 16), z2 = v128.load(ztable + 32), z3 = v128.load(ztable + 48);
  let acc = i32x4.splat(0);
  for (let b = <i32>(n / block) - 1; b >= 0; b--) {
    const c = coeffs + (<usize>(<u32>b * block) << 2);
    let s = i32x4.splat(0);
    for (let l: u32 = 0; l < block; l += 4) {
      const at = c + (<usize>l << 2), pw = powers + (<usize>l << 4);
      const c0 = v128.load32_splat(at), c1 = v128.load32_splat(at, 4), c2 = v128.load32_splat(at, 8), c3 = v128.load32_splat(at, 12);
      const p0 = v128.load(pw), p1 = v128.load(pw, 16), p2 = v128.load(pw, 32), p3 = v128.load(pw, 48);
      s = vAdd(
        s,
        vMontReduceWide(
          i64x2.add(i64x2.add(wideLo(c0, p0), wideLo(c1, p1)), i64x2.add(wideLo(c2, p2), wideLo(c3, p3))),
          i64x2.add(i64x2.add(wideHi(c0, p0), wideHi(c1, p1)), i64x2.add(wideHi(c2, p2), wideHi(c3, p3))),
        ),
      );
    }
    acc = vAdd(mulTable(acc, z0, z1, z2, z3), s);
  }
  v128.store(out, acc);
}

/**
 * `pcs_horner` over n base-field coefficients (one word each) at an extension point z (constant
 * table at `ztable`): the canonical F(z) to out[0..4).
 */
export function pcs_horner_base(coeffs: usize, n: u32, ztable: usize, out: usize): void {
  const z0 = v128.load(ztable), z1 = v128.load(ztable + 16), z2 = v128.load(ztable + 32), z3 = v128.load(ztable + 48);
  let acc = i32x4.splat(0);
  for (let i = <i32>n - 1; i >= 0; i--)
    acc = vAdd(mulTable(acc, z0, z1, z2, z3), i32x4.replace_lane(i32x4.splat(0), 0, load<i32>(coeffs + (<usize>i << 2))));
  v128.store(out, acc);
}

/**
 * The verifier's fold of n opened rows (docs/pcs.md §4.4), each 2^k values (k ≥ 1) of `width`
 * words (1: base field, 4: interleaved extension) back to back at `rows`: row j at x_j, with
 * x_j^(−1) (canonical) at word j of `xinv`. Step s keeps twice its values,
 * v'_t = (v_t + v_(t+h)) + α_s·ζ^(−t·2^s)·x_j^(−2^s)·(v_t − v_(t+h)) for t < h = 2^(k−1−s); the
 * constant tables of α_s·ζ^(−t·2^s) (16 words each, as `pcs_fold`'s) lie step after step at
 * `tables` (2^k − 1 of them). Writes 2^k times row j's folded value at out + 16·j; `work` has
 * room for 2^(k+2) words.
 */
export function pcs_fold_rows(rows: usize, n: u32, k: u32, width: u32, xinv: usize, tables: usize, out: usize, work: usize): void {
  const half0: u32 = 1 << (k - 1);
  const rowBytes: usize = (<usize>width << k) << 2;
  const a = work, b = work + (<usize>half0 << 4);
  for (let j: u32 = 0; j < n; j++) {
    let xm = toMontS(load<u32>(xinv + (<usize>j << 2))); // x_j^(−2^s) in Montgomery form
    let cur = rows + <usize>j * rowBytes;
    let dst = a;
    let half = half0;
    let tab = tables;
    for (let s: u32 = 0; s < k; s++) {
      if (s == 0 && width == 1) {
        for (let t: u32 = 0; t < half; t++) {
          const lo = load<u32>(cur + (<usize>t << 2)), hi = load<u32>(cur + (<usize>(t + half) << 2));
          const d = montMulS(subS(lo, hi), xm);
          const e = i32x4.replace_lane(i32x4.splat(0), 0, <i32>addS(lo, hi));
          v128.store(dst + (<usize>t << 4), vAdd(e, vMontMul(i32x4.splat(<i32>d), v128.load(tab + (<usize>t << 6)))));
        }
      } else {
        const xv = i32x4.splat(<i32>xm);
        for (let t: u32 = 0; t < half; t++) {
          const lo = v128.load(cur + (<usize>t << 4)), hi = v128.load(cur + (<usize>(t + half) << 4));
          const d = vMontMul(vSub(lo, hi), xv);
          const tt = tab + (<usize>t << 6);
          const p = mulTable(d, v128.load(tt), v128.load(tt, 16), v128.load(tt, 32), v128.load(tt, 48));
          v128.store(dst + (<usize>t << 4), vAdd(vAdd(lo, hi), p));
        }
      }
      tab += <usize>half << 6;
      cur = dst;
      dst = dst == a ? b : a;
      half >>= 1;
      xm = montMulS(xm, xm);
    }
    v128.store(out + (<usize>j << 4), v128.load(cur));
  }
}
