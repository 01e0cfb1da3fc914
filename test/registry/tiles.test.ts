import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { RegistryError } from "../../src/registry/errors.js";
import { Tile, locate, layerPositions, tileLayers, TILE_POSITIONS } from "../../src/registry/store/tiles.js";

test("every node of a small tree has exactly one tile position, inside its tile", () => {
  for (const depth of [1, 3, 4, 5, 8, 10]) {
    const seen = new Set<string>();
    let nodes = 0;
    for (let level = 0; level < depth; level++) {
      for (let index = 0; index < 2 ** (depth - level); index++) {
        const { layer, tile, bit } = locate(depth, level, index);
        assert.ok(layer < tileLayers(depth));
        assert.ok(bit >= 0 && bit < layerPositions(depth, layer), `depth ${depth} level ${level} index ${index}`);
        const key = `${layer}/${tile}/${bit}`;
        assert.ok(!seen.has(key), `collision at ${key}`);
        seen.add(key);
        nodes++;
        if (index % 2 === 0 && level < depth) {
          const sib = locate(depth, level, index + 1);
          assert.deepEqual([sib.layer, sib.tile, sib.bit], [layer, tile, bit + 1], "siblings are adjacent in one tile");
        }
      }
    }
    assert.equal(nodes, 2 ** (depth + 1) - 2);
  }
});

test("tile rows round-trip and store only the present positions", () => {
  const t = new Tile();
  t.set(0, [1, 2, 3, 4, 5, 6, 7, 8]);
  t.set(29, new Array(8).fill(P - 1));
  const row = t.encode();
  assert.equal(row.length, 4 + 64);
  const back = Tile.decode(row, TILE_POSITIONS, "t");
  assert.equal(back.mask, t.mask);
  assert.deepEqual(Array.from(back.nodes), Array.from(t.nodes));
  t.clear(0);
  assert.equal(t.encode().length, 4 + 32);
});

test("corrupt tile rows are DB_CORRUPT", () => {
  const corrupt = (e: unknown) => e instanceof RegistryError && e.code === "DB_CORRUPT";
  const t = new Tile();
  t.set(3, [1, 1, 1, 1, 1, 1, 1, 1]);
  const row = t.encode();
  assert.throws(() => Tile.decode(row.subarray(0, 20), TILE_POSITIONS, "t"), corrupt);
  assert.throws(() => Tile.decode(new Uint8Array(2), TILE_POSITIONS, "t"), corrupt);
  const bad = row.slice();
  new DataView(bad.buffer).setUint32(4, P, true);
  assert.throws(() => Tile.decode(bad, TILE_POSITIONS, "t"), corrupt);
  assert.throws(() => Tile.decode(row, 2, "t"), corrupt);
});
