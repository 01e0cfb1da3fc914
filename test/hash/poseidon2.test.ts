import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, FieldError, add, mul } from "../../src/field/index.js";
import {
  permute,
  compress,
  sponge,
  externalLinearLayer,
  internalLinearLayer,
  M4,
  poseidon2Constants,
} from "../../src/hash/index.js";
import { vectors } from "../support/vectors.js";

const rc = vectors.poseidon2.round_constants["plonky3_v0.4.x"].width16;
const derived = vectors.derived_vectors_NOT_from_plonky3["poseidon2_width16_v0.4.x_constants"];

test("generated constant tables equal the Plonky3 v0.4.x width-16 set in the JSON", () => {
  assert.deepEqual(poseidon2Constants.RC_EXTERNAL_INITIAL, rc.external_initial);
  assert.deepEqual(poseidon2Constants.RC_INTERNAL, rc.internal);
  assert.deepEqual(poseidon2Constants.RC_EXTERNAL_TERMINAL, rc.external_terminal);
  assert.deepEqual(poseidon2Constants.INTERNAL_DIAGONAL, vectors.poseidon2.internal_linear_layer.V_16_canonical);
  assert.deepEqual(M4, vectors.poseidon2.external_linear_layer.M4);
});

test("Plonky3 width-16 known answer (v0.4.x constants)", () => {
  const kat = vectors.poseidon2.test_vectors.find(
    (t: { constants: string; width: number }) => t.constants === "plonky3_v0.4.x" && t.width === 16,
  );
  assert.deepEqual(Array.from(permute(kat.input)), kat.expected_output);
});

test("spec §18: permute([0..15]) and compress(0, 0)", () => {
  assert.deepEqual(
    Array.from(permute([...Array(16).keys()])),
    [
      2089692522, 1915416326, 492489469, 252860357, 1061679923, 82240369, 1810169820, 1585792269, 1096226960,
      1569781184, 1452705076, 2081290613, 1344369360, 1949099839, 544415199, 892194947,
    ],
  );
  assert.deepEqual(
    Array.from(compress(new Array(8).fill(0), new Array(8).fill(0))),
    [1194359470, 20586639, 1240637140, 1730441233, 2130651597, 2003319866, 1017798662, 222976322],
  );
  assert.deepEqual(Array.from(permute(new Array(16).fill(0))), derived.perm16_of_zero_state);
});

test("sponge and compression consistency vectors", () => {
  for (const s of derived.padding_free_sponge_16_8_8) assert.deepEqual(Array.from(sponge(s.input)), s.output);
  for (const c of derived.truncated_permutation_2_8_16)
    assert.deepEqual(Array.from(compress(c.left, c.right)), c.output);
});

test("linear layers equal their dense matrix forms (spec §3)", () => {
  const V = poseidon2Constants.INTERNAL_DIAGONAL;
  const felt = fc.integer({ min: 0, max: P - 1 });
  fc.assert(
    fc.property(fc.array(felt, { minLength: 16, maxLength: 16 }), (s) => {
      const e = s.slice();
      externalLinearLayer(e);
      const i = s.slice();
      internalLinearLayer(i);
      for (let z = 0; z < 16; z++) {
        let accE = 0,
          accI = 0;
        for (let x = 0; x < 16; x++) {
          const me = M4[z % 4]![x % 4]! * (Math.floor(z / 4) === Math.floor(x / 4) ? 2 : 1);
          accE = add(accE, mul(me, s[x]!));
          accI = add(accI, s[x]!); // J: all-ones part
        }
        accI = add(accI, mul(V[z]!, s[z]!));
        assert.equal(e[z], accE);
        assert.equal(i[z], accI);
      }
    }),
    { numRuns: 200 },
  );
});

test("permute rejects bad states with typed errors", () => {
  assert.throws(
    () => permute([1, 2, 3]),
    (e: unknown) => e instanceof FieldError && e.code === "BAD_LENGTH",
  );
  assert.throws(
    () => permute([...new Array(15).fill(0), P]),
    (e: unknown) => e instanceof FieldError && e.code === "NON_CANONICAL" && e.message.includes("state[15]"),
  );
});
