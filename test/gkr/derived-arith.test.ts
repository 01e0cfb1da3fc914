import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, mul } from "../../src/field/koalabear.js";
import { extMul, type Ext } from "../../src/field/extension.js";
import { extMulSplit, extMulSplitAcc, extMulSplitTo, mulSplit, reduce52 } from "../../src/field/ext-split.js";
import { evalRoundPoly, roundSum } from "../../src/sumcheck/interpolate.js";
import { verifySumcheck } from "../../src/sumcheck/verifier.js";
import type { DuplexChallenger } from "../../src/transcript/challenger.js";

const edge = fc.constantFrom(0, 1, 2, 3, 0xffff, 0x10000, P - 2, P - 1, (P - 1) >>> 1);
const fe = fc.oneof(edge, fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as unknown as Ext);

test("reduce52 is x mod p for every integer below 2^53", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 53n - 1n }), (x) => {
      assert.equal(reduce52(Number(x)), Number(x % BigInt(P)));
    }),
    { numRuns: 2000 },
  );
  for (const x of [
    0,
    P - 1,
    P,
    P + 1,
    2 ** 53 - 1,
    2 ** 52,
    Math.floor((2 ** 53 - 1) / P) * P,
    Math.floor((2 ** 53 - 1) / P) * P - 1,
  ]) {
    assert.equal(reduce52(x), Number(BigInt(x) % BigInt(P)), `x = ${x}`);
  }
});

test("split extension products equal extMul; split base products equal mul", () => {
  fc.assert(
    fc.property(arbExt, arbExt, fe, fe, (a, b, c, v) => {
      const want = extMul(a, b);
      assert.deepEqual(extMulSplit(a, b), want);
      const out = new Uint32Array(9);
      extMulSplitTo(out, 1, 2, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
      assert.deepEqual([out[1], out[3], out[5], out[7]], want);
      const acc = new Float64Array([5, 6, 7, 8]);
      extMulSplitAcc(acc, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
      assert.deepEqual(
        Array.from(acc, (x, i) => x - [5, 6, 7, 8][i]!),
        want,
      );
      assert.equal(mulSplit(c, v), mul(c, v));
    }),
    { numRuns: 3000 },
  );
});

test("the sumcheck verifier's g(0) + g(1) and g(r) equal roundSum and evalRoundPoly (zero and short polynomials included)", () => {
  const zeroExt = fc.constant([0, 0, 0, 0] as unknown as Ext);
  const coeff = fc.oneof(arbExt, zeroExt);
  const poly = fc.array(coeff, { minLength: 0, maxLength: 5 });
  fc.assert(
    fc.property(fc.array(fc.tuple(poly, arbExt), { minLength: 1, maxLength: 6 }), (rounds) => {
      // Each round's claim is the previous g(r), so chain the claims through the reference functions.
      let claim = roundSum(rounds[0]![0]);
      const polys: Ext[][] = [];
      let k = 0;
      for (const [p, r] of rounds) {
        const fixed = p.slice();
        if (polys.length > 0) {
          // Adjust a_0 so that g(0) + g(1) equals the running claim (2·a_0 + Σ_{k≥1} a_k = claim).
          const rest = roundSum(fixed.length > 0 ? fixed : [[0, 0, 0, 0]]);
          const a0 = fixed[0] ?? ([0, 0, 0, 0] as unknown as Ext);
          const diff = [0, 1, 2, 3].map((c) => (claim[c]! - rest[c]! + 2 * P) % P);
          const half = (P + 1) / 2;
          const newA0 = [0, 1, 2, 3].map((c) => (a0[c]! + mul(diff[c]!, half)) % P) as unknown as Ext;
          if (fixed.length === 0) fixed.push(newA0);
          else fixed[0] = newA0;
        }
        polys.push(fixed);
        claim = evalRoundPoly(fixed, r);
      }
      const challenges = rounds.map(([, r]) => r);
      const transcript = {
        observeExt(): void {},
        observeAllUnchecked(): void {},
        sampleExt: (): Ext => challenges[k++]!,
      } as unknown as DuplexChallenger;
      const res = verifySumcheck(roundSum(polys[0]!), polys, polys.length, transcript);
      assert.ok(res.ok);
      assert.deepEqual(res.value, claim);
      assert.deepEqual(res.point, challenges);
    }),
    { numRuns: 400 },
  );
});
