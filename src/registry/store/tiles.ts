/**
 * Node tiles: how the non-default nodes of the tree are grouped into database rows.
 *
 * Levels follow src/smt/tree.ts: level 0 holds leaf digests, level `depth` the root, and node
 * (l, i) has children (l − 1, 2i) and (l − 1, 2i + 1). Tile layer t covers levels
 * [4t, 4t + h) with h = min(4, depth − 4t); tile (t, j) holds the subtree rows whose level-4t
 * indices lie in [2^h·j, 2^h·(j + 1)): row r (level 4t + r) has 2^(h−r) positions, so a tile has
 * 2^(h+1) − 2 positions (30 for h = 4). The root (level `depth`) is kept in the registry head,
 * not in a tile. A path touches ⌈depth/4⌉ tiles (6 at depth 24).
 *
 * Row of a tile: u32 LE presence mask (bit b = position b, rows in order, left to right) ‖ one
 * digest (8 × u32 LE) per set bit, in bit order. Only non-default nodes are stored: a clear bit
 * means the node equals the empty-subtree default of its level.
 */
import type { Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { RegistryError } from "../errors.js";

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Levels per tile layer. */
export const TILE_HEIGHT = 4;
/** Positions of a full-height tile. */
export const TILE_POSITIONS = (1 << (TILE_HEIGHT + 1)) - 2;

/** Number of tile layers of a tree of this depth. */
export function tileLayers(depth: number): number {
  return Math.ceil(depth / TILE_HEIGHT);
}

/** Height of tile layer t. */
export function layerHeight(depth: number, layer: number): number {
  return Math.min(TILE_HEIGHT, depth - TILE_HEIGHT * layer);
}

/** Where node (level, index) lives: tile layer, tile index, bit position. level < depth. */
export interface NodeLocation {
  readonly layer: number;
  readonly tile: number;
  readonly bit: number;
}

/** Location of node (level, index) for 0 ≤ level < depth ≤ 48 (index < 2^(depth − level)). */
export function locate(depth: number, level: number, index: number): NodeLocation {
  const layer = Math.floor(level / TILE_HEIGHT);
  const h = layerHeight(depth, layer);
  const r = level - TILE_HEIGHT * layer;
  const width = 2 ** (h - r);
  const tile = Math.floor(index / width);
  const offset = 2 ** (h + 1) - 2 ** (h - r + 1);
  return { layer, tile, bit: offset + (index - tile * width) };
}

/** 9-byte key of a tile: layer byte ‖ tile index as u64 big-endian. */
export function tileKey(layer: number, tile: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = layer;
  k.writeUIntBE(Math.floor(tile / 2 ** 32), 1, 4);
  k.writeUInt32BE(tile >>> 0, 5);
  return k;
}

/** A decoded tile: presence mask and a dense array of TILE_POSITIONS digests (8 words each). */
export class Tile {
  mask: number;
  readonly nodes: Uint32Array;

  constructor(mask = 0, nodes = new Uint32Array(8 * TILE_POSITIONS)) {
    this.mask = mask;
    this.nodes = nodes;
  }

  has(bit: number): boolean {
    return ((this.mask >>> bit) & 1) === 1;
  }

  /** The 8 words at a position (a view, valid while the tile lives). */
  node(bit: number): Uint32Array {
    return this.nodes.subarray(8 * bit, 8 * bit + 8);
  }

  set(bit: number, digest: ArrayLike<number>, from = 0): void {
    const o = 8 * bit;
    for (let k = 0; k < 8; k++) this.nodes[o + k] = digest[from + k]!;
    this.mask = (this.mask | (1 << bit)) >>> 0;
  }

  clear(bit: number): void {
    this.mask = (this.mask & ~(1 << bit)) >>> 0;
    this.nodes.fill(0, 8 * bit, 8 * bit + 8);
  }

  /** The stored row. */
  encode(): Uint8Array {
    let count = 0;
    for (let m = this.mask; m !== 0; m &= m - 1) count++;
    const words = new Uint32Array(1 + 8 * count);
    words[0] = this.mask;
    let at = 1;
    for (let bit = 0; bit < TILE_POSITIONS; bit++) {
      if (!this.has(bit)) continue;
      words.set(this.nodes.subarray(8 * bit, 8 * bit + 8), at);
      at += 8;
    }
    const out = new Uint8Array(words.buffer);
    if (!LITTLE_ENDIAN) for (let i = 0; i < out.length; i += 4) out.subarray(i, i + 4).reverse();
    return out;
  }

  /**
   * Decodes a stored row of a tile with `positions` positions.
   * @throws RegistryError `DB_CORRUPT` for a wrong length, a bit outside the tile or a
   * non-canonical word.
   */
  static decode(row: Uint8Array, positions: number, where: string): Tile {
    if (row.length < 4)
      throw new RegistryError("DB_CORRUPT", `tile ${where} has ${row.length} bytes (at least 4 expected)`);
    const view = new DataView(row.buffer, row.byteOffset, row.byteLength);
    const mask = view.getUint32(0, true);
    if (positions < 32 && mask >>> positions !== 0)
      throw new RegistryError(
        "DB_CORRUPT",
        `tile ${where} mask ${mask.toString(2)} has bits beyond its ${positions} positions`,
      );
    let count = 0;
    for (let m = mask; m !== 0; m &= m - 1) count++;
    if (row.length !== 4 + 32 * count)
      throw new RegistryError("DB_CORRUPT", `tile ${where} has ${row.length} bytes; its mask says ${4 + 32 * count}`);
    const tile = new Tile(mask);
    let at = 4;
    for (let bit = 0; bit < positions; bit++) {
      if (((mask >>> bit) & 1) === 0) continue;
      for (let k = 0; k < 8; k++) {
        const w = view.getUint32(at + 4 * k, true);
        if (w >= P) throw new RegistryError("DB_CORRUPT", `tile ${where} holds a non-canonical word ${w}`);
        tile.nodes[8 * bit + k] = w;
      }
      at += 32;
    }
    return tile;
  }
}

/** Positions of a tile of layer t. */
export function layerPositions(depth: number, layer: number): number {
  return 2 ** (layerHeight(depth, layer) + 1) - 2;
}

/** Copies a digest out of a tile position, or the default when the position is empty. */
export function nodeOrDefault(tile: Tile | undefined, bit: number, fallback: Digest): Digest {
  return tile !== undefined && tile.has(bit) ? tile.node(bit).slice() : fallback.slice();
}
