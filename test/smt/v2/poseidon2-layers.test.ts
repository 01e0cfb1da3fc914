import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { permute } from "../../../src/hash/poseidon2.js";
import { makeLayer } from "../../../src/gkr/circuit.js";
import {
  type StructuredCircuit,
  circuitGateTerms,
  evaluateStructuredCircuit,
  structuredLayer,
} from "../../../src/gkr/structured/linear.js";
import { proveStructuredGkr } from "../../../src/gkr/structured/oracle.js";
import { StructuredWiring } from "../../../src/gkr/structured/wiring.js";
import { DerivedRegularWiring } from "../../../src/gkr/wiring/derived.js";
import { verifyGkr } from "../../../src/gkr/verifier.js";
import { shapeOf } from "../../../src/gkr/shape.js";
import { checkInputClaim } from "../../../src/gkr/input-claim.js";
import { PERMUTATION_LAYERS, permutationRoundGroup } from "../../../src/smt/v2/poseidon2-layers.js";
import { transcriptAfterOutputs } from "../../gkr/random-circuit.js";
import { Rng } from "../../gkr/random-structured.js";

/** count permutations side by side: layer 0 = last round, input = the 16·count lanes of the states. */
function parallelPermutations(count: number): StructuredCircuit {
  let bits = 4;
  while (2 ** bits < 16 * count) bits++;
  const bases = Uint32Array.from({ length: count }, (_, p) => 16 * p);
  const layers = [];
  for (let r = PERMUTATION_LAYERS - 1; r >= 0; r--)
    layers.push(structuredLayer(makeLayer(bits, []), [permutationRoundGroup(r, bases, bases)]));
  return { inputWidthBits: bits, layers };
}

test("structured Poseidon2 layers compute permute() for every block, at 1,968 gate terms per permutation (compat-v1: 7,424)", () => {
  const rng = new Rng(11);
  for (const count of [1, 3, 8]) {
    const c = parallelPermutations(count);
    assert.equal(c.layers.length, 29);
    const input = new Uint32Array(2 ** c.inputWidthBits);
    for (let k = 0; k < 16 * count; k++) input[k] = k < 16 ? k : rng.fe();
    const out = evaluateStructuredCircuit(c, input)[0]!;
    for (let p = 0; p < count; p++)
      assert.deepEqual(out.slice(16 * p, 16 * p + 16), permute(input.slice(16 * p, 16 * p + 16)), `block ${p}`);
    const termsPerPermutation = circuitGateTerms(c) / count;
    assert.equal(termsPerPermutation, 1968);
    assert.ok(termsPerPermutation <= 2000);
  }
  // compat-v1 §18 known answer through the circuit
  const c1 = parallelPermutations(1);
  const kat = evaluateStructuredCircuit(
    c1,
    Array.from({ length: 16 }, (_, i) => i),
  )[0]!;
  assert.deepEqual(
    Array.from(kat),
    [
      2089692522, 1915416326, 492489469, 252860357, 1061679923, 82240369, 1810169820, 1585792269, 1096226960,
      1569781184, 1452705076, 2081290613, 1344369360, 1949099839, 544415199, 892194947,
    ],
  );
});

test("a structured permutation circuit proves and verifies with closed-form wiring; a wrong input state is rejected", () => {
  const c = parallelPermutations(4);
  const rng = new Rng(5);
  const input = Uint32Array.from({ length: 2 ** c.inputWidthBits }, () => rng.fe());
  const witness = evaluateStructuredCircuit(c, input);
  const { proof } = proveStructuredGkr(c, witness, transcriptAfterOutputs(witness[0]!));
  const wiring = new StructuredWiring(c, new DerivedRegularWiring(c));
  assert.deepEqual(wiring.closedFormGroups, { closed: 29, total: 29 });
  const res = verifyGkr(shapeOf(c), wiring, Array.from(witness[0]!), proof, transcriptAfterOutputs(witness[0]!));
  assert.ok(res.ok && checkInputClaim(input, res.inputClaim));
  const other = input.slice();
  other[17] = (other[17]! + 1) % P;
  assert.ok(!checkInputClaim(other, res.inputClaim));
});
