// Eq tables and claim weights of the GKR layer oracle (compat-v1 §10.1, §10.4).
import { vAdd, vSub, vTriple } from "./field";
import { dot4, lane0, lane1, lane2, lane3 } from "./gkr-ext";
import { toMontV, zeroWords } from "./gkr-tables";

/**
 * dst (interleaved, 2^nbits elements) ← scale·eq(point, b) for b < 2^nbits, MSB-first points
 * (compat-v1 §10.1). `point` holds nbits canonical extension coordinates (4 words each) followed
 * by the canonical scale. Each level doubles the table in place, descending: entry b gives
 * 2b+1 = e·z_j and 2b = e − e·z_j.
 */
export function gkr_eq(dst: usize, point: usize, nbits: u32): void {
  v128.store(dst, toMontV(v128.load(point + (<usize>nbits << 4))));
  let size: u32 = 1;
  for (let j: u32 = 0; j < nbits; j++) {
    const z = toMontV(v128.load(point + (<usize>j << 4)));
    const t = vTriple(z);
    const c1 = i32x4.shuffle(t, z, 3, 4, 5, 6);
    const c2 = i32x4.shuffle(t, z, 2, 3, 4, 5);
    const c3 = i32x4.shuffle(t, z, 1, 2, 3, 4);
    for (let b = <i32>size - 1; b >= 0; b--) {
      const e = v128.load(dst + (<usize>b << 4));
      const hi = dot4(lane0(e), z, lane1(e), c1, lane2(e), c2, lane3(e), c3);
      const at = dst + (<usize>b << 5);
      v128.store(at, vSub(e, hi));
      v128.store(at, hi, 16);
    }
    size <<= 1;
  }
}

/**
 * Claim weights w[o] = Σ_k c_k·eq(z_k, o), o < 2^nbits, interleaved (compat-v1 §10.4). `claims`
 * holds nclaims blocks of nbits + 1 extension words (the point, then c_k), canonical; `tmp` has
 * room for one table.
 */
export function gkr_weights(dst: usize, tmp: usize, claims: usize, nclaims: u32, nbits: u32): void {
  const n: u32 = 1 << nbits;
  if (nclaims == 0) {
    zeroWords(dst, n << 2);
    return;
  }
  const stride = <usize>(nbits + 1) << 4;
  gkr_eq(dst, claims, nbits);
  for (let k: u32 = 1; k < nclaims; k++) {
    gkr_eq(tmp, claims + <usize>k * stride, nbits);
    for (let i: u32 = 0; i < n; i++) {
      const o = <usize>i << 4;
      v128.store(dst + o, vAdd(v128.load(dst + o), v128.load(tmp + o)));
    }
  }
}
