import { test } from "node:test";
import assert from "node:assert/strict";
import { DuplexChallenger, PROOF_DOMAIN_TAG } from "../../src/transcript/index.js";
import { permute } from "../../src/hash/index.js";
import { FieldError, P } from "../../src/field/index.js";
import { vectors } from "../support/vectors.js";

test('first challenge of new("statesync-gkr/v0.1") (spec §18)', () => {
  assert.equal(new TextEncoder().encode(PROOF_DOMAIN_TAG).length, 18);
  assert.deepEqual(
    DuplexChallenger.withDomain(PROOF_DOMAIN_TAG).sampleExt(),
    [734443161, 199066737, 984464474, 1243658086],
  );
});

test("v0.4.x duplex challenger transcript (consistency vector)", () => {
  const ops = vectors.derived_vectors_NOT_from_plonky3.duplex_challenger_16_8["v0.4.x_semantics_with_v0.4.x_constants"];
  const c = new DuplexChallenger();
  for (const op of ops) {
    switch (op.op) {
      case "sample":
        assert.equal(c.sample(), op.result);
        break;
      case "observe_each":
        c.observeMany(op.values);
        break;
      case "sample_algebra_element_deg4":
        assert.deepEqual(c.sampleExt(), op.result_coeffs_c0_to_c3);
        break;
      case "sample_bits":
        assert.equal(c.sampleBits(op.bits), op.result);
        break;
      case "observe_algebra_element_deg4":
        c.observeExt(op.coeffs_c0_to_c3);
        break;
      default:
        assert.fail(`unknown op ${op.op}`);
    }
  }
});

test("semantics: outputs pop from the end; a full buffer duplexes inside observe; overwrite keeps lanes", () => {
  const c = new DuplexChallenger();
  c.observeMany([1, 2, 3]);
  const s = permute([1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.equal(c.sample(), s[7]);
  assert.equal(c.sample(), s[6]);
  // Observe 2 more: lanes 2..7 keep the previous permutation output.
  c.observeMany([9, 10]);
  const s2 = permute([9, 10, ...Array.from(s.slice(2))]);
  assert.deepEqual(c.sampleExt(), [s2[7], s2[6], s2[5], s2[4]]);
  // Eight observations duplex immediately; the next sample pops without permuting again.
  const d = new DuplexChallenger();
  d.observeMany([1, 2, 3, 4, 5, 6, 7, 8]);
  const s3 = permute([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.equal(d.sample(), s3[7]);
  // A ninth sample squeezes without overwriting.
  const e = new DuplexChallenger();
  const first = permute(new Array(16).fill(0));
  for (let i = 7; i >= 0; i--) assert.equal(e.sample(), first[i]);
  assert.equal(e.sample(), permute(first)[7]);
});

test("clone is independent", () => {
  const a = DuplexChallenger.withDomain("x");
  const b = a.clone();
  assert.equal(a.sample(), b.sample());
  a.observe(5);
  assert.notEqual(a.sample(), b.sample());
});

test("observe validates; sampleBits validates", () => {
  const c = new DuplexChallenger();
  assert.throws(
    () => c.observe(P),
    (e: unknown) => e instanceof FieldError && e.code === "NON_CANONICAL",
  );
  assert.throws(() => c.observeDigest([1, 2]), FieldError);
  assert.throws(() => c.sampleBits(31), FieldError);
  assert.ok(c.sampleBits(10) < 1024);
});
