import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import { GateKind, inputBitsOf } from "../../src/gkr/circuit.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { hasGroupKernels } from "../../src/gkr/structured/booking-wasm.js";
import { evaluateStructuredCircuit, expandStructuredLayer } from "../../src/gkr/structured/linear.js";
import { proveStructuredGkr, structuredLayerOracle, structuredWasmLayerOracleFactory } from "../../src/gkr/structured/oracle.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { buildV2Input } from "../../src/smt/v2/input.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { DenseLayerOracle } from "../support/dense-oracle.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { Rng, arbStructuredCase } from "./random-structured.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const kernels = gkrKernels();
const skip = kernels === null || !hasGroupKernels(kernels) ? "kernel module without the group kernels" : false;

function coefficients(o: LayerSumcheckOracle): Ext[] {
  const msg = o.roundPolynomial();
  const c = msg.kind === "evaluations" ? interpolateRoundPoly(msg.values) : [...msg.values];
  while (c.length < 5) c.push([0, 0, 0, 0]);
  return c;
}

/** Runs the oracles side by side over the challenges, comparing every round and V(x*), V(y*). */
function sameRounds(oracles: LayerSumcheckOracle[], challenges: readonly Ext[], what: string): void {
  const [ref, ...others] = oracles;
  for (const o of others) assert.equal(o.numVariables, ref!.numVariables, what);
  challenges.forEach((r, j) => {
    const want = coefficients(ref!);
    for (const o of others) assert.deepEqual(coefficients(o), want, `${what}: round ${j}`);
    for (const o of oracles) o.bind(r);
  });
  for (const o of others) {
    assert.deepEqual(o.evalX(), ref!.evalX(), `${what}: V(x*)`);
    assert.deepEqual(o.evalY(), ref!.evalY(), `${what}: V(y*)`);
  }
}

test("WASM group booking: the round polynomials of the TypeScript reference for random structured layers, claims and challenges (with and without Mul gates)", { skip }, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  const tsBooking = structuredWasmLayerOracleFactory(kernels!, "typescript");
  const arb = arbStructuredCase({ maxDepth: 1, maxBits: 5 }).chain((c) => {
    const layer = c.circuit.layers[0]!;
    const s = inputBitsOf(c.circuit, 0);
    const point = fc.array(arbExt, { minLength: layer.widthBits, maxLength: layer.widthBits });
    return fc.tuple(fc.constant(c), fc.array(fc.tuple(point, arbExt), { minLength: 1, maxLength: 3 }), fc.array(arbExt, { minLength: 2 * s, maxLength: 2 * s }));
  });
  let withMul = 0, withGroups = 0;
  fc.assert(
    fc.property(arb, ([c, rawClaims, challenges]) => {
      const layer = c.circuit.layers[0]!;
      if (layer.linear.length > 0) withGroups++;
      if (layer.linear.length > 0 && layer.gateKind.includes(GateKind.Mul)) withMul++;
      const input: LayerOracleInput = { layer, layerIndex: 0, inputBits: inputBitsOf(c.circuit, 0), below: c.witness[1]!, claims: rawClaims.map(([point, coeff]) => ({ point, coeff })) };
      sameRounds([structuredLayerOracle(input), wasm(input), tsBooking(input)], challenges, "random layer");
    }),
    { numRuns: 200 },
  );
  assert.ok(withGroups > 100 && withMul > 20, `the generator produced layers with groups (${withGroups}) and with groups and Mul gates (${withMul})`);
});

test("WASM group booking: whole proofs of random structured circuits equal the TypeScript reference's", { skip }, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  fc.assert(
    fc.property(arbStructuredCase(), (c) => {
      const a = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), { oracleFactory: structuredLayerOracle });
      const b = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), { oracleFactory: wasm });
      assert.deepEqual(b, a);
    }),
    { numRuns: 80 },
  );
});

function v2Case(kind: OpKind, depth: number, seed: bigint) {
  const compiled = compileV2(kind, { depth });
  const witness = evaluateStructuredCircuit(compiled.circuit, buildV2Input(compiled.layout, goldenFixture(kind, depth, seed)));
  return { circuit: compiled.circuit, witness };
}

test("WASM group booking: whole proofs of the real v2 circuits (depth 3, every kind) equal the TypeScript reference's", { skip }, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const { circuit, witness } = v2Case(kind, 3, 7n);
    const a = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), { oracleFactory: structuredLayerOracle });
    const b = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), { oracleFactory: wasm });
    assert.deepEqual(b, a, `kind ${kind}`);
  }
});

test("WASM group booking on the real v2 layers (depth 1, every kind: output, entry, external, internal and input layers) gives the dense oracle's round polynomials", { skip }, () => {
  const factories: LayerOracleFactory[] = [structuredWasmLayerOracleFactory(kernels!, "wasm"), structuredLayerOracle];
  const rng = new Rng(2024);
  const ext = (): Ext => [rng.fe(), rng.fe(), rng.fe(), rng.fe()];
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const { circuit, witness } = v2Case(kind, 1, 1n);
    const D = circuit.layers.length;
    // layer 0 (outputs), 29 (entry M_E), 28 (external round), 20 (internal round), D − 1 (input layer, Mul gates)
    for (const i of [0, 29, 28, 20, D - 1]) {
      const layer = circuit.layers[i]!;
      const s = inputBitsOf(circuit, i);
      const claims = [0, 1].map(() => ({ point: Array.from({ length: layer.widthBits }, ext), coeff: ext() }));
      const input: LayerOracleInput = { layer, layerIndex: i, inputBits: s, below: witness[i + 1]!, claims };
      const oracles = [new DenseLayerOracle({ ...input, layer: expandStructuredLayer(layer) }), ...factories.map((f) => f(input))];
      sameRounds(oracles, Array.from({ length: 2 * s }, ext), `kind ${kind} layer ${i}`);
    }
  }
});
