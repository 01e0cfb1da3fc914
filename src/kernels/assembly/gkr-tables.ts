// Table helpers of the GKR layer kernels: Montgomery conversion of one extension element (four
// lanes), zeroing a region, and the interleaved → plane layout transpose.
import { R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP, vShoupMul } from "./field";

// @ts-ignore: decorator
@inline export function toMontV(x: v128): v128 {
  return vShoupMul(x, i32x4.splat(R_MOD_P), i32x4.splat(R_MOD_P_SHOUP));
}

// @ts-ignore: decorator
@inline export function fromMontV(x: v128): v128 {
  return vShoupMul(x, i32x4.splat(R_INV), i32x4.splat(R_INV_SHOUP));
}

export function zeroWords(dst: usize, words: u32): void {
  const z = i32x4.splat(0);
  const w4 = words & ~3;
  let i: u32 = 0;
  for (; i < w4; i += 4) v128.store(dst + (<usize>i << 2), z);
  for (; i < words; i++) store<u32>(dst + (<usize>i << 2), 0);
}

/** Interleaved (n elements × 4 words) to plane layout (4 planes of n words). */
export function transpose(dst: usize, src: usize, n: u32): void {
  const pb = <usize>n << 2;
  if (n >= 4) {
    for (let i: u32 = 0; i < n; i += 4) {
      const s = src + (<usize>i << 4);
      const e0 = v128.load(s), e1 = v128.load(s, 16), e2 = v128.load(s, 32), e3 = v128.load(s, 48);
      const t0 = i32x4.shuffle(e0, e1, 0, 4, 1, 5);
      const t1 = i32x4.shuffle(e2, e3, 0, 4, 1, 5);
      const t2 = i32x4.shuffle(e0, e1, 2, 6, 3, 7);
      const t3 = i32x4.shuffle(e2, e3, 2, 6, 3, 7);
      const d = dst + (<usize>i << 2);
      v128.store(d, i32x4.shuffle(t0, t1, 0, 1, 4, 5));
      v128.store(d + pb, i32x4.shuffle(t0, t1, 2, 3, 6, 7));
      v128.store(d + 2 * pb, i32x4.shuffle(t2, t3, 0, 1, 4, 5));
      v128.store(d + 3 * pb, i32x4.shuffle(t2, t3, 2, 3, 6, 7));
    }
  } else {
    for (let i: u32 = 0; i < n; i++) {
      for (let k: u32 = 0; k < 4; k++) {
        store<u32>(dst + <usize>k * pb + (<usize>i << 2), load<u32>(src + (<usize>i << 4) + (<usize>k << 2)));
      }
    }
  }
}
