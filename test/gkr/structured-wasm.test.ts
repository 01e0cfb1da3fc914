import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import { inputBitsOf } from "../../src/gkr/circuit.js";
import type { LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import {
  proveStructuredGkr,
  structuredLayerOracle,
  structuredWasmLayerOracleFactory,
} from "../../src/gkr/structured/oracle.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { arbStructuredCase } from "./random-structured.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const kernels = gkrKernels();

function coefficients(o: LayerSumcheckOracle): Ext[] {
  const msg = o.roundPolynomial();
  const c = msg.kind === "evaluations" ? interpolateRoundPoly(msg.values) : [...msg.values];
  while (c.length < 5) c.push([0, 0, 0, 0]);
  return c;
}

test("the WASM structured oracle gives the TypeScript reference's round polynomials for arbitrary claims and challenges", {
  skip: kernels === null ? "kernel module not available" : false,
}, () => {
  const factory = structuredWasmLayerOracleFactory(kernels!);
  const arb = arbStructuredCase({ maxDepth: 1, maxBits: 5 }).chain((c) => {
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
      const ts = structuredLayerOracle(input);
      const wasm = factory(input);
      challenges.forEach((r, j) => {
        assert.deepEqual(coefficients(wasm), coefficients(ts), `round ${j}`);
        ts.bind(r);
        wasm.bind(r);
      });
      assert.deepEqual(wasm.evalX(), ts.evalX());
      assert.deepEqual(wasm.evalY(), ts.evalY());
    }),
    { numRuns: 150 },
  );
});

test("whole structured proofs: WASM and TypeScript oracles are identical", {
  skip: kernels === null ? "kernel module not available" : false,
}, () => {
  const factory = structuredWasmLayerOracleFactory(kernels!);
  fc.assert(
    fc.property(arbStructuredCase(), (c) => {
      const a = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: structuredLayerOracle,
      });
      const b = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: factory,
      });
      assert.deepEqual(b, a);
    }),
    { numRuns: 80 },
  );
});
