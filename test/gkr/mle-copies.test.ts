import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { type Ext, extRandom } from "../../src/field/extension.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { mleEvalCopies, mleEvalCopiesReference } from "../../src/gkr/mle-copies.js";
import { SumcheckError } from "../../src/sumcheck/errors.js";

function table(k: number, s: number, used: number, edge: boolean): Uint32Array {
  const S = 2 ** s;
  const v = new Uint32Array(2 ** (k + s));
  let x = 12345;
  for (let c = 0; c < 2 ** k; c++) {
    for (let j = 0; j < used; j++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      v[c * S + j] = edge ? [0, 1, P - 1][x % 3]! : x % P;
    }
  }
  return v;
}

const point = (n: number): Ext[] => Array.from({ length: n }, () => extRandom());

test("the copies MLE (WASM inner products and TypeScript reference) equals mleEvalBase of the whole table, random and edge values, many shapes", () => {
  for (const [k, s, used] of [
    [0, 0, 1],
    [0, 2, 3],
    [1, 1, 2],
    [2, 3, 5],
    [3, 4, 16],
    [4, 5, 31],
    [0, 9, 480],
    [5, 9, 480],
    [8, 9, 451],
    [2, 4, 0],
  ] as const) {
    for (const edge of [false, true]) {
      const v = table(k, s, used, edge);
      const pts = [
        point(k + s),
        point(k + s),
        Array.from({ length: k + s }, (_, i): Ext => (i % 2 ? [0, 0, 0, 0] : [1, 0, 0, 0])),
      ];
      const want = pts.map((z) => mleEvalBase(v, z));
      assert.deepEqual(
        mleEvalCopiesReference(v, { copyBits: k, copySizeBits: s, used }, pts),
        want,
        `reference k ${k} s ${s} used ${used}`,
      );
      assert.deepEqual(
        mleEvalCopies(v, { copyBits: k, copySizeBits: s, used }, pts),
        want,
        `fast k ${k} s ${s} used ${used}`,
      );
    }
  }
});

test("the copies MLE rejects a wrong table length, a used count beyond a copy and a point of the wrong length", () => {
  const v = table(2, 3, 8, false);
  assert.throws(
    () => mleEvalCopies(v, { copyBits: 2, copySizeBits: 2, used: 4 }, [point(4)]),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => mleEvalCopies(v, { copyBits: 2, copySizeBits: 3, used: 9 }, [point(5)]),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => mleEvalCopies(v, { copyBits: 2, copySizeBits: 3, used: 8 }, [point(4)]),
    (e) => e instanceof SumcheckError && e.code === "BAD_POINT",
  );
});
