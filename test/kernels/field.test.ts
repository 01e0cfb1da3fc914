import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, vecMul, innerProduct, ExtVector, extMul } from "../../src/field/index.js";
import { Kernels, KernelError, extVecMulRef, toMontgomery } from "../../src/kernels/index.js";
import { EDGE_VALUES, basePair, extVector, randomVector } from "./support/arbitraries.js";

const k = Kernels.create({ initialPages: 64 });

test("Montgomery conversion round-trips and matches x·2^32 mod p", () => {
  fc.assert(
    fc.property(basePair(0, 37), ([a]) => {
      const r = k.heap.allocFrom(a);
      try {
        k.instance.toMontgomery(r, r);
        assert.deepEqual(Array.from(r.view()), Array.from(a, toMontgomery));
        k.instance.fromMontgomery(r, r);
        assert.deepEqual(r.view().slice(), a);
      } finally {
        k.heap.release(r);
      }
    }),
  );
});

test("toMontgomery reduces words ≥ p before converting", () => {
  const words = Uint32Array.from([P, P + 1, 0xffffffff, 2 ** 31, 0x80000000 + 5]);
  const r = k.heap.allocFrom(words);
  k.instance.toMontgomery(r, r);
  k.instance.fromMontgomery(r, r);
  assert.deepEqual(
    Array.from(r.view()),
    Array.from(words, (w) => w % P),
  );
  k.heap.release(r);
});

test("vecMul equals the TypeScript reference (random, edge values, tails)", () => {
  fc.assert(
    fc.property(basePair(0, 41), ([a, b]) => {
      assert.deepEqual(k.vecMul(a, b), vecMul(a, b));
    }),
    { numRuns: 200 },
  );
});

test("innerProduct equals the TypeScript reference (random, edge values, tails)", () => {
  fc.assert(
    fc.property(basePair(0, 53), ([a, b]) => {
      assert.equal(k.innerProduct(a, b), innerProduct(a, b));
    }),
    { numRuns: 200 },
  );
});

test("innerProduct of many p − 1 values does not overflow its accumulators", () => {
  for (const n of [12, 13, 4096, 4099]) {
    const a = new Uint32Array(n).fill(P - 1);
    assert.equal(k.innerProduct(a, a), innerProduct(a, a), `n = ${n}`);
  }
});

test("vecMul and innerProduct agree with the reference on ≥ 1k random elements", () => {
  for (const n of [1024, 1027, 4093]) {
    const a = randomVector(n),
      b = randomVector(n);
    assert.deepEqual(k.vecMul(a, b), vecMul(a, b));
    assert.equal(k.innerProduct(a, b), innerProduct(a, b));
  }
});

test("every pair of edge values multiplies correctly in all four lanes and the tail", () => {
  const a: number[] = [],
    b: number[] = [];
  for (const x of EDGE_VALUES)
    for (const y of EDGE_VALUES) {
      a.push(x);
      b.push(y);
    }
  const ua = Uint32Array.from(a),
    ub = Uint32Array.from(b);
  assert.deepEqual(k.vecMul(ua, ub), vecMul(ua, ub));
  assert.equal(k.innerProduct(ua, ub), innerProduct(ua, ub));
});

test("extVecMul equals the TypeScript reference (random, edge values, tails)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 23 }).chain((n) => fc.tuple(extVector(n), extVector(n))),
      ([a, b]) => {
        assert.deepEqual(k.extVecMul(a, b).data, extVecMulRef(a, b).data);
      },
    ),
    { numRuns: 150 },
  );
  const n = 1031;
  const a = new ExtVector(n, randomVector(4 * n)),
    b = new ExtVector(n, randomVector(4 * n));
  assert.deepEqual(k.extVecMul(a, b).data, extVecMulRef(a, b).data);
});

test("extVecMul with all coefficients p − 1 (largest lazy sums)", () => {
  const n = 9;
  const a = new ExtVector(n, new Uint32Array(4 * n).fill(P - 1));
  assert.deepEqual(
    k.extVecMul(a, a).toElements(),
    Array.from({ length: n }, () => extMul(a.get(0), a.get(0))),
  );
});

test("region kernels compute Montgomery products: Montgomery operands give a Montgomery result", () => {
  fc.assert(
    fc.property(basePair(1, 19), ([a, b]) => {
      const ra = k.heap.allocFrom(a),
        rb = k.heap.allocFrom(b),
        rd = k.heap.alloc(a.length);
      try {
        k.instance.toMontgomery(ra, ra);
        k.instance.toMontgomery(rb, rb);
        k.instance.baseMul(rd, ra, rb);
        const ip = k.instance.innerProduct(ra, rb);
        k.instance.fromMontgomery(rd, rd);
        assert.deepEqual(rd.view().slice(), vecMul(a, b));
        assert.equal(ip, toMontgomery(innerProduct(a, b)));
      } finally {
        k.heap.release(ra);
        k.heap.release(rb);
        k.heap.release(rd);
      }
    }),
  );
});

test("firstNonCanonical finds the first word ≥ p in the vector part and in the tail", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.integer({ min: P, max: 0xffffffff }), (n, at, bad) => {
      const a = randomVector(n);
      const i = at % n;
      a[i] = bad;
      if (i + 1 < n) a[n - 1] = bad;
      const r = k.heap.allocFrom(a);
      try {
        assert.equal(k.instance.firstNonCanonical(r), i);
      } finally {
        k.heap.release(r);
      }
    }),
  );
  const r = k.heap.allocFrom(randomVector(17));
  assert.equal(k.instance.firstNonCanonical(r), -1);
  k.heap.release(r);
});

test("array API rejects non-canonical inputs and length mismatches with typed errors", () => {
  const a = Uint32Array.from([1, 2, P, 4, 5]);
  const b = Uint32Array.from([1, 2, 3, 4, 5]);
  assert.throws(
    () => k.vecMul(a, b),
    (e: unknown) => e instanceof KernelError && e.code === "NON_CANONICAL" && /a\[2\] = 2130706433/.test(e.message),
  );
  assert.throws(
    () => k.innerProduct(b, a),
    (e: unknown) => e instanceof KernelError && e.code === "NON_CANONICAL" && /b\[2\]/.test(e.message),
  );
  assert.throws(
    () => k.vecMul(b, b.subarray(1)),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
  assert.throws(
    () => k.extVecMul(new ExtVector(2), new ExtVector(3)),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
  // Errors leave the allocator balanced.
  const before = k.heap.allocatedBytes;
  assert.throws(() => k.vecMul(a, b));
  assert.equal(k.heap.allocatedBytes, before);
});

test("region API rejects regions that are too small", () => {
  const small = k.heap.alloc(3);
  assert.throws(
    () => k.instance.baseMul(small, small, small, 4),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
  assert.throws(
    () => k.instance.extMul(small, small, small, 1),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
  k.heap.release(small);
});
