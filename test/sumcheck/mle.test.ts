import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, EXT_ZERO, embed, extAdd, extMul, extSub, type Ext } from "../../src/field/extension.js";
import { ExtVector } from "../../src/field/ext-vector.js";
import { extMulAddTo, extMulTo, extScaleAddTo } from "../../src/field/ext-inline.js";
import {
  betaAt,
  eqAt,
  eqTable,
  foldBase,
  foldExtInPlace,
  mleEvalBase,
  mleEvalByDefinition,
  mleEvalExt,
} from "../../src/sumcheck/mle.js";
import { SumcheckError } from "../../src/sumcheck/errors.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const arbPoint = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
const arbBits = fc.integer({ min: 0, max: 6 });

test("extMulTo / extMulAddTo / extScaleAddTo agree with the tuple arithmetic", () => {
  fc.assert(
    fc.property(arbExt, arbExt, arbExt, fe, (a, b, c, s) => {
      const out = new Uint32Array(8);
      extMulTo(out, 1, 2, ...a, ...b);
      assert.deepEqual([out[1], out[3], out[5], out[7]], extMul(a, b));
      const acc = new Uint32Array([...c]);
      extMulAddTo(acc, 0, 1, ...a, ...b);
      assert.deepEqual([...acc], extAdd(c, extMul(a, b)));
      const acc2 = new Uint32Array([...c]);
      extScaleAddTo(acc2, 0, 1, s, ...b);
      assert.deepEqual([...acc2], extAdd(c, extMul(embed(s), b)));
    }),
  );
});

test("eqTable(z, scale)[b] = scale·eq(z, b) with variable 0 as the most significant bit", () => {
  fc.assert(
    fc.property(
      arbBits.chain((n) => fc.tuple(arbPoint(n), arbExt)),
      ([z, scale]) => {
        const t = eqTable(z, scale);
        assert.equal(t.length, 2 ** z.length);
        for (let b = 0; b < t.length; b++) assert.deepEqual(t.get(b), extMul(scale, eqAt(z, b)));
      },
    ),
  );
});

test("MSB-first convention: z_0 selects the upper half of the table", () => {
  const z0: Ext = [5, 0, 0, 0];
  const z1: Ext = [7, 0, 0, 0];
  const t = eqTable([z0, z1]);
  // index 2 = bits (1, 0): eq = z0·(1 − z1)
  assert.deepEqual(t.get(2), extMul(z0, extSub(EXT_ONE, z1)));
  // MLE([a, b])(r) = a + r·(b − a)
  assert.deepEqual(mleEvalBase([10, 20], [[3, 0, 0, 0]]), [40, 0, 0, 0]);
  // MLE of [t0, t1, t2, t3] at (1, 0) is t2.
  assert.deepEqual(mleEvalBase([11, 12, 13, 14], [EXT_ONE, EXT_ZERO]), [13, 0, 0, 0]);
});

test("the entries of an eq table sum to its scale, and β(y) = eq(y, 0)", () => {
  fc.assert(
    fc.property(
      arbBits.chain((n) => fc.tuple(arbPoint(n), arbExt)),
      ([z, scale]) => {
        const t = eqTable(z, scale);
        let acc = EXT_ZERO;
        for (let b = 0; b < t.length; b++) acc = extAdd(acc, t.get(b));
        assert.deepEqual(acc, scale);
        assert.deepEqual(betaAt(z), t.length > 0 ? eqAt(z, 0) : EXT_ONE);
      },
    ),
  );
});

test("MLE by folding equals the definition Σ_b T[b]·eq(z, b), for base and extension tables", () => {
  fc.assert(
    fc.property(
      arbBits.chain((n) =>
        fc.tuple(
          fc.array(fe, { minLength: 2 ** n, maxLength: 2 ** n }),
          fc.array(arbExt, { minLength: 2 ** n, maxLength: 2 ** n }),
          arbPoint(n),
        ),
      ),
      ([base, ext, z]) => {
        assert.deepEqual(mleEvalBase(base, z), mleEvalByDefinition(base.map(embed), z));
        const v = ExtVector.fromElements(ext);
        const copy = v.data.slice();
        assert.deepEqual(mleEvalExt(v, z), mleEvalByDefinition(ext, z));
        assert.deepEqual(v.data, copy, "mleEvalExt must not modify its input");
      },
    ),
  );
});

test("foldExtInPlace and foldBase follow T[j] ← T[j] + r·(T[j+h] − T[j])", () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 6 })
        .chain((n) =>
          fc.tuple(
            fc.array(arbExt, { minLength: 2 ** n, maxLength: 2 ** n }),
            fc.array(fe, { minLength: 2 ** n, maxLength: 2 ** n }),
            arbExt,
          ),
        ),
      ([ext, base, r]) => {
        const h = ext.length / 2;
        const expect = (t: readonly Ext[]) =>
          t.slice(0, h).map((lo, j) => extAdd(lo, extMul(r, extSub(t[j + h]!, lo))));
        assert.deepEqual(foldExtInPlace(ExtVector.fromElements(ext), r).toElements(), expect(ext));
        const baseCopy = base.slice();
        assert.deepEqual(foldBase(base, r).toElements(), expect(base.map(embed)));
        assert.deepEqual(base, baseCopy);
      },
    ),
  );
});

test("bad lengths are typed errors", () => {
  assert.throws(
    () => mleEvalBase([1, 2, 3], [EXT_ONE]),
    (e) => e instanceof SumcheckError && e.code === "BAD_POINT",
  );
  assert.throws(
    () => foldBase([1, 2, 3], EXT_ONE),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => foldExtInPlace(new ExtVector(1), EXT_ONE),
    (e) => e instanceof SumcheckError && e.code === "BAD_TABLE",
  );
  assert.throws(
    () => eqTable(new Array(31).fill(EXT_ONE)),
    (e) => e instanceof SumcheckError && e.code === "BAD_POINT",
  );
});
