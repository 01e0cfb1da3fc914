import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { SumcheckError } from "../../src/sumcheck/errors.js";
import { mleEvalTrimmed, mleEvalUsed } from "../../src/gkr/mle-split.js";

const fe = fc.oneof(fc.constantFrom(0, 1, 2, P - 1, 0xffff, 0x10000), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.oneof(
  fc.tuple(fe, fe, fe, fe).map((t) => t as Ext),
  fc.constantFrom<Ext>([0, 0, 0, 0], [1, 0, 0, 0], [P - 1, P - 1, P - 1, P - 1]),
);

test("mleEvalUsed equals mleEvalBase of the zero-padded table (n = 0..10, every used count class), random and edge values and points", () => {
  const arb = fc
    .integer({ min: 0, max: 10 })
    .chain((n) =>
      fc.tuple(
        fc.array(arbExt, { minLength: n, maxLength: n }),
        fc.integer({ min: 0, max: 2 ** n }),
        fc.array(fe, { minLength: 2 ** n, maxLength: 2 ** n }),
      ),
    );
  fc.assert(
    fc.property(arb, ([point, used, raw]) => {
      const values = Uint32Array.from(raw, (v, i) => (i < used ? v : 0));
      assert.deepEqual(mleEvalUsed(values, used, point), [...mleEvalBase(values, point)]);
    }),
    { numRuns: 400 },
  );
});

test("mleEvalUsed on all-maximal values over 16 lanes stays exact; it reads no value at or beyond used", () => {
  for (const n of [4, 9, 12]) {
    const point: Ext[] = Array.from({ length: n }, (_, j) => [P - 1 - j, P - 1, P - 2, P - 1] as Ext);
    const values = new Uint32Array(2 ** n).fill(P - 1);
    assert.deepEqual(mleEvalUsed(values, 2 ** n, point), [...mleEvalBase(values, point)], `n ${n}`);
    const used = 2 ** n - 5;
    const poisoned = values.slice();
    poisoned.fill(0, used);
    const trap = new Proxy(poisoned, {
      get: (t, k) =>
        typeof k === "string" && /^\d+$/.test(k) && Number(k) >= used
          ? assert.fail(`read index ${k}`)
          : Reflect.get(t, k),
    });
    assert.deepEqual(mleEvalUsed(trap as unknown as Uint32Array, used, point), [...mleEvalBase(poisoned, point)]);
  }
});

test("mleEvalUsed refuses a table of the wrong length, a bad used count and over 30 variables", () => {
  const pt = (n: number): Ext[] => Array.from({ length: n }, () => [1, 0, 0, 0] as Ext);
  assert.throws(
    () => mleEvalUsed(new Uint32Array(8), 8, pt(2)),
    (e) => e instanceof SumcheckError && e.code === "BAD_POINT",
  );
  assert.throws(
    () => mleEvalUsed(new Uint32Array(4), 5, pt(2)),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => mleEvalUsed(new Uint32Array(4), -1, pt(2)),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => mleEvalUsed([], 0, pt(31)),
    (e) => e instanceof SumcheckError && e.code === "BAD_POINT",
  );
});

test("mleEvalTrimmed equals mleEvalBase: random tables with zero tails, all zeros, a single non-zero at either end", () => {
  const arb = fc
    .integer({ min: 0, max: 10 })
    .chain((n) =>
      fc.tuple(
        fc.array(arbExt, { minLength: n, maxLength: n }),
        fc.integer({ min: 0, max: 2 ** n }),
        fc.array(fe, { minLength: 2 ** n, maxLength: 2 ** n }),
      ),
    );
  fc.assert(
    fc.property(arb, ([point, keep, raw]) => {
      const values = Uint32Array.from(raw, (v, i) => (i < keep ? v : 0));
      assert.deepEqual(mleEvalTrimmed(values, point), [...mleEvalBase(values, point)]);
    }),
    { numRuns: 300 },
  );
  for (const n of [0, 1, 5, 12]) {
    const point: Ext[] = Array.from({ length: n }, (_, j) => [3 + j, 5, P - 1, 7] as Ext);
    const zeros = new Uint32Array(2 ** n);
    assert.deepEqual(mleEvalTrimmed(zeros, point), [0, 0, 0, 0]);
    for (const at of [0, 2 ** n - 1]) {
      const v = zeros.slice();
      v[at] = P - 1;
      assert.deepEqual(mleEvalTrimmed(v, point), [...mleEvalBase(v, point)], `n ${n} at ${at}`);
    }
  }
});
