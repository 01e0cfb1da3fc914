/**
 * Batch recomputation of the tree above a set of changed leaves, over node tiles (tiles.ts).
 *
 * Level by level from the leaves: write the changed nodes of level l, collect their parents
 * (index >> 1, deduplicated), hash every parent's two children with one batched h_node call,
 * and continue with the parents at level l + 1; the last level gives the root. Children that are
 * not stored are the empty-subtree defaults (compat-v1 §20.7). A parent of two default
 * children is itself default and is not stored.
 */
import type { Digest } from "../../hash/digest.js";
import { RATE, WIDTH } from "../../hash/poseidon2.js";
import { compressPairs, type BatchPermutation } from "../hashing/permutation.js";
import { Tile, TILE_HEIGHT, layerHeight } from "./tiles.js";

/** Reads stored tiles; `undefined` for a tile with no stored node. */
export type TileLoader = (layer: number, tile: number) => Tile | undefined;

/** A tile touched by an update. */
export interface TouchedTile {
  readonly layer: number;
  readonly index: number;
  readonly tile: Tile;
}

interface LevelGeometry {
  readonly layer: number;
  readonly width: number;
  readonly offset: number;
}

const KEY_STRIDE = 2 ** 48;

export class TreeUpdate {
  readonly depth: number;
  private readonly defaults: readonly Digest[];
  private readonly load: TileLoader;
  private readonly perm: BatchPermutation;
  private readonly geometry: LevelGeometry[] = [];
  private readonly tiles = new Map<number, TouchedTile>();

  /**
   * @param depth tree depth (1..48).
   * @param defaults default_l for l = 0..depth.
   * @param load reads a stored tile (called at most once per tile).
   * @param perm batched permutation for h_node.
   */
  constructor(depth: number, defaults: readonly Digest[], load: TileLoader, perm: BatchPermutation) {
    this.depth = depth;
    this.defaults = defaults;
    this.load = load;
    this.perm = perm;
    for (let level = 0; level < depth; level++) {
      const layer = Math.floor(level / TILE_HEIGHT);
      const h = layerHeight(depth, layer);
      const r = level - TILE_HEIGHT * layer;
      this.geometry.push({ layer, width: 2 ** (h - r), offset: 2 ** (h + 1) - 2 ** (h - r + 1) });
    }
  }

  private lastKey = -1;
  private lastTile: Tile | undefined;

  private tileFor(layer: number, index: number): Tile {
    const key = layer * KEY_STRIDE + index;
    if (key === this.lastKey) return this.lastTile!;
    let t = this.tiles.get(key);
    if (t === undefined) {
      t = { layer, index, tile: this.load(layer, index) ?? new Tile() };
      this.tiles.set(key, t);
    }
    this.lastKey = key;
    this.lastTile = t.tile;
    return t.tile;
  }

  /** Current digest of node (level, index), level < depth (a copy). */
  node(level: number, index: number): Digest {
    const g = this.geometry[level]!;
    const tileIndex = Math.floor(index / g.width);
    const tile = this.tileFor(g.layer, tileIndex);
    const bit = g.offset + index - tileIndex * g.width;
    return tile.has(bit) ? tile.node(bit).slice() : this.defaults[level]!.slice();
  }

  /**
   * Sets leaves and recomputes every node above them.
   * @param slots changed slots, strictly ascending, each < 2^depth.
   * @param digests their new leaf digests, 8 words each (slot k at [8k, 8k + 8)).
   * @returns the new root.
   */
  apply(slots: ArrayLike<number>, digests: Uint32Array): Digest {
    let idx: number[] = Array.from(slots);
    let vals = digests;
    for (let level = 0; level < this.depth; level++) {
      const g = this.geometry[level]!;
      const def = this.defaults[level]!;
      // write level `level`
      for (let k = 0; k < idx.length; k++) {
        const i = idx[k]!;
        const tileIndex = Math.floor(i / g.width);
        const tile = this.tileFor(g.layer, tileIndex);
        const bit = g.offset + i - tileIndex * g.width;
        let isDefault = true;
        for (let w = 0; w < RATE && isDefault; w++) isDefault = vals[RATE * k + w] === def[w];
        if (isDefault) tile.clear(bit);
        else tile.set(bit, vals, RATE * k);
      }
      // parents and their children
      const parents: number[] = [];
      for (let k = 0; k < idx.length; k++) {
        const p = Math.floor(idx[k]! / 2);
        if (parents.length === 0 || parents[parents.length - 1] !== p) parents.push(p);
      }
      const pairs = new Uint32Array(WIDTH * parents.length);
      const bothDefault = new Uint8Array(parents.length);
      for (let k = 0; k < parents.length; k++) {
        const left = 2 * parents[k]!;
        const tileIndex = Math.floor(left / g.width);
        const tile = this.tileFor(g.layer, tileIndex);
        const bit = g.offset + left - tileIndex * g.width;
        const hasL = tile.has(bit);
        const hasR = tile.has(bit + 1);
        const nodes = tile.nodes;
        const o = WIDTH * k;
        for (let w = 0; w < RATE; w++) {
          pairs[o + w] = hasL ? nodes[8 * bit + w]! : def[w]!;
          pairs[o + RATE + w] = hasR ? nodes[8 * bit + 8 + w]! : def[w]!;
        }
        bothDefault[k] = !hasL && !hasR ? 1 : 0;
      }
      const up = compressPairs(this.perm, pairs, parents.length);
      const nextDef = this.defaults[level + 1]!;
      for (let k = 0; k < parents.length; k++) if (bothDefault[k]) up.set(nextDef, RATE * k);
      idx = parents;
      vals = up;
    }
    return vals.slice(0, RATE);
  }

  /** Every tile read or written so far. */
  touched(): IterableIterator<TouchedTile> {
    return this.tiles.values();
  }
}
