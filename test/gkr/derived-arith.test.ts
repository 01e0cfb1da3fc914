import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, mul } from "../../src/field/koalabear.js";
import { extMul, type Ext } from "../../src/field/extension.js";
import { extMulSplit, extMulSplitAcc, extMulSplitTo, mulSplit, reduce52 } from "../../src/sumcheck/ext-split.js";

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
  for (const x of [0, P - 1, P, P + 1, 2 ** 53 - 1, 2 ** 52, Math.floor((2 ** 53 - 1) / P) * P, Math.floor((2 ** 53 - 1) / P) * P - 1]) {
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
      assert.deepEqual(Array.from(acc, (x, i) => x - [5, 6, 7, 8][i]!), want);
      assert.equal(mulSplit(c, v), mul(c, v));
    }),
    { numRuns: 3000 },
  );
});
