import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ZERO, embed, extAdd, extMul, type Ext } from "../../src/field/extension.js";
import { evalRoundPoly, interpolateRoundPoly, roundSum } from "../../src/sumcheck/interpolate.js";
import { SumcheckError } from "../../src/sumcheck/errors.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

test("interpolation reproduces the evaluations at 0..m and pads to 5 coefficients", () => {
  fc.assert(
    fc.property(fc.array(arbExt, { minLength: 1, maxLength: 5 }), (evals) => {
      const coeffs = interpolateRoundPoly(evals);
      assert.equal(coeffs.length, 5);
      for (let k = evals.length; k < 5; k++) assert.deepEqual(coeffs[k], EXT_ZERO);
      evals.forEach((e, t) => assert.deepEqual(evalRoundPoly(coeffs, embed(t)), e));
    }),
  );
});

test("interpolation recovers the coefficients of a degree-≤4 polynomial from 5 evaluations", () => {
  fc.assert(
    fc.property(fc.array(arbExt, { minLength: 5, maxLength: 5 }), (coeffs) => {
      const evals = [0, 1, 2, 3, 4].map((t) => evalRoundPoly(coeffs, embed(t)));
      assert.deepEqual(interpolateRoundPoly(evals), coeffs);
    }),
  );
});

test("a known polynomial: g(T) = 1 + 2T + 3T² + 4T³ + 5T⁴", () => {
  const g = (t: number) => 1 + 2 * t + 3 * t ** 2 + 4 * t ** 3 + 5 * t ** 4;
  const coeffs = interpolateRoundPoly([0, 1, 2, 3, 4].map((t) => embed(g(t))));
  assert.deepEqual(
    coeffs.map((c) => c[0]),
    [1, 2, 3, 4, 5],
  );
  assert.ok(coeffs.every((c) => c[1] === 0 && c[2] === 0 && c[3] === 0));
});

test("roundSum is g(0) + g(1) and evalRoundPoly is Horner", () => {
  fc.assert(
    fc.property(fc.array(arbExt, { maxLength: 5 }), arbExt, (coeffs, r) => {
      const direct = extAdd(evalRoundPoly(coeffs, EXT_ZERO), evalRoundPoly(coeffs, embed(1)));
      assert.deepEqual(roundSum(coeffs), direct);
      let pow: Ext = [1, 0, 0, 0];
      let acc: Ext = EXT_ZERO;
      for (const a of coeffs) {
        acc = extAdd(acc, extMul(a, pow));
        pow = extMul(pow, r);
      }
      assert.deepEqual(evalRoundPoly(coeffs, r), acc);
    }),
  );
});

test("interpolation rejects 0 or more than 5 evaluations with a typed error", () => {
  assert.throws(
    () => interpolateRoundPoly([]),
    (e) => e instanceof SumcheckError && e.code === "BAD_ROUND_MESSAGE",
  );
  assert.throws(
    () => interpolateRoundPoly(new Array(6).fill(EXT_ZERO)),
    (e) => e instanceof SumcheckError && e.code === "BAD_ROUND_MESSAGE",
  );
});
