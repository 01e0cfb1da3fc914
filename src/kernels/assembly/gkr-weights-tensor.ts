// Claim weights of the GKR layer oracle as tensor products (compat-v1 §10.4 weights), driven by
// src/gkr/structured/booking-wasm.ts for the wide layers of the profile v2 circuits. Same table
// as `gkr_weights` (gkr-eq.ts), which the differential tests compare it with
// (test/gkr/structured-booking.test.ts).
//
// With the point split into its first h coordinates (the high bits of the index, MSB first) and
// the other l = nbits − h, eq(z, b) = eq(z_hi, b_hi)·eq(z_lo, b_lo), so
//   w[b_hi·2^l + b_lo] = Σ_k (c_k·eq(z_k,hi, b_hi))·eq(z_k,lo, b_lo):
// two small eq tables per claim (`gkr_eq`), then one pass over the table with one product per
// claim and entry. The low tables are kept as the four columns of multiplication by each entry
// (see `extMulAoS`), so the pass is loads and `dot4` only.
import { vAdd, vTriple } from "./field";
import { dot4, lane0, lane1, lane2, lane3 } from "./gkr-ext";
import { gkr_eq } from "./gkr-eq";

/**
 * dst (interleaved, 2^nbits elements, Montgomery) ← Σ_k c_k·eq(z_k, ·) for the `nclaims` claims
 * at `claims` (as `gkr_weights`: nbits canonical coordinates then c_k, 4 words each). `scratch`
 * holds nclaims·(2^h + 5·2^l + 2·(nbits + 1)) elements (16 bytes each), h = ⌊nbits/2⌋,
 * l = nbits − h; nbits ≥ 2 and nclaims ≥ 1.
 */
export function gkr_weights_tensor(dst: usize, claims: usize, nclaims: u32, nbits: u32, scratch: usize): void {
  const h = nbits >> 1, l = nbits - h;
  const nh: u32 = 1 << h, nl: u32 = 1 << l;
  const stride = <usize>(nbits + 1) << 4;
  // per claim: hi table (nh), lo table (nl), lo columns (4·nl), two points (nbits + 1 each)
  const per = (<usize>nh + 5 * <usize>nl + 2 * <usize>(nbits + 1)) << 4;
  for (let k: u32 = 0; k < nclaims; k++) {
    const base = scratch + <usize>k * per;
    const hi = base, lo = hi + (<usize>nh << 4), cols = lo + (<usize>nl << 4);
    const ph = cols + (<usize>nl << 6), pl = ph + (<usize>(nbits + 1) << 4);
    const src = claims + <usize>k * stride;
    // hi point: z_0..z_{h−1}, then c_k; lo point: z_h..z_{nbits−1}, then 1
    for (let j: u32 = 0; j < h; j++) v128.store(ph + (<usize>j << 4), v128.load(src + (<usize>j << 4)));
    v128.store(ph + (<usize>h << 4), v128.load(src + (<usize>nbits << 4)));
    for (let j: u32 = 0; j < l; j++) v128.store(pl + (<usize>j << 4), v128.load(src + (<usize>(h + j) << 4)));
    v128.store(pl + (<usize>l << 4), i32x4.replace_lane(i32x4.splat(0), 0, 1));
    gkr_eq(hi, ph, h);
    gkr_eq(lo, pl, l);
    for (let j: u32 = 0; j < nl; j++) {
      const b = v128.load(lo + (<usize>j << 4));
      const t = vTriple(b);
      const c = cols + (<usize>j << 6);
      v128.store(c, b);
      v128.store(c, i32x4.shuffle(t, b, 3, 4, 5, 6), 16);
      v128.store(c, i32x4.shuffle(t, b, 2, 3, 4, 5), 32);
      v128.store(c, i32x4.shuffle(t, b, 1, 2, 3, 4), 48);
    }
  }
  for (let i: u32 = 0; i < nh; i++) {
    const row = dst + (<usize>i << <usize>(l + 4));
    const a = v128.load(scratch + (<usize>i << 4));
    const a0 = lane0(a), a1 = lane1(a), a2 = lane2(a), a3 = lane3(a);
    const c0 = scratch + (<usize>(nh + nl) << 4);
    for (let j: u32 = 0; j < nl; j++) {
      const c = c0 + (<usize>j << 6);
      v128.store(row + (<usize>j << 4), dot4(a0, v128.load(c), a1, v128.load(c, 16), a2, v128.load(c, 32), a3, v128.load(c, 48)));
    }
    for (let k: u32 = 1; k < nclaims; k++) {
      const base = scratch + <usize>k * per;
      const e = v128.load(base + (<usize>i << 4));
      const e0 = lane0(e), e1 = lane1(e), e2 = lane2(e), e3 = lane3(e);
      const ck = base + (<usize>(nh + nl) << 4);
      for (let j: u32 = 0; j < nl; j++) {
        const c = ck + (<usize>j << 6);
        const at = row + (<usize>j << 4);
        v128.store(at, vAdd(v128.load(at), dot4(e0, v128.load(c), e1, v128.load(c, 16), e2, v128.load(c, 32), e3, v128.load(c, 48))));
      }
    }
  }
}
