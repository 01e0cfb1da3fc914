/**
 * Block-pattern form of a layer's wiring (compat-v1 §10.6 "derived closed form"), derived from
 * the gate list with the builder's (family, block) tags as grouping hints.
 *
 * Wires are split into a high part (tile index) and a low part of L bits (L = min(loBits, width
 * bits), so a tile is an aligned run of 2^L wires). A gate (kind, out, in1, in2, coeff) sits in
 * the tile (out >> L_out, in1 >> L_in, in2 >> L_in) at the low offsets (a, b, c). The gates of one
 * tile form a pattern: the multiset of (a, b, c, coeff). Regular structure makes many tiles share
 * a pattern: a Poseidon2 fused layer is one dense 16×16 pattern repeated per block at a
 * power-of-two stride, identity lifts are a few diagonal patterns, and so on. With the split eq
 * tables of each point the predicate becomes
 *   pred(z, x, y) = Σ_patterns [Σ_(a,b,c,coeff) coeff·lo_z[a]·lo_x[b]·(lo_y[c])]
 *                              · [Σ_placements hi_z[oh]·hi_x[ih]·(hi_y[ih2])],
 * which costs O(pattern entries + placements) per layer instead of O(gates + 2^width).
 *
 * Tags only choose the groups (family, kind): wrong or missing tags cost speed, never results:
 * block-pattern-audit.ts checks every group against its gates, and a group that differs is kept
 * as explicit gates (the residue).
 */
import { add } from "../../field/koalabear.js";
import { GateKind, type Layer } from "../circuit.js";
import type { LayerTags } from "../builder.js";

/** Low offsets and coefficients of the gates of one tile, sorted by (a, b, c), duplicates merged, zeros dropped. */
export interface GatePattern {
  readonly kind: GateKind;
  readonly a: Uint32Array;
  readonly b: Uint32Array;
  /** Low offset of in2 (equal to b for Lin and Pow3). */
  readonly c: Uint32Array;
  readonly coeff: Uint32Array;
}

/** Constant pattern: low offsets and summed values, sorted by a, zeros dropped. */
export interface ConstPattern {
  readonly a: Uint32Array;
  readonly value: Uint32Array;
}

/** The derived form of one (family, kind) group of gates. */
export interface GateGroupForm {
  readonly family: number;
  readonly kind: GateKind;
  /** Indices of the group's gates in the layer's arrays. */
  readonly gates: Uint32Array;
  /** Per placement: pattern id and tile (high parts of out, in1, in2). */
  readonly pattern: Int32Array;
  readonly oh: Int32Array;
  readonly ih: Int32Array;
  readonly ih2: Int32Array;
}

/** The derived form of one family's constants. */
export interface ConstGroupForm {
  readonly family: number;
  readonly consts: Uint32Array;
  readonly pattern: Int32Array;
  readonly oh: Int32Array;
}

export interface LayerForm {
  /** Width bits of the layer (out wires) and of the vector it reads (in wires). */
  readonly outBits: number;
  readonly inBits: number;
  /** Low bits of out and in wires: min(loBits, outBits), min(loBits, inBits). */
  readonly outLo: number;
  readonly inLo: number;
  readonly patterns: readonly GatePattern[];
  readonly groups: readonly GateGroupForm[];
  readonly constPatterns: readonly ConstPattern[];
  readonly constGroups: readonly ConstGroupForm[];
}

/** Tags usable for this layer (array lengths match), else null: the layer is then one group per kind. */
function usableTags(layer: Layer, tags: LayerTags | undefined): LayerTags | null {
  if (!tags) return null;
  const n = layer.gateKind.length,
    m = layer.constWire.length;
  const ok =
    tags.gateFamily?.length === n &&
    tags.gateBlock?.length === n &&
    tags.constFamily?.length === m &&
    tags.constBlock?.length === m;
  return ok ? tags : null;
}

/** Indices grouped by key, groups in order of first appearance. */
function groupBy(count: number, key: (i: number) => number | string): Uint32Array[] {
  const lists = new Map<number | string, number[]>();
  for (let i = 0; i < count; i++) {
    const k = key(i);
    let list = lists.get(k);
    if (!list) lists.set(k, (list = []));
    list.push(i);
  }
  return [...lists.values()].map((list) => Uint32Array.from(list));
}

/** Deduplicates patterns: candidates with equal hash are compared exactly against the scratch. */
class PatternTable<T> {
  readonly items: T[] = [];
  private readonly byHash = new Map<number, number[]>();

