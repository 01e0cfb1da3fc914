/**
 * The keys of a batch being replayed (replay.ts), sorted and deduplicated, with how many of each
 * key's updates are still to replay, counted in a Fenwick tree: how many distinct keys of the
 * batch and how many updates still to replay lie in a key range, in O(log n).
 */
import { InternalError } from "../../errors.js";

/** Index of the first element ≥ x of an ascending array (its length when none). */
export function lowerBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class PendingKeys {
  /** Distinct keys, ascending. */
  private readonly sorted: Float64Array;
  /** Updates still to replay per distinct key. */
  private readonly counts: Int32Array;
  /** Fenwick tree over `counts` (1-based). */
  private readonly tree: Int32Array;

  /** @param keys every update's key, in any order (a key once per update). */
  constructor(keys: ArrayLike<number>) {
    const all = Float64Array.from(keys).sort();
    let n = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
    this.sorted = all.slice(0, n);
    this.counts = new Int32Array(n);
    for (let i = 0; i < keys.length; i++) this.counts[this.lower(keys[i]!)]!++;
    const tree = new Int32Array(n + 1);
    for (let i = 1; i <= n; i++) {
      tree[i]! += this.counts[i - 1]!;
      const j = i + (i & -i);
      if (j <= n) tree[j]! += tree[i]!;
    }
    this.tree = tree;
  }

  /** Index of the first distinct key ≥ x. */
  private lower(x: number): number {
    return lowerBound(this.sorted, x);
  }

  /** Updates still to replay among the first i distinct keys. */
  private prefix(i: number): number {
    let s = 0;
    for (; i > 0; i -= i & -i) s += this.tree[i]!;
    return s;
  }

  /** Updates of `key` still to replay (0 for a key not in the batch). */
  pendingOf(key: number): number {
    const i = this.lower(key);
    return i < this.sorted.length && this.sorted[i] === key ? this.counts[i]! : 0;
  }

  /** One update of `key` replayed. @throws InternalError when none of its updates was left (a caller bug). */
  done(key: number): void {
    const i = this.lower(key);
    if (i >= this.sorted.length || this.sorted[i] !== key || this.counts[i] === 0)
      throw new InternalError(`key ${key} has no update left to replay`);
    this.counts[i]!--;
    for (let j = i + 1; j < this.tree.length; j += j & -j) this.tree[j]!--;
  }

  /** Distinct keys of the batch in [lo, hi), and updates still to replay among them. */
  range(lo: number, hi: number): { distinct: number; pending: number } {
    const a = this.lower(lo);
    const b = this.lower(hi);
    return { distinct: b - a, pending: b === a ? 0 : this.prefix(b) - this.prefix(a) };
  }
}
