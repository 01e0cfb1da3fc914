import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  P,
  type Ext,
  EXT_ONE,
  EXT_ZERO,
  embed,
  ext,
  extAdd,
  extSub,
  extNeg,
  extMul,
  extScale,
  extInverse,
  extPow,
  extEq,
  ExtVector,
  FieldError,
  add,
  mul,
} from "../../src/field/index.js";

const BP = BigInt(P);
const felt = fc.oneof(fc.integer({ min: 0, max: P - 1 }), fc.constantFrom(0, 1, P - 1, 2 ** 30));
const extArb = fc.tuple(felt, felt, felt, felt) as fc.Arbitrary<Ext>;

/** Schoolbook product with BigInt and X^4 = 3. */
function refMul(a: Ext, b: Ext): Ext {
  const r = [0n, 0n, 0n, 0n, 0n, 0n, 0n];
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) r[i + j]! += BigInt(a[i]!) * BigInt(b[j]!);
  const out = [0, 1, 2, 3].map((k) => Number((r[k]! + (k + 4 < 7 ? 3n * r[k + 4]! : 0n)) % BP));
  return out as unknown as Ext;
}

test("extension multiplication matches the BigInt schoolbook reference", () => {
  fc.assert(
    fc.property(extArb, extArb, (a, b) => assert.deepEqual(extMul(a, b), refMul(a, b))),
    { numRuns: 3000 },
  );
  assert.deepEqual(extMul([0, 1, 0, 0], [0, 0, 0, 1]), [3, 0, 0, 0]); // X·X³ = X⁴ = 3
});

test("extension field laws", () => {
  fc.assert(
    fc.property(extArb, extArb, extArb, (a, b, c) => {
      assert.deepEqual(extMul(a, b), extMul(b, a));
      assert.deepEqual(extMul(extMul(a, b), c), extMul(a, extMul(b, c)));
      assert.deepEqual(extMul(a, extAdd(b, c)), extAdd(extMul(a, b), extMul(a, c)));
      assert.deepEqual(extAdd(a, extNeg(a)), EXT_ZERO);
      assert.deepEqual(extSub(extAdd(a, b), b), a);
      assert.deepEqual(extMul(a, EXT_ONE), a);
    }),
  );
});

test("inverse, scalar multiplication and embedding", () => {
  fc.assert(
    fc.property(extArb, felt, (a, s) => {
      if (!extEq(a, EXT_ZERO)) assert.deepEqual(extMul(a, extInverse(a)), EXT_ONE);
      assert.deepEqual(extScale(a, s), extMul(a, embed(s)));
    }),
  );
  fc.assert(
    fc.property(felt, felt, (x, y) => {
      assert.deepEqual(extAdd(embed(x), embed(y)), embed(add(x, y)));
      assert.deepEqual(extMul(embed(x), embed(y)), embed(mul(x, y)));
    }),
  );
  assert.throws(
    () => extInverse(EXT_ZERO),
    (e: unknown) => e instanceof FieldError && e.code === "DIVISION_BY_ZERO",
  );
  // X has order dividing 4(p-1): X^4 = 3 and 3^((p-1)) = 1.
  assert.deepEqual(extPow([0, 1, 0, 0], 4), [3, 0, 0, 0]);
});

test("ext() validates its coefficients", () => {
  assert.deepEqual(ext([1, 2, 3, 4]), [1, 2, 3, 4]);
  assert.throws(() => ext([1, 2, 3]), FieldError);
  assert.throws(
    () => ext([1, 2, P, 4], "r"),
    (e: unknown) => e instanceof FieldError && e.code === "NON_CANONICAL" && e.message.includes("r.c2"),
  );
});

test("ExtVector plane layout", () => {
  const v = ExtVector.fromElements([
    [1, 2, 3, 4],
    [5, 6, 7, 8],
  ]);
  assert.deepEqual(Array.from(v.data), [1, 5, 2, 6, 3, 7, 4, 8]);
  assert.deepEqual(v.get(1), [5, 6, 7, 8]);
  assert.deepEqual(Array.from(v.plane(2)), [3, 7]);
  assert.deepEqual(ExtVector.fromBase([9, 10]).get(1), [10, 0, 0, 0]);
  assert.throws(() => new ExtVector(2, new Uint32Array(7)), FieldError);
});