  /** The id of the pattern equal to the scratch content (`same`), creating it with `make` if new. */
  id(hash: number, same: (item: T) => boolean, make: () => T): number {
    let ids = this.byHash.get(hash);
    if (!ids) this.byHash.set(hash, (ids = []));
    for (const id of ids) if (same(this.items[id]!)) return id;
    const id = this.items.length;
    this.items.push(make());
    ids.push(id);
    return id;
  }
}

function mix(h: number, v: number): number {
  return Math.imul(h ^ v, 0x01000193) >>> 0;
}

/**
 * Reusable buffers for merging a tile's (low key, value) pairs: sorted by key, values of equal
 * keys summed mod p, zero sums dropped. Keys are < 2^21, so (key·2^32 + position) sorts natively.
 */
class TileMerger {
  private order = new Float64Array(256);
  keys = new Uint32Array(256);
  values = new Uint32Array(256);
  private inKeys = new Uint32Array(256);
  private inValues = new Uint32Array(256);
  private n = 0;
  /** Number of merged entries. */
  size = 0;

  reset(capacity: number): void {
    if (this.order.length < capacity) {
      this.order = new Float64Array(capacity);
      this.keys = new Uint32Array(capacity);
      this.values = new Uint32Array(capacity);
      this.inKeys = new Uint32Array(capacity);
      this.inValues = new Uint32Array(capacity);
    }
    this.n = 0;
  }

  push(key: number, value: number): void {
    this.inKeys[this.n] = key;
    this.inValues[this.n] = value;
    this.n++;
  }

  merge(): number {
    const n = this.n;
    const inKeys = this.inKeys;
    // Gates usually arrive in key order (a node's taps, consecutive nodes): sort only if not.
    let sorted = true;
    for (let j = 1; j < n && sorted; j++) if (inKeys[j]! < inKeys[j - 1]!) sorted = false;
    const order = this.order.subarray(0, n);
    if (!sorted) {
      for (let j = 0; j < n; j++) order[j] = inKeys[j]! * 4294967296 + j;
      order.sort();
    }
    let m = 0;
    for (let j = 0; j < n; j++) {
      const pos = sorted ? j : order[j]! % 4294967296;
      const k = inKeys[pos]!,
        v = this.inValues[pos]!;
      if (m > 0 && this.keys[m - 1] === k) this.values[m - 1] = add(this.values[m - 1]!, v);
      else {
        this.keys[m] = k;
        this.values[m] = v;
        m++;
      }
    }
    let r = 0;
    for (let j = 0; j < m; j++) {
      if (this.values[j] !== 0) {
        this.keys[r] = this.keys[j]!;
        this.values[r] = this.values[j]!;
        r++;
      }
    }
    this.size = r;
    return r;
  }
}

/**
 * Derives the block-pattern form of layer `layer` reading a vector of 2^inBits values.
 * @param tags the builder's tags of this layer (optional; ignored if their lengths do not match).
 * @param loBits tile size exponent, an integer in [0, 7].
 */
