import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { type Circuit, GateKind, evaluateCircuit, makeLayer } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { evaluateCircuitFast } from "../../src/gkr/wasm/evaluate.js";
import { GkrKernels } from "../../src/gkr/wasm/kernels.js";
import { arbCircuitCase, arbFe } from "./random-circuit.js";

test("WASM circuit evaluation equals evaluateCircuit on random circuits (all gate kinds, widths 0..6 bits)", () => {
  fc.assert(
    fc.property(arbCircuitCase({ maxDepth: 5, maxBits: 6, maxGates: 80 }), fc.integer({ min: 0, max: 3 }), (c, cut) => {
      assert.deepEqual(evaluateCircuitFast(c.circuit, c.input), c.witness);
      // A shorter input is zero-padded in both.
      const short = c.input.slice(0, Math.max(0, c.input.length - cut));
      assert.deepEqual(evaluateCircuitFast(c.circuit, short), evaluateCircuit(c.circuit, short));
    }),
    { numRuns: 150 },
  );
});

test("WASM circuit evaluation without a kernel context falls back to evaluateCircuit; a private context agrees", () => {
  fc.assert(
    fc.property(arbCircuitCase({ maxDepth: 3 }), (c) => {
      assert.deepEqual(evaluateCircuitFast(c.circuit, c.input, null), c.witness);
      assert.deepEqual(evaluateCircuitFast(c.circuit, c.input, GkrKernels.create({ imageBudgetBytes: 0 })), c.witness);
    }),
    { numRuns: 20 },
  );
});

test("WASM circuit evaluation rejects long or non-canonical inputs and malformed layers", () => {
  const circuit: Circuit = {
    inputWidthBits: 1,
    layers: [makeLayer(1, [{ kind: GateKind.Mul, out: 1, in1: 0, in2: 1, coeff: 3 }])],
  };
  assert.deepEqual(evaluateCircuitFast(circuit, [2, 5]), [Uint32Array.of(0, 30), Uint32Array.of(2, 5)]);
  const code = (c: string) => (e: unknown) => e instanceof CircuitError && e.code === c;
  assert.throws(() => evaluateCircuitFast(circuit, [1, 2, 3]), code("INPUT_WIDTH"));
  assert.throws(() => evaluateCircuitFast(circuit, [P]), code("INPUT_WIDTH"));
  assert.throws(() => evaluateCircuitFast(circuit, [1.5]), code("INPUT_WIDTH"));
  assert.throws(() => evaluateCircuitFast({ inputWidthBits: 1, layers: [] }, [1]), code("EMPTY_CIRCUIT"));
  const bad: Circuit = {
    inputWidthBits: 1,
    layers: [makeLayer(1, [{ kind: GateKind.Lin, out: 2, in1: 0, in2: 0, coeff: 1 }])],
  };
  assert.throws(() => evaluateCircuitFast(bad, [1, 2]), code("WIRE_OUT_OF_RANGE"));
  fc.assert(
    fc.property(arbFe, arbFe, (a, b) => {
      const cube: Circuit = {
        inputWidthBits: 1,
        layers: [makeLayer(0, [{ kind: GateKind.Pow3, out: 0, in1: 1, in2: 1, coeff: a }], [{ wire: 0, value: b }])],
      };
      assert.deepEqual(evaluateCircuitFast(cube, [0, a]), evaluateCircuit(cube, [0, a]));
    }),
    { numRuns: 50 },
  );
});
