import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  P,
  add,
  sub,
  neg,
  mul,
  square,
  cube,
  pow,
  inverse,
  batchInverse,
  fromU32,
  fromU64,
  element,
  random,
  encodeElements,
  decodeElements,
  FieldError,
  vecMul,
  innerProduct,
} from "../../src/field/index.js";

const BP = BigInt(P);
const edge = [0, 1, 2, P - 1, P - 2, 2 ** 30, 2 ** 30 - 1, 2 ** 31 - 2 ** 24, P >>> 1, 16777216, 123456789];
const felt = fc.oneof(fc.integer({ min: 0, max: P - 1 }), fc.constantFrom(...edge));

test("mul agrees with BigInt on random and edge values", () => {
  for (const a of edge) for (const b of edge) assert.equal(mul(a, b), Number((BigInt(a) * BigInt(b)) % BP));
  fc.assert(
    fc.property(felt, felt, (a, b) => mul(a, b) === Number((BigInt(a) * BigInt(b)) % BP)),
    { numRuns: 20000 },
  );
});

test("add, sub, neg agree with BigInt", () => {
  fc.assert(
    fc.property(felt, felt, (a, b) => {
      assert.equal(add(a, b), Number((BigInt(a) + BigInt(b)) % BP));
      assert.equal(sub(a, b), Number((((BigInt(a) - BigInt(b)) % BP) + BP) % BP));
      assert.equal(neg(a), Number((BP - BigInt(a)) % BP));
    }),
  );
});

test("field laws: commutativity, associativity, distributivity, identities", () => {
  fc.assert(
    fc.property(felt, felt, felt, (a, b, c) => {
      assert.equal(mul(a, b), mul(b, a));
      assert.equal(mul(mul(a, b), c), mul(a, mul(b, c)));
      assert.equal(mul(a, add(b, c)), add(mul(a, b), mul(a, c)));
      assert.equal(add(a, neg(a)), 0);
      assert.equal(mul(a, 1), a);
      assert.equal(square(a), mul(a, a));
      assert.equal(cube(a), mul(a, mul(a, a)));
    }),
  );
});

test("inverse and batch inverse", () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: P - 1 }), (a) => mul(a, inverse(a)) === 1));
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: P - 1 }), { maxLength: 40 }), (xs) => {
      const inv = batchInverse(xs);
      xs.forEach((x, i) => assert.equal(mul(x, inv[i]!), 1));
    }),
  );
  assert.throws(
    () => inverse(0),
    (e: unknown) => e instanceof FieldError && e.code === "DIVISION_BY_ZERO",
  );
  assert.throws(
    () => batchInverse([3, 0, 5]),
    (e: unknown) => e instanceof FieldError && e.code === "DIVISION_BY_ZERO" && e.details.index === 1,
  );
});

test("pow: Fermat, cube-root exponent of the S-box, bigint exponents", () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: P - 1 }), (a) => pow(a, P - 1) === 1));
  fc.assert(fc.property(felt, (a) => pow(cube(a), 1420470955) === a));
  assert.equal(pow(3, 10n), 59049);
});

test("fromU32 / fromU64 reduce like Plonky3 from_u32 / from_u64", () => {
  assert.equal(fromU32(P), 0);
  assert.equal(fromU32(0xffffffff), 0xffffffff - 2 * P);
  fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (x) => fromU32(x) === Number(BigInt(x) % BP)));
  assert.equal(fromU64((1n << 64n) - 1n), Number(((1n << 64n) - 1n) % BP));
  assert.throws(() => fromU32(-1), FieldError);
  assert.throws(() => fromU32(2 ** 32), FieldError);
  assert.throws(() => fromU64(1n << 64n), FieldError);
});

test("element rejects non-integers, negatives and values >= p, naming value and rule", () => {
  assert.equal(element(P - 1), P - 1);
  for (const [v, code] of [
    [1.5, "NOT_AN_INTEGER"],
    ["7", "NOT_AN_INTEGER"],
    [-1, "NEGATIVE"],
    [P, "NON_CANONICAL"],
    [2 ** 32, "NON_CANONICAL"],
  ] as const) {
    assert.throws(
      () => element(v, "x"),
      (e: unknown) =>
        e instanceof FieldError && e.code === code && e.message.includes("x") && e.message.includes(String(v)),
    );
  }
});

test("encode/decode little-endian words, rejecting values >= p with the byte offset", () => {
  fc.assert(
    fc.property(fc.array(felt, { maxLength: 50 }), (xs) => {
      assert.deepEqual(Array.from(decodeElements(encodeElements(xs))), xs);
    }),
  );
  assert.deepEqual(Array.from(encodeElements([1, 256])), [1, 0, 0, 0, 0, 1, 0, 0]);
  const bad = encodeElements([5, 6]);
  new DataView(bad.buffer).setUint32(4, P, true);
  assert.throws(
    () => decodeElements(bad),
    (e: unknown) => e instanceof FieldError && e.code === "NON_CANONICAL" && e.details.offset === 4,
  );
  assert.throws(
    () => decodeElements(new Uint8Array(3)),
    (e: unknown) => e instanceof FieldError && e.code === "BAD_LENGTH",
  );
  assert.throws(() => encodeElements([P]), FieldError);
});

test("random values are canonical and not constant", () => {
  const xs = Array.from({ length: 64 }, () => random());
  assert.ok(xs.every((x) => Number.isInteger(x) && x >= 0 && x < P));
  assert.ok(new Set(xs).size > 60);
});

test("vector multiply and inner product match scalar loops", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(felt, felt), { maxLength: 64 }), (pairs) => {
      const a = Uint32Array.from(pairs.map((p) => p[0]));
      const b = Uint32Array.from(pairs.map((p) => p[1]));
      const prod = vecMul(a, b);
      let acc = 0;
      pairs.forEach(([x, y], i) => {
        assert.equal(prod[i], mul(x, y));
        acc = add(acc, mul(x, y));
      });
      assert.equal(innerProduct(a, b), acc);
    }),
  );
  assert.throws(() => vecMul(new Uint32Array(2), new Uint32Array(3)), FieldError);
});
