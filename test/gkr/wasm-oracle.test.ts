import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, type Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import type { RoundMessage } from "../../src/sumcheck/oracle.js";
import { proveGkr, defaultLayerOracleFactory } from "../../src/gkr/prover.js";
import { type Circuit, GateKind, inputBitsOf, makeLayer } from "../../src/gkr/circuit.js";
import { SparseLayerOracle, sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import type { LayerOracleInput } from "../../src/gkr/layer-oracle.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { WasmLayerOracle, wasmLayerOracle, wasmLayerOracleFactory } from "../../src/gkr/wasm/oracle.js";
import { GkrKernels, gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { Kernels } from "../../src/kernels/kernels.js";
import { arbCircuitCase, buildCase, transcriptAfterOutputs, type CircuitCase } from "./random-circuit.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc.oneof(
  fc.constantFrom<Ext>([0, 0, 0, 0], [1, 0, 0, 0], [P - 1, P - 1, P - 1, P - 1]),
  fc.tuple(fe, fe, fe, fe).map((t) => t as Ext),
);

const kernels = gkrKernels();
assert.ok(kernels, "the kernel module must be built (npm run build:kernels)");

/** Five ascending coefficients, whatever the message kind. */
function coefficients(msg: RoundMessage): Ext[] {
  const out = msg.kind === "evaluations" ? interpolateRoundPoly(msg.values) : msg.values.slice();
  while (out.length < 5) out.push([0, 0, 0, 0]);
  return out;
}

/** A random layer case with claims and 2s challenges (and which rounds skip roundPolynomial). */
function arbLayerCase(opts: { maxBits?: number; maxGates?: number; minBits?: number }) {
  return arbCircuitCase({ maxDepth: 1, ...opts }).chain((c) => {
    const layer = c.circuit.layers[0]!;
    const s = inputBitsOf(c.circuit, 0);
    const point = fc.array(arbExt, { minLength: layer.widthBits, maxLength: layer.widthBits });
    return fc.tuple(
      fc.constant(c),
      fc.array(fc.tuple(point, arbExt), { minLength: 0, maxLength: 3 }),
      fc.array(arbExt, { minLength: 2 * s, maxLength: 2 * s }),
      fc.array(fc.boolean(), { minLength: 2 * s, maxLength: 2 * s }),
    );
  });
}

function layerInput(c: CircuitCase, rawClaims: [Ext[], Ext][]): LayerOracleInput {
  return {
    layer: c.circuit.layers[0]!,
    layerIndex: 0,
    inputBits: inputBitsOf(c.circuit, 0),
    below: c.witness[1]!,
    claims: rawClaims.map(([point, coeff]) => ({ point, coeff })),
  };
}

function checkSameRounds(input: LayerOracleInput, challenges: Ext[], skip: boolean[]): void {
  const ref = new SparseLayerOracle(input);
  const fast = new WasmLayerOracle(kernels!, input);
  assert.equal(fast.numVariables, ref.numVariables);
  assert.equal(fast.degree, ref.degree);
  assert.ok(fast.allocatedBytes > 0);
  challenges.forEach((r, j) => {
    // Skipping a round's message must not change later rounds (the reference is always asked).
    const a = coefficients(ref.roundPolynomial());
    if (!skip[j]) {
      const msg = fast.roundPolynomial();
      assert.ok(msg.values.length <= fast.degree + 1);
      assert.deepEqual(coefficients(msg), a, `round ${j}`);
    }
    ref.bind(r);
    fast.bind(r);
  });
  assert.deepEqual(fast.evalX(), ref.evalX());
  assert.deepEqual(fast.evalY(), ref.evalY());
  assert.throws(
    () => fast.roundPolynomial(),
    (e: unknown) => (e as { code?: string }).code === "ROUNDS_EXHAUSTED",
  );
  assert.throws(
    () => fast.bind(EXT_ONE),
    (e: unknown) => (e as { code?: string }).code === "ROUNDS_EXHAUSTED",
  );
}

test("WASM and TypeScript oracles give identical round polynomials, V(x*), V(y*) (widths 0..3 bits)", () => {
  fc.assert(
    fc.property(arbLayerCase({ maxBits: 3, maxGates: 12 }), ([c, claims, challenges, skip]) => {
      checkSameRounds(
        layerInput(c, claims),
        challenges,
        skip.map(() => false),
      );
      checkSameRounds(layerInput(c, claims), challenges, skip);
    }),
    { numRuns: 200 },
  );
});

test("WASM and TypeScript oracles agree on wider layers (SIMD blocks, 4..7 bits, many gates)", () => {
  fc.assert(
    fc.property(arbLayerCase({ minBits: 4, maxBits: 7, maxGates: 300 }), ([c, claims, challenges, skip]) => {
      checkSameRounds(layerInput(c, claims), challenges, skip);
    }),
    { numRuns: 25 },
  );
});

/** A layer of one gate kind only, or no gates at all, at the given widths. */
function singleKindCase(kind: GateKind | null, outBits: number, inBits: number, seed: number): CircuitCase {
  const gates = [];
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  if (kind !== null) {
    for (let g = 0; g < 3 * 2 ** Math.max(outBits, inBits); g++) {
      const in1 = next() % 2 ** inBits;
      gates.push({
        kind,
        out: next() % 2 ** outBits,
        in1,
        in2: kind === GateKind.Mul ? next() % 2 ** inBits : in1,
        coeff: next() % P,
      });
    }
  }
  const circuit: Circuit = { inputWidthBits: inBits, layers: [makeLayer(outBits, gates, [{ wire: 0, value: 7 }])] };
  return buildCase(
    circuit,
    Array.from({ length: 2 ** inBits }, () => next() % P),
  );
}

test("every gate kind alone and empty layers, widths 0, 1, 2 and 5 bits: identical whole proofs", () => {
  for (const kind of [null, GateKind.Lin, GateKind.Mul, GateKind.Pow3]) {
    for (const outBits of [0, 1, 2, 5]) {
      for (const inBits of [0, 1, 2, 5]) {
        const c = singleKindCase(kind, outBits, inBits, 17 * outBits + inBits + 1);
        const a = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
          oracleFactory: sparseLayerOracle,
        });
        const b = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
          oracleFactory: wasmLayerOracle,
        });
        assert.deepEqual(b, a, `kind ${kind} out ${outBits} in ${inBits}`);
      }
    }
  }
});

