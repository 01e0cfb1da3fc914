import { test } from "node:test";
import assert from "node:assert/strict";
import { proveGkr } from "../../src/gkr/prover.js";
import { evaluateCircuit } from "../../src/gkr/circuit.js";
import { sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import { wasmLayerOracle } from "../../src/gkr/wasm/oracle.js";
import { evaluateCircuitFast } from "../../src/gkr/wasm/evaluate.js";
import { compile } from "../../src/smt/compile.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { buildInputVectorFor } from "../../src/smt/witness.js";
import { OpKind } from "../../src/statement/types.js";
import { transcriptAfterOutputs } from "./random-circuit.js";

/** compat-v1 §17 fixtures of every kind at depths 1–4 and 24: WASM and TypeScript paths agree. */
for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
  test(`fixtures F(${kind}, d, key), d = 1..4 and 24: WASM witness and proof equal the TypeScript ones`, () => {
    for (const depth of [1, 2, 3, 4, 24]) {
      const compiled = compile(kind, { depth });
      const request = goldenFixture(kind, depth, depth === 24 ? 5n : 1n);
      const input = buildInputVectorFor(compiled.layout, compiled.config.leafMaxFields, request);
      const witness = evaluateCircuit(compiled.circuit, input);
      assert.deepEqual(evaluateCircuitFast(compiled.circuit, input), witness, `witness at depth ${depth}`);
      const a = proveGkr(compiled.circuit, witness, transcriptAfterOutputs(witness[0]!), {
        oracleFactory: sparseLayerOracle,
      });
      const b = proveGkr(compiled.circuit, witness, transcriptAfterOutputs(witness[0]!), {
        oracleFactory: wasmLayerOracle,
      });
      assert.deepEqual(b, a, `proof at depth ${depth}`);
    }
  });
}
