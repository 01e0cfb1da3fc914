import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, type Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { inputBitsOf } from "../../src/gkr/circuit.js";
import { SparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import type { LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { DenseLayerOracle, denseLayerOracle } from "../support/dense-oracle.js";
import { arbCircuitCase, transcriptAfterOutputs } from "./random-circuit.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

function coefficients(o: LayerSumcheckOracle): Ext[] {
  const msg = o.roundPolynomial();
  assert.equal(msg.kind, "evaluations");
  return interpolateRoundPoly(msg.values);
}

test("sparse and dense oracles give identical round polynomials for arbitrary claims and challenges", () => {
  const arb = arbCircuitCase({ maxDepth: 2 }).chain((c) => {
    const layer = c.circuit.layers[0]!;
    const s = inputBitsOf(c.circuit, 0);
    const point = fc.array(arbExt, { minLength: layer.widthBits, maxLength: layer.widthBits });
    return fc.tuple(
      fc.constant(c),
      fc.array(fc.tuple(point, arbExt), { minLength: 1, maxLength: 3 }),
      fc.array(arbExt, { minLength: 2 * s, maxLength: 2 * s }),
    );
  });
  fc.assert(
    fc.property(arb, ([c, rawClaims, challenges]) => {
      const input: LayerOracleInput = {
        layer: c.circuit.layers[0]!,
        layerIndex: 0,
        inputBits: inputBitsOf(c.circuit, 0),
        below: c.witness[1]!,
        claims: rawClaims.map(([point, coeff]) => ({ point, coeff })),
      };
      const sparse = new SparseLayerOracle(input);
      const dense = new DenseLayerOracle(input);
      assert.equal(sparse.numVariables, dense.numVariables);
      const s = input.inputBits;
      challenges.forEach((r, j) => {
        const a = coefficients(sparse);
        assert.deepEqual(a, coefficients(dense), `round ${j}`);
        if (j >= s) assert.ok(a[3]!.every((v) => v === 0) && a[4]!.every((v) => v === 0), "y rounds have degree ≤ 2");
        sparse.bind(r);
        dense.bind(r);
      });
      const xs = challenges.slice(0, s);
      const ys = challenges.slice(s);
      assert.deepEqual(sparse.evalX(), mleEvalBase(input.below, xs));
      assert.deepEqual(sparse.evalY(), mleEvalBase(input.below, ys));
      assert.deepEqual(dense.evalX(), sparse.evalX());
      assert.deepEqual(dense.evalY(), sparse.evalY());
    }),
    { numRuns: 150 },
  );
});

test("whole proofs from the sparse and the dense oracle are identical", () => {
  fc.assert(
    fc.property(arbCircuitCase(), (c) => {
      const a = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
      const b = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: denseLayerOracle,
      });
      assert.deepEqual(a, b);
    }),
    { numRuns: 100 },
  );
});

test("the prover does not modify the witness and reports per-layer statistics", () => {
  fc.assert(
    fc.property(arbCircuitCase(), (c) => {
      const copy = c.witness.map((v) => v.slice());
      const stats: { layerIndex: number; inputBits: number; oracleAllocatedBytes: number }[] = [];
      proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), { onLayer: (st) => stats.push(st) });
      assert.deepEqual(c.witness, copy);
      assert.deepEqual(
        stats.map((st) => st.layerIndex),
        c.circuit.layers.map((_, i) => i),
      );
      stats.forEach((st) => {
        assert.equal(st.inputBits, inputBitsOf(c.circuit, st.layerIndex));
        assert.ok(st.oracleAllocatedBytes > 0);
      });
    }),
    { numRuns: 30 },
  );
});

test("the sparse oracle refuses claims of the wrong arity and rounds past the end", () => {
  fc.assert(
    fc.property(arbCircuitCase({ maxDepth: 1, minBits: 1 }), (c) => {
      const layer = c.circuit.layers[0]!;
      const base = { layer, layerIndex: 0, inputBits: c.circuit.inputWidthBits, below: c.witness[1]! };
      const wrong = new Array(layer.widthBits + 1).fill(EXT_ONE);
      assert.throws(
        () => new SparseLayerOracle({ ...base, claims: [{ point: wrong, coeff: EXT_ONE }] }),
        (e) => e instanceof CircuitError && e.code === "BAD_POINT",
      );
      const o = new SparseLayerOracle({
        ...base,
        claims: [{ point: new Array(layer.widthBits).fill(EXT_ONE), coeff: EXT_ONE }],
      });
      for (let j = 0; j < o.numVariables; j++) {
        o.roundPolynomial();
        o.bind(EXT_ONE);
      }
      assert.throws(
        () => o.roundPolynomial(),
        (e: unknown) => (e as { code?: string }).code === "ROUNDS_EXHAUSTED",
      );
    }),
    { numRuns: 20 },
  );
});
