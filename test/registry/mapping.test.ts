import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { P } from "../../src/field/koalabear.js";
import { hashLeaf, limbs, limbsInto, encodeLeaf } from "../../src/smt/leaf.js";
import { RegistryError } from "../../src/registry/errors.js";
import {
  ValueCode,
  ValueForm,
  recordLeaf,
  textCode,
  valuePayload,
  nameIdentity,
  maxValueFields,
} from "../../src/registry/mapping.js";
import { LeafHasher } from "../../src/registry/hashing/leaf-hasher.js";
import { PackedBuilder } from "../../src/registry/hashing/packed.js";
import { typescriptPermutation, wasmPermutation } from "../../src/registry/hashing/permutation.js";
import { valueParts } from "../../src/registry/store/record-codec.js";
import type { RecordValue } from "../../src/registry/mapping.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const bytes = (s: string) => Buffer.from(s, "utf8");

test("text code: host of URL-like text, www. and case ignored, anything else is 4", () => {
  const cases: [string, ValueCode][] = [
    ["https://github.com/expressjs/express", ValueCode.GitHub],
    ["git+https://github.com/a/b.git", ValueCode.GitHub],
    ["https://www.GitHub.com/a", ValueCode.GitHub],
    ["git@github.com:a/b.git", ValueCode.GitHub],
    ["ssh://git@gitlab.com/a/b", ValueCode.GitLab],
    ["https://user:pw@bitbucket.org:443/x", ValueCode.Bitbucket],
    ["https://github.company.com/a", ValueCode.Text],
    ["https://gitee.com/a/b", ValueCode.Text],
    ["github.com/a/b", ValueCode.Text],
    ["", ValueCode.Text],
    ["not a url", ValueCode.Text],
    ["https://bitbuc\u212Aet.org/a", ValueCode.Text],
  ];
  for (const [t, c] of cases) assert.equal(textCode(bytes(t)), c, t);
});

test("payload layout: null → [0]; text → [code, limbs(keccak(text))]; fields → [5, …fields]", () => {
  assert.deepEqual(valuePayload(null, 31), [0]);
  const url = "https://github.com/lamansky/2";
  assert.deepEqual(valuePayload(url, 31), [1, ...limbs(keccak_256(bytes(url)))]);
  assert.deepEqual(valuePayload({ fields: [7, P - 1] }, 31), [5, 7, P - 1]);
  const leaf = recordLeaf("2", url, 31);
  assert.deepEqual(Array.from(leaf.identity), Array.from(keccak_256(bytes("2"))));
  assert.deepEqual(Array.from(nameIdentity("2")), Array.from(leaf.identity));
  assert.equal(encodeLeaf(leaf).length, 20);
  assert.ok(encodeLeaf(recordLeaf("2", { fields: new Array(maxValueFields(31)).fill(1) }, 31)).length <= 31);
});

test("value over the leaf bound, bad values and bad names get typed errors", () => {
  assert.equal(maxValueFields(31), 20);
  assert.throws(() => valuePayload({ fields: new Array(21).fill(0) }, 31), code("VALUE_TOO_LARGE"));
  assert.throws(() => valuePayload({ fields: new Array(10).fill(0) }, 20), code("VALUE_TOO_LARGE"));
  assert.throws(() => valuePayload({ fields: [P] }, 31), code("BAD_VALUE"));
  assert.throws(() => valuePayload({ fields: [1.5] }, 31), code("BAD_VALUE"));
  assert.throws(() => valuePayload("a\uD800", 31), code("BAD_VALUE"));
  assert.throws(() => valuePayload("x".repeat(65536), 31), code("BAD_VALUE"));
  assert.throws(() => recordLeaf("", null, 31), code("BAD_NAME"));
  assert.throws(() => recordLeaf("\uDC00", null, 31), code("BAD_NAME"));
  assert.throws(() => recordLeaf("é".repeat(513), null, 31), code("BAD_NAME"));
});

test("limbsInto equals limbs for random identities", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (id) => {
      const out = new Uint32Array(9);
      limbsInto(id, 0, out, 0);
      assert.deepEqual(Array.from(out), limbs(id));
    }),
    { numRuns: 200 },
  );
});

const valueArb: fc.Arbitrary<RecordValue> = fc.oneof(
  fc.constant(null),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.constantFrom("https://github.com/a/b", "git@gitlab.com:x/y", "https://bitbucket.org/q"),
  fc.array(fc.integer({ min: 0, max: P - 1 }), { maxLength: 20 }).map((fields) => ({ fields })),
);

for (const [label, perm] of [
  ["TypeScript", typescriptPermutation()],
  ["WASM kernel", wasmPermutation()],
] as const) {
  test(`bulk leaf hashing (${label} permutation) equals hashLeaf(recordLeaf(…)) record by record`, () => {
    const hasher = new LeafHasher(31, perm);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }), valueArb), { maxLength: 12 }),
        (records) => {
          const b = new PackedBuilder();
          records.forEach(([name, value], i) => {
            const n = bytes(name);
            const { form, bytes: v } = valueParts(value);
            b.add(i + 1, n, 0, n.length, form as ValueForm, v, 0, v.length);
          });
          const digests = hasher.hash(b.take());
          records.forEach(([name, value], i) => {
            assert.deepEqual(
              Array.from(digests.subarray(8 * i, 8 * i + 8)),
              Array.from(hashLeaf(recordLeaf(name, value, 31), 31)),
            );
          });
        },
      ),
      { numRuns: label === "TypeScript" ? 15 : 40 },
    );
  });
}

test("bulk leaf hashing honours a larger leaf bound (fold width 48 for B = 40)", () => {
  const hasher = new LeafHasher(40, wasmPermutation());
  const b = new PackedBuilder();
  const { bytes: v } = valueParts({ fields: new Array(29).fill(3) });
  b.add(1, bytes("n"), 0, 1, ValueForm.Fields, v, 0, v.length);
  const d = hasher.hash(b.take());
  assert.deepEqual(Array.from(d), Array.from(hashLeaf(recordLeaf("n", { fields: new Array(29).fill(3) }, 40), 40)));
});
