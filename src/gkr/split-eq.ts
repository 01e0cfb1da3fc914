/**
 * Split eq tables of a point (compat-v1 §10.1 eq, MSB-first points): for a point z of n
 * coordinates and a low part of L = min(loBits, n) coordinates,
 *   eq(z, w) = hi[w >> L] · lo[w mod 2^L],
 * with hi = eq table of the first n − L coordinates and lo = eq table of the last L. Building
 * both costs about 2^(n−L) + 2^L extension multiplications instead of 2^n for the full table.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { extMulSplitTo } from "../sumcheck/ext-split.js";

export interface SplitEqTables {
  /** Number of coordinates of the point. */
  readonly n: number;
  /** Low coordinates L = min(loBits, n). */
  readonly loBits: number;
  /** eq table of the first n − L coordinates (2^(n−L) elements, plane layout). */
  readonly hi: ExtVector;
  /** eq table of the last L coordinates (2^L elements, plane layout). */
  readonly lo: ExtVector;
}

/** Split eq tables of `point` with at most `loBits` low coordinates (point of ≤ 30 coordinates). */
export function splitEqTables(point: readonly Ext[], loBits: number): SplitEqTables {
  const n = point.length;
  const L = Math.min(loBits, n);
  return { n, loBits: L, hi: eqTableRange(point, 0, n - L), lo: eqTableRange(point, n - L, n) };
}

/**
 * eq table of the coordinates point[from..to) (same values as `eqTable` of that slice), built by
 * doubling: entry b splits into 2b (× (1 − z)) and 2b + 1 (× z), one extension product per entry.
 */
export function eqTableRange(point: readonly Ext[], from: number, to: number): ExtVector {
  const N = 2 ** (to - from);
  const v = new ExtVector(N);
  const d = v.data;
  const N2 = 2 * N, N3 = 3 * N;
  d[0] = 1;
  let size = 1;
  for (let j = from; j < to; j++) {
    const z = point[j]!;
    const z0 = z[0], z1 = z[1], z2 = z[2], z3 = z[3];
    // Descending b: entries 2b and 2b + 1 are written after entry b is read, and never read again.
    for (let b = size - 1; b >= 0; b--) {
      const a0 = d[b]!, a1 = d[N + b]!, a2 = d[N2 + b]!, a3 = d[N3 + b]!;
      const hi = 2 * b + 1, lo = 2 * b;
      extMulSplitTo(d, hi, N, a0, a1, a2, a3, z0, z1, z2, z3);
      let t = a0 - d[hi]!;
      d[lo] = t < 0 ? t + P : t;
      t = a1 - d[N + hi]!;
      d[N + lo] = t < 0 ? t + P : t;
      t = a2 - d[N2 + hi]!;
      d[N2 + lo] = t < 0 ? t + P : t;
      t = a3 - d[N3 + hi]!;
      d[N3 + lo] = t < 0 ? t + P : t;
    }
    size *= 2;
  }
  return v;
}

/**
 * A few recent points' split tables. A point is recognised by identity and then by value (the
 * coordinates are compared), so a caller that mutates a point array gets fresh tables.
 */
export class SplitEqCache {
  private readonly entries: { point: readonly Ext[]; words: Uint32Array; loBits: number; tables: SplitEqTables }[] = [];

  constructor(private readonly capacity = 4) {}

  get(point: readonly Ext[], loBits: number): SplitEqTables {
    for (const e of this.entries) {
      if (e.point === point && e.loBits === loBits && sameWords(e.words, point)) return e.tables;
    }
    const tables = splitEqTables(point, loBits);
    const words = new Uint32Array(4 * point.length);
    for (let j = 0; j < point.length; j++) {
      const c = point[j]!;
      words[4 * j] = c[0];
      words[4 * j + 1] = c[1];
      words[4 * j + 2] = c[2];
      words[4 * j + 3] = c[3];
    }
    this.entries.unshift({ point, words, loBits, tables });
    if (this.entries.length > this.capacity) this.entries.pop();
    return tables;
  }
}

function sameWords(words: Uint32Array, point: readonly Ext[]): boolean {
  if (words.length !== 4 * point.length) return false;
  for (let j = 0; j < point.length; j++) {
    const c = point[j]!;
    if (words[4 * j] !== c[0] || words[4 * j + 1] !== c[1] || words[4 * j + 2] !== c[2] || words[4 * j + 3] !== c[3]) return false;
  }
  return true;
}
