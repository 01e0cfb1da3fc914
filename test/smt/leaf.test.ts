import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  EMPTY,
  TOMBSTONE,
  LeafTag,
  encodeLeaf,
  foldEncoding,
  foldLeaf,
  foldWidth,
  hashLeaf,
  leafEquals,
  limbs,
  limbsReference,
  occupied,
  type Leaf,
} from "../../src/smt/leaf.js";
import { SmtError } from "../../src/smt/errors.js";
import { FieldError } from "../../src/field/errors.js";
import { P } from "../../src/field/koalabear.js";

const smtCode = (c: string) => (e: unknown) => e instanceof SmtError && e.code === c;

test("§18: h_leaf(Empty) and h_leaf(Tombstone) with B = 31", () => {
  assert.deepEqual(
    Array.from(hashLeaf(EMPTY)),
    [1909596571, 2084703925, 2076132673, 1660320635, 485629442, 1540884636, 1753030895, 352396268],
  );
  assert.deepEqual(
    Array.from(hashLeaf(TOMBSTONE, 31)),
    [1413360753, 889469805, 342662304, 1708929337, 188312453, 606778231, 1830580533, 1667069054],
  );
});

test("§18: limbs(32 × 0x09)", () => {
  assert.deepEqual(
    limbs(new Uint8Array(32).fill(9)),
    [151587081, 606348324, 277909648, 37896770, 151587081, 606348324, 277909648, 37896770, 2313],
  );
});

test("limbs: 8 limbs of 30 bits and one of 16; they reassemble the little-endian integer", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
      const l = limbs(bytes);
      assert.equal(l.length, 9);
      l.slice(0, 8).forEach((x) => assert.ok(x < 2 ** 30));
      assert.ok(l[8]! < 2 ** 16);
      let n = 0n;
      for (let i = 8; i >= 0; i--) n = (n << 30n) + BigInt(l[i]!);
      let expected = 0n;
      for (let i = 31; i >= 0; i--) expected = (expected << 8n) + BigInt(bytes[i]!);
      assert.equal(n, expected);
    }),
    { numRuns: 100 },
  );
  assert.deepEqual(limbs(new Uint8Array(32).fill(255)), [...new Array(8).fill(2 ** 30 - 1), 2 ** 16 - 1]);
});

test("encode and fold (§6.1–6.2): tag, length lane, verbatim fields, zero tail", () => {
  const id = new Uint8Array(32).fill(9);
  const leaf = occupied([42, 5], id);
  const enc = encodeLeaf(leaf);
  assert.deepEqual(enc, [1, 42, 5, ...limbs(id)]);
  assert.deepEqual(encodeLeaf(EMPTY), [0]);
  assert.deepEqual(encodeLeaf(TOMBSTONE), [2]);
  const pre = foldLeaf(leaf);
  assert.equal(pre.length, 32);
  assert.deepEqual(Array.from(pre.slice(0, 13)), [1, 12, 42, 5, ...limbs(id)]);
  assert.ok(pre.slice(13).every((x) => x === 0));
  assert.deepEqual(Array.from(foldLeaf(EMPTY)), [0, 1, ...new Array(30).fill(0)]);
  assert.deepEqual([7, 15, 23, 31, 32].map(foldWidth), [8, 16, 24, 32, 40]);
  assert.equal(foldLeaf(TOMBSTONE, 10).length, 16);
});

test("leaf bound: an encoding of length n hashes iff 1 ≤ n ≤ B (never truncated)", () => {
  const id = new Uint8Array(32);
  assert.equal(foldLeaf(occupied(new Array(21).fill(1), id)).length, 32, "21 sync fields fit B = 31");
  assert.throws(() => hashLeaf(occupied(new Array(22).fill(1), id)), smtCode("LEAF_ENCODING"));
  assert.equal(hashLeaf(occupied(new Array(22).fill(1), id), 32).length, 8);
  assert.throws(() => hashLeaf(occupied([], id), 9), smtCode("BAD_LEAF_BOUND"));
  assert.equal(hashLeaf(occupied([], id), 10).length, 8, "tag + 9 limbs fits B = 10");
  assert.throws(() => hashLeaf(occupied([1], id), 10), smtCode("LEAF_ENCODING"));
  assert.throws(() => foldEncoding([]), smtCode("LEAF_ENCODING"));
});

test("the length lane separates trailing zeros; distinct leaves hash apart", () => {
  const id = new Uint8Array(32);
  const a = hashLeaf(occupied([7], id));
  const b = hashLeaf(occupied([7, 0], id));
  assert.notDeepEqual(a, b);
  assert.notDeepEqual(hashLeaf(EMPTY), hashLeaf(TOMBSTONE));
  assert.notDeepEqual(hashLeaf(EMPTY, 31), hashLeaf(EMPTY, 39), "the fold width is part of the pre-image");
});

test("bad leaves give typed errors; occupied() copies its inputs", () => {
  assert.throws(
    () => occupied([P], new Uint8Array(32)),
    (e: unknown) => e instanceof FieldError && e.code === "NON_CANONICAL",
  );
  assert.throws(() => occupied([1], new Uint8Array(31)), smtCode("BAD_LEAF"));
  assert.throws(() => encodeLeaf({ tag: 3 } as unknown as Leaf), smtCode("BAD_LEAF"));
  assert.throws(() => encodeLeaf(null as unknown as Leaf), smtCode("BAD_LEAF"));
  assert.throws(() => encodeLeaf({ tag: LeafTag.Occupied, payload: [-1], identity: new Uint8Array(32) }), FieldError);
  const id = new Uint8Array(32).fill(3);
  const payload = [1, 2];
  const leaf = occupied(payload, id);
  id[0] = 4;
  payload[0] = 9;
  assert.equal(leaf.identity[0], 3);
  assert.equal(leaf.payload[0], 1);
  assert.ok(leafEquals(leaf, occupied([1, 2], new Uint8Array(32).fill(3))));
  assert.ok(!leafEquals(leaf, occupied([1, 2], new Uint8Array(32).fill(4))));
  assert.ok(!leafEquals(leaf, EMPTY));
  assert.ok(leafEquals({ tag: LeafTag.Empty }, EMPTY));
});

test("limbs (word-wise) equals limbsReference (bit by bit) on edge and random identities", () => {
  const cases: Uint8Array[] = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(9)];
  for (let b = 0; b < 256; b += 7) {
    const x = new Uint8Array(32);
    x[b >> 3] = 1 << (b & 7);
    cases.push(x);
  }
  let seed = 12345;
  for (let i = 0; i < 200; i++)
    cases.push(Uint8Array.from({ length: 32 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
  for (const id of cases) assert.deepEqual(limbs(id), limbsReference(id), Buffer.from(id).toString("hex"));
});
