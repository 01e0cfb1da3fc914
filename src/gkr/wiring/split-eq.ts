/**
 * Split eq tables of a point (compat-v1 §10.1 eq, MSB-first points): for a point z of n
 * coordinates and a low part of L = min(loBits, n) coordinates,
 *   eq(z, w) = hi[w >> L] · lo[w mod 2^L],
 * with hi = eq table of the first n − L coordinates and lo = eq table of the last L. Building
 * both costs about 2^(n−L) + 2^L extension multiplications instead of 2^n for the full table.
 */
import { P } from "../../field/koalabear.js";
import type { Ext } from "../../field/extension.js";
import { ExtVector } from "../../field/ext-vector.js";
import { reduce52 } from "../../field/ext-split.js";

export interface SplitEqTables {
  /** Number of coordinates of the point. */
  readonly n: number;
  /** Low coordinates L = min(loBits, n). */
  readonly loBits: number;
  /**
   * eq table of the first n − L coordinates (2^(n−L) elements, plane layout); only the entries
   * below `hiBound` are computed (the others are zero).
   */
  readonly hi: ExtVector;
  readonly hiBound: number;
  /** eq table of the last L coordinates (2^L elements, plane layout). */
  readonly lo: ExtVector;
}

/**
 * Split eq tables of `point` with at most `loBits` low coordinates (point of ≤ 30 coordinates);
 * hi entries at indices ≥ hiBound are left zero (default: all computed). `reuse`: tables no longer
 * needed whose buffers may be overwritten when their sizes fit.
 */
export function splitEqTables(
  point: readonly Ext[],
  loBits: number,
  hiBound = Infinity,
  reuse?: SplitEqTables,
): SplitEqTables {
  const n = point.length;
  const L = Math.min(loBits, n);
  const bound = Math.max(1, Math.min(hiBound, 2 ** (n - L)));
  return {
    n,
    loBits: L,
    hi: eqTableRange(point, 0, n - L, bound, reuse?.hi),
    hiBound: bound,
    lo: eqTableRange(point, n - L, n, Infinity, reuse?.lo),
  };
}

/**
 * eq table of the coordinates point[from..to) (same values as `eqTable` of that slice) at the
 * indices below `bound` (the rest stay zero), built by doubling: entry b of the first j
 * coordinates splits into 2b (× (1 − z)) and 2b + 1 (× z), one extension product per parent.
 * `reuse`: a table of the same length whose buffer is overwritten instead of allocating.
 */
export function eqTableRange(
  point: readonly Ext[],
  from: number,
  to: number,
  bound = Infinity,
  reuse?: ExtVector,
): ExtVector {
  const n = to - from;
  const N = 2 ** n;
  const B = Math.max(1, Math.min(bound, N));
  let v: ExtVector;
  if (reuse !== undefined && reuse.length === N) {
    v = reuse;
    v.data.fill(0);
  } else {
    v = new ExtVector(N);
  }
  const d = v.data;
  const N2 = 2 * N,
    N3 = 3 * N;
  d[0] = 1;
  let size = 1;
  for (let j = 0; j < n; j++) {
    const z = point[from + j]!;
    const zh0 = z[0] >>> 16,
      zl0 = z[0] & 0xffff,
      zh1 = z[1] >>> 16,
      zl1 = z[1] & 0xffff;
    const zh2 = z[2] >>> 16,
      zl2 = z[2] & 0xffff,
      zh3 = z[3] >>> 16,
      zl3 = z[3] & 0xffff;
    // Prefixes of j + 1 coordinates that lead to an index below B.
    const next = Math.ceil(B / 2 ** (n - 1 - j));
    // Descending b: entries 2b and 2b + 1 are written after entry b is read, and never read again.
    for (let b = size - 1; b >= 0; b--) {
      const lo = 2 * b,
        hi = lo + 1;
      if (lo >= next) continue;
      const a0 = d[b]!,
        a1 = d[N + b]!,
        a2 = d[N2 + b]!,
        a3 = d[N3 + b]!;
      // e·z with z split into 16-bit halves (exact, as extMulSplitTo), then e·(1 − z) = e − e·z.
      const t1 = 3 * a1,
        t2 = 3 * a2,
        t3 = 3 * a3;
      const e0 = reduce52(
        reduce52(a0 * zh0 + t1 * zh3 + t2 * zh2 + t3 * zh1) * 65536 + (a0 * zl0 + t1 * zl3 + t2 * zl2 + t3 * zl1),
      );
      const e1 = reduce52(
        reduce52(a0 * zh1 + a1 * zh0 + t2 * zh3 + t3 * zh2) * 65536 + (a0 * zl1 + a1 * zl0 + t2 * zl3 + t3 * zl2),
      );
      const e2 = reduce52(
        reduce52(a0 * zh2 + a1 * zh1 + a2 * zh0 + t3 * zh3) * 65536 + (a0 * zl2 + a1 * zl1 + a2 * zl0 + t3 * zl3),
      );
      const e3 = reduce52(
        reduce52(a0 * zh3 + a1 * zh2 + a2 * zh1 + a3 * zh0) * 65536 + (a0 * zl3 + a1 * zl2 + a2 * zl1 + a3 * zl0),
      );
      d[hi] = e0;
      d[N + hi] = e1;
      d[N2 + hi] = e2;
      d[N3 + hi] = e3;
      let t = a0 - e0;
      d[lo] = t < 0 ? t + P : t;
      t = a1 - e1;
      d[N + lo] = t < 0 ? t + P : t;
      t = a2 - e2;
      d[N2 + lo] = t < 0 ? t + P : t;
      t = a3 - e3;
      d[N3 + lo] = t < 0 ? t + P : t;
      if (hi >= next) {
        d[hi] = 0;
        d[N + hi] = 0;
        d[N2 + hi] = 0;
        d[N3 + hi] = 0;
      }
    }
    size = next;
  }
  return v;
}

