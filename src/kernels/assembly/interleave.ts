// Word interleaving for the commitment streams (k word arrays into one).

/**
 * dst[k·i + j] = src_j[i] for i < n, j < k: interleaves k word arrays whose byte pointers are the
 * k words at `table` (1 ≤ k ≤ 8).
 */
export function interleave_words(dst: usize, table: usize, k: u32, n: u32): void {
  for (let j: u32 = 0; j < k; j++) {
    const src = <usize>load<u32>(table + (<usize>j << 2));
    let d = dst + (<usize>j << 2);
    const stride = <usize>k << 2;
    for (let i: u32 = 0; i < n; i++) {
      store<u32>(d, load<u32>(src + (<usize>i << 2)));
      d += stride;
    }
  }
}
