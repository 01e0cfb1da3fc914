/**
 * `writeFoldedLeaf` (the allocation-free fold(encode(leaf)) written into a vector) against its
 * reference `foldLeaf`: the same lanes for random and edge leaves (Empty, Tombstone, Occupied of
 * every payload length up to the bound, at an offset in a larger vector whose other lanes stay
 * untouched), and the same error codes in the same order for malformed leaves and bounds;
 * `limbsInto` against `limbsReference`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import {
  EMPTY,
  IDENTITY_LIMBS,
  TOMBSTONE,
  foldLeaf,
  foldWidth,
  limbsInto,
  limbsReference,
  occupied,
  writeFoldedLeaf,
  type Leaf,
} from "../../src/smt/leaf.js";
import { rng } from "../pcs/support.js";

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return "OK";
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
};

function viaWriter(leaf: Leaf, B: number, at: number, fill: number): Uint32Array {
  const out = new Uint32Array(at + foldWidth(B) + 5).fill(fill);
  out.fill(0, at, at + foldWidth(B));
  writeFoldedLeaf(out, at, leaf, B);
  return out;
}

test("writeFoldedLeaf writes foldLeaf's lanes at its offset and nothing else, for random and edge leaves", () => {
  const next = rng(0x1eaf);
  const id = (b: number) => new Uint8Array(32).fill(b);
  for (const B of [10, 11, 31, 40, 63]) {
    const leaves: Leaf[] = [
      EMPTY,
      TOMBSTONE,
      occupied([], id(0)),
      occupied([], id(0xff)),
      occupied(
        Array.from({ length: B - 10 }, (_, i) => (i === 0 ? P - 1 : i)),
        id(0x80),
      ),
    ];
    for (let k = 0; k < 40; k++)
      leaves.push(
        occupied(
          Array.from({ length: next() % (B - 9) }, () => next() % P),
          Uint8Array.from({ length: 32 }, () => next() & 0xff),
        ),
      );
    for (const leaf of leaves) {
      const at = next() % 7;
      const out = viaWriter(leaf, B, at, 0xabcd);
      assert.deepEqual(out.subarray(at, at + foldWidth(B)), foldLeaf(leaf, B), `B = ${B}, tag ${leaf.tag}`);
      assert.ok(
        out.subarray(0, at).every((v) => v === 0xabcd) && out.subarray(at + foldWidth(B)).every((v) => v === 0xabcd),
        "lanes outside the fold are untouched",
      );
    }
  }
});

test("writeFoldedLeaf refuses what foldLeaf refuses, with the same code first", () => {
  const out = new Uint32Array(80);
  const good = new Uint8Array(32);
  const cases: [string, unknown, number][] = [
    ["null leaf", null, 31],
    ["unknown tag", { tag: 7 }, 31],
    ["payload not an array", { tag: 1, payload: "x", identity: good }, 31],
    ["non-canonical payload", { tag: 1, payload: [P], identity: good }, 31],
    ["negative payload", { tag: 1, payload: [-1], identity: good }, 31],
    ["fractional payload", { tag: 1, payload: [1.5], identity: good }, 31],
    ["short identity", { tag: 1, payload: [], identity: new Uint8Array(31) }, 31],
    ["identity not bytes", { tag: 1, payload: [], identity: [1, 2] }, 31],
    ["encoding longer than the bound", { tag: 1, payload: new Array(22).fill(1), identity: good }, 31],
    [
      "non-canonical payload in a too-long leaf (the element is checked first)",
      { tag: 1, payload: [...new Array(30).fill(1), P], identity: good },
      31,
    ],
    ["bound too small", EMPTY, 9],
    ["bound not an integer", TOMBSTONE, 31.5],
    ["bound too small for an occupied leaf", { tag: 1, payload: [], identity: good }, 9],
  ];
  for (const [what, leaf, B] of cases) {
    const want = codeOf(() => foldLeaf(leaf as Leaf, B));
    assert.notEqual(want, "OK", `${what}: the reference refuses it`);
    assert.equal(
      codeOf(() => writeFoldedLeaf(out, 0, leaf as Leaf, B)),
      want,
      what,
    );
  }
});

test("limbsInto equals limbsReference at any offsets", () => {
  const next = rng(0x11b5);
  for (let k = 0; k < 200; k++) {
    const bytes = Uint8Array.from({ length: 40 }, () => next() & 0xff);
    const at = next() % 9,
      outAt = next() % 4;
    const out = new Uint32Array(IDENTITY_LIMBS + 4);
    limbsInto(bytes, at, out, outAt);
    assert.deepEqual(Array.from(out.subarray(outAt, outAt + IDENTITY_LIMBS)), limbsReference(bytes.slice(at, at + 32)));
  }
});