/**
 * A few recent points' split tables. A point is recognised by identity and then by value (the
 * coordinates are compared), so a caller that mutates a point array gets fresh tables; tables
 * with too small a hi bound are rebuilt. Buffers of evicted entries are reused, but never those of
 * tables handed out since the last `begin()`: those stay valid until the next `begin()`.
 */
export class SplitEqCache {
  private readonly entries: {
    point: readonly Ext[];
    words: Uint32Array;
    loBits: number;
    tables: SplitEqTables;
    gen: number;
  }[] = [];
  private gen = 0;

  constructor(private readonly capacity = 4) {}

  /** Starts an evaluation: tables returned from now on are not overwritten before the next `begin`. */
  begin(): void {
    this.gen++;
  }

  get(point: readonly Ext[], loBits: number, hiBound = Infinity): SplitEqTables {
    const need = Math.max(1, Math.min(hiBound, 2 ** (point.length - Math.min(loBits, point.length))));
    for (let k = 0; k < this.entries.length; k++) {
      const e = this.entries[k]!;
      if (e.point === point && e.loBits === loBits && sameWords(e.words, point)) {
        if (e.tables.hiBound >= need) {
          e.gen = this.gen;
          return e.tables;
        }
        if (e.gen !== this.gen) this.entries.splice(k, 1);
        break;
      }
    }
    // The oldest entry not handed out in this evaluation leaves the cache when it is full; its
    // buffers are reused for the new tables.
    let reuse: SplitEqTables | undefined;
    if (this.entries.length >= this.capacity) {
      for (let k = this.entries.length - 1; k >= 0; k--) {
        if (this.entries[k]!.gen !== this.gen) {
          reuse = this.entries.splice(k, 1)[0]!.tables;
          break;
        }
      }
    }
    const tables = splitEqTables(point, loBits, need, reuse);
    const words = new Uint32Array(4 * point.length);
    for (let j = 0; j < point.length; j++) {
      const c = point[j]!;
      words[4 * j] = c[0];
      words[4 * j + 1] = c[1];
      words[4 * j + 2] = c[2];
      words[4 * j + 3] = c[3];
    }
    this.entries.unshift({ point, words, loBits, tables, gen: this.gen });
    return tables;
  }
}

function sameWords(words: Uint32Array, point: readonly Ext[]): boolean {
  if (words.length !== 4 * point.length) return false;
  for (let j = 0; j < point.length; j++) {
    const c = point[j]!;
    if (words[4 * j] !== c[0] || words[4 * j + 1] !== c[1] || words[4 * j + 2] !== c[2] || words[4 * j + 3] !== c[3])
      return false;
  }
  return true;
}