test("whole proofs with the WASM oracle equal the TypeScript oracle's on random circuits", () => {
  fc.assert(
    fc.property(arbCircuitCase({ maxDepth: 4, maxBits: 5, maxGates: 60 }), (c) => {
      const a = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: sparseLayerOracle,
      });
      const b = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: wasmLayerOracle,
      });
      assert.deepEqual(b, a);
    }),
    { numRuns: 60 },
  );
});

test("the prover uses the WASM oracle by default", () => {
  const f = defaultLayerOracleFactory();
  const c = singleKindCase(GateKind.Pow3, 2, 2, 5);
  const o = f({ layer: c.circuit.layers[0]!, layerIndex: 0, inputBits: 2, below: c.witness[1]!, claims: [] });
  assert.ok(o instanceof WasmLayerOracle);
});

test("a context attached to a shared memory (scratch region only) and one with no image cache give the same proofs", () => {
  const owner = Kernels.create({ initialPages: 64 });
  const scratch = owner.heap.alloc(1 << 18);
  const attached = GkrKernels.attach(owner.share(), scratch.describe());
  const over = GkrKernels.over(owner);
  const uncached = GkrKernels.create({ imageBudgetBytes: 0 });
  fc.assert(
    fc.property(arbCircuitCase({ maxDepth: 3, maxBits: 5, maxGates: 40 }), (c) => {
      const ref = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: sparseLayerOracle,
      });
      const before = owner.heap.allocatedBytes;
      const got = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: wasmLayerOracleFactory(attached),
      });
      assert.deepEqual(got, ref);
      assert.equal(owner.heap.allocatedBytes, before, "the attached context allocates only inside its scratch region");
      for (const k of [over, uncached]) {
        assert.deepEqual(
          proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
            oracleFactory: wasmLayerOracleFactory(k),
          }),
          ref,
        );
      }
      assert.equal(uncached.cachedImageBytes, 0, "a zero budget keeps no image once the proof is done");
    }),
    { numRuns: 25 },
  );
});

test("the WASM oracle rejects wrong-sized tables, wrong claim arity and malformed layers like the reference", () => {
  const c = singleKindCase(GateKind.Mul, 2, 2, 9);
  const layer = c.circuit.layers[0]!;
  const base = { layer, layerIndex: 0, inputBits: 2, below: c.witness[1]!, claims: [] };
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, below: new Uint32Array(3) }),
    (e: unknown) => (e as { code?: string }).code === "BAD_TABLE",
  );
  const wrong = [{ point: [EXT_ONE], coeff: EXT_ONE }];
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, claims: wrong }),
    (e) => e instanceof CircuitError && e.code === "BAD_POINT",
  );
  const bad = makeLayer(2, [{ kind: GateKind.Lin, out: 0, in1: 4, in2: 4, coeff: 1 }]);
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, layer: bad }),
    (e) => e instanceof CircuitError && e.code === "WIRE_OUT_OF_RANGE",
  );
  const unary = makeLayer(2, [{ kind: GateKind.Pow3, out: 0, in1: 1, in2: 2, coeff: 1 }]);
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, layer: unary }),
    (e) => e instanceof CircuitError && e.code === "UNARY_IN2_MISMATCH",
  );
  const coeff = makeLayer(2, [{ kind: GateKind.Lin, out: 0, in1: 1, in2: 1, coeff: P }]);
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, layer: coeff }),
    (e) => e instanceof CircuitError && e.code === "NON_CANONICAL_COEFF",
  );
  const kind = makeLayer(2, [{ kind: 3 as GateKind, out: 0, in1: 1, in2: 1, coeff: 1 }]);
  assert.throws(
    () => new WasmLayerOracle(kernels!, { ...base, layer: kind }),
    (e) => e instanceof CircuitError && e.code === "BAD_GATE_KIND",
  );
  // The proof driver reports the same codes as validateCircuit for a malformed circuit.
  const circuit: Circuit = { inputWidthBits: 2, layers: [bad] };
  assert.throws(
    () => proveGkr(circuit, [new Uint32Array(4), new Uint32Array(4)], transcriptAfterOutputs([0, 0, 0, 0])),
    (e) => e instanceof CircuitError && e.code === "WIRE_OUT_OF_RANGE",
  );
});