export function deriveLayerForm(layer: Layer, inBits: number, loBits: number, tags?: LayerTags): LayerForm {
  const outBits = layer.widthBits;
  const outLo = Math.min(loBits, outBits),
    inLo = Math.min(loBits, inBits);
  const t = usableTags(layer, tags);
  const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = layer;
  const oMask = 2 ** outLo - 1,
    iMask = 2 ** inLo - 1;
  const ihSize = 2 ** (inBits - inLo);
  // Tile keys are numbers when (oh, ih, ih2) fit in 53 bits, else strings.
  const numericTiles = outBits - outLo + 2 * (inBits - inLo) <= 53;
  const patternTable = new PatternTable<GatePattern & { readonly key: Uint32Array }>();
  const merger = new TileMerger();
  const groups: GateGroupForm[] = [];

  // Groups: (family, kind); family −1 (untagged or no tags) is a group of its own per kind.
  for (const members of groupBy(gateKind.length, (g) => (t ? t.gateFamily[g]! + 1 : 0) * 4 + gateKind[g]!)) {
    const kind = gateKind[members[0]!]! as GateKind;
    const isMul = kind === GateKind.Mul;
    const tiles = new Map<number | string, number[]>();
    let lastKey: number | string = -1;
    let lastList: number[] = [];
    for (let j = 0; j < members.length; j++) {
      const g = members[j]!;
      const oh = gateOut[g]! >>> outLo,
        ih = gateIn1[g]! >>> inLo,
        ih2 = (isMul ? gateIn2[g]! : gateIn1[g]!) >>> inLo;
      const key = numericTiles ? (oh * ihSize + ih) * ihSize + ih2 : `${oh},${ih},${ih2}`;
      if (key !== lastKey) {
        // Consecutive gates usually share a tile (one node's taps), so the map is rarely consulted.
        let list = tiles.get(key);
        if (!list) tiles.set(key, (list = []));
        lastKey = key;
        lastList = list;
      }
      lastList.push(g);
    }
    const pat: number[] = [],
      ohs: number[] = [],
      ihs: number[] = [],
      ih2s: number[] = [];
    for (const list of tiles.values()) {
      merger.reset(list.length);
      for (const g of list) {
        const c = (isMul ? gateIn2[g]! : gateIn1[g]!) & iMask;
        merger.push(((((gateOut[g]! & oMask) << inLo) | (gateIn1[g]! & iMask)) << inLo) | c, gateCoeff[g]!);
      }
      const n = merger.merge();
      if (n === 0) continue;
      const mk = merger.keys,
        mv = merger.values;
      let h = mix(0x811c9dc5, kind);
      for (let e = 0; e < n; e++) h = mix(mix(h, mk[e]!), mv[e]!);
      pat.push(
        patternTable.id(
          h,
          (p) => p.kind === kind && p.key.length === n && p.key.every((k, e) => k === mk[e] && p.coeff[e] === mv[e]),
          () => {
            const key = mk.slice(0, n),
              coeff = mv.slice(0, n);
            const a = new Uint32Array(n),
              b = new Uint32Array(n),
              c = new Uint32Array(n);
            for (let e = 0; e < n; e++) {
              a[e] = key[e]! >>> (2 * inLo);
              b[e] = (key[e]! >>> inLo) & iMask;
              c[e] = key[e]! & iMask;
            }
            return { kind, a, b, c, coeff, key };
          },
        ),
      );
      const g0 = list[0]!;
      ohs.push(gateOut[g0]! >>> outLo);
      ihs.push(gateIn1[g0]! >>> inLo);
      ih2s.push((isMul ? gateIn2[g0]! : gateIn1[g0]!) >>> inLo);
    }
    groups.push({
      family: t ? t.gateFamily[members[0]!]! : -1,
      kind,
      gates: members,
      pattern: Int32Array.from(pat),
      oh: Int32Array.from(ohs),
      ih: Int32Array.from(ihs),
      ih2: Int32Array.from(ih2s),
    });
  }

  // Constants: groups by family, tiles by out >> L_out.
  const { constWire, constValue } = layer;
  const constTable = new PatternTable<ConstPattern>();
  const constGroups: ConstGroupForm[] = [];
  for (const members of groupBy(constWire.length, (c) => (t ? t.constFamily[c]! + 1 : 0))) {
    const tiles = new Map<number, number[]>();
    for (const c of members) {
      const oh = constWire[c]! >>> outLo;
      let list = tiles.get(oh);
      if (!list) tiles.set(oh, (list = []));
      list.push(c);
    }
    const pat: number[] = [],
      ohs: number[] = [];
    for (const [oh, list] of tiles) {
      merger.reset(list.length);
      for (const c of list) merger.push(constWire[c]! & oMask, constValue[c]!);
      const n = merger.merge();
      if (n === 0) continue;
      const mk = merger.keys,
        mv = merger.values;
      let h = 0x811c9dc5;
      for (let e = 0; e < n; e++) h = mix(mix(h, mk[e]!), mv[e]!);
      pat.push(
        constTable.id(
          h,
          (p) => p.a.length === n && p.a.every((k, e) => k === mk[e] && p.value[e] === mv[e]),
          () => ({ a: mk.slice(0, n), value: mv.slice(0, n) }),
        ),
      );
      ohs.push(oh);
    }
    constGroups.push({
      family: t ? t.constFamily[members[0]!]! : -1,
      consts: members,
      pattern: Int32Array.from(pat),
      oh: Int32Array.from(ohs),
    });
  }
  return {
    outBits,
    inBits,
    outLo,
    inLo,
    patterns: patternTable.items,
    groups,
    constPatterns: constTable.items,
    constGroups,
  };
}
