import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, ExtVector } from "../../src/field/index.js";
import { Kernels, KernelError, foldBaseRef, foldBaseExtRef, foldExtRef } from "../../src/kernels/index.js";
import { element, extElement, extVector, randomVector } from "./support/arbitraries.js";

const k = Kernels.create({ initialPages: 64 });

/** Even table lengths 2..58 (h not a multiple of 4 included). */
const evenLength = fc.integer({ min: 1, max: 29 }).map((h) => 2 * h);
const baseTable = evenLength
  .chain((len) => fc.array(element, { minLength: len, maxLength: len }))
  .map((a) => Uint32Array.from(a));
const extTable = evenLength.chain((len) => extVector(len));

test("fold with a base challenge equals the reference", () => {
  fc.assert(
    fc.property(baseTable, element, (t, r) => {
      assert.deepEqual(k.fold(t, r), foldBaseRef(t, r));
    }),
    { numRuns: 200 },
  );
});

test("fold of a base table with an extension challenge equals the reference", () => {
  fc.assert(
    fc.property(baseTable, extElement, (t, r) => {
      assert.deepEqual(k.foldExtChallenge(t, r).data, foldBaseExtRef(t, r).data);
    }),
    { numRuns: 200 },
  );
});

test("fold of an extension table with an extension challenge equals the reference", () => {
  fc.assert(
    fc.property(extTable, extElement, (t, r) => {
      assert.deepEqual(k.foldExt(t, r).data, foldExtRef(t, r).data);
    }),
    { numRuns: 200 },
  );
});

test("folds agree with the reference on 2^12 + 6 random elements", () => {
  const len = 4096 + 6;
  const t = randomVector(len);
  const r = Math.floor(Math.random() * P);
  const re: [number, number, number, number] = [r, 7, P - 1, 2 ** 30];
  assert.deepEqual(k.fold(t, r), foldBaseRef(t, r));
  assert.deepEqual(k.foldExtChallenge(t, re).data, foldBaseExtRef(t, re).data);
  const te = new ExtVector(len, randomVector(4 * len));
  assert.deepEqual(k.foldExt(te, re).data, foldExtRef(te, re).data);
});

test("region folds into a separate destination equal the in-place results", () => {
  fc.assert(
    fc.property(extTable, extElement, (t, r) => {
      const len = t.length,
        h = len / 2;
      const src = k.heap.allocFrom(t.data),
        dst = k.heap.alloc(4 * h);
      const base = k.heap.allocFrom(t.plane(0)),
        baseDst = k.heap.alloc(4 * h),
        baseDst1 = k.heap.alloc(h);
      try {
        k.instance.foldExt(dst, src, len, r);
        assert.deepEqual(dst.view().slice(), foldExtRef(t, r).data);
        k.instance.foldBaseExt(baseDst, base, len, r);
        assert.deepEqual(baseDst.view().slice(), foldBaseExtRef(t.plane(0), r).data);
        k.instance.foldBase(baseDst1, base, len, r[1]);
        assert.deepEqual(baseDst1.view().slice(), foldBaseRef(t.plane(0), r[1]));
        // Source untouched when folding out of place.
        assert.deepEqual(src.view().slice(), t.data);
      } finally {
        for (const x of [src, dst, base, baseDst, baseDst1]) k.heap.release(x);
      }
    }),
    { numRuns: 60 },
  );
});

test("base table folded in place into an extension output (region of 2·len words)", () => {
  fc.assert(
    fc.property(baseTable, extElement, (t, r) => {
      const region = k.heap.alloc(2 * t.length);
      try {
        region.view().set(t);
        k.instance.foldBaseExt(region, region, t.length, r);
        assert.deepEqual(region.view().slice(), foldBaseExtRef(t, r).data);
      } finally {
        k.heap.release(region);
      }
    }),
    { numRuns: 60 },
  );
});

test("folds preserve Montgomery form: fold(mont(t)) = mont(fold(t))", () => {
  fc.assert(
    fc.property(extTable, extElement, (t, r) => {
      const len = t.length,
        h = len / 2;
      const m = k.heap.allocFrom(t.data);
      const b = k.heap.allocFrom(t.plane(0));
      try {
        k.instance.toMontgomery(m, m);
        k.instance.foldExt(m, m, len, r);
        k.instance.fromMontgomery(m, m, 4 * h);
        assert.deepEqual(m.view().slice(0, 4 * h), foldExtRef(t, r).data);
        k.instance.toMontgomery(b, b);
        k.instance.foldBase(b, b, len, r[0]);
        k.instance.fromMontgomery(b, b, h);
        assert.deepEqual(b.view().slice(0, h), foldBaseRef(t.plane(0), r[0]));
      } finally {
        k.heap.release(m);
        k.heap.release(b);
      }
    }),
    { numRuns: 60 },
  );
});

test("repeated folding down to one element equals the multilinear evaluation by reference folds", () => {
  const len = 1 << 11;
  const t = new ExtVector(len, randomVector(4 * len));
  const region = k.heap.allocFrom(t.data);
  let ref = t;
  for (let n = len; n > 1; n /= 2) {
    const r: [number, number, number, number] = [Math.floor(Math.random() * P), 1, 0, P - 1];
    k.instance.foldExt(region, region, n, r);
    ref = foldExtRef(ref, r);
  }
  assert.deepEqual(region.view().slice(0, 4), ref.data);
  k.heap.release(region);
});

test("folds reject odd or empty tables and non-canonical challenges", () => {
  const isCode = (code: string) => (e: unknown) => e instanceof Error && (e as KernelError).code === code;
  assert.throws(() => k.fold(Uint32Array.from([1, 2, 3]), 5), isCode("BAD_LENGTH"));
  assert.throws(() => k.fold(new Uint32Array(0), 5), isCode("BAD_LENGTH"));
  assert.throws(() => k.foldExtChallenge(Uint32Array.from([1, 2, 3]), [1, 2, 3, 4]), isCode("BAD_LENGTH"));
  assert.throws(() => k.foldExt(new ExtVector(3), [1, 2, 3, 4]), isCode("BAD_LENGTH"));
  assert.throws(() => k.fold(Uint32Array.from([1, 2]), P), isCode("NON_CANONICAL"));
  assert.throws(() => k.foldExt(new ExtVector(2), [1, 2, P + 7, 4]), isCode("NON_CANONICAL"));
  assert.throws(() => k.fold(Uint32Array.from([1, P]), 3), isCode("NON_CANONICAL"));
});
