import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/index.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";
import { permuteFast } from "../../src/hash/fast-permutation.js";
import { DuplexChallenger, PROOF_DOMAIN_TAG } from "../../src/transcript/index.js";

/** One transcript operation with its arguments. */
type Op =
  | { op: "observe"; x: number }
  | { op: "observeMany"; xs: number[] }
  | { op: "observeExt"; e: [number, number, number, number] }
  | { op: "sample" }
  | { op: "sampleExt" }
  | { op: "sampleBits"; bits: number }
  | { op: "clone" };

const value = fc.oneof(fc.integer({ min: 0, max: P - 1 }), fc.constantFrom(0, 1, P - 1, P - 2, 2 ** 30));
const op: fc.Arbitrary<Op> = fc.oneof(
  value.map((x) => ({ op: "observe" as const, x })),
  fc.array(value, { maxLength: 20 }).map((xs) => ({ op: "observeMany" as const, xs })),
  fc.tuple(value, value, value, value).map((e) => ({ op: "observeExt" as const, e })),
  fc.constant({ op: "sample" as const }),
  fc.constant({ op: "sampleExt" as const }),
  fc.integer({ min: 0, max: 30 }).map((bits) => ({ op: "sampleBits" as const, bits })),
  fc.constant({ op: "clone" as const }),
);

/** Applies the ops and returns every output (samples), switching to a clone where asked. */
function run(start: DuplexChallenger, ops: readonly Op[]): unknown[] {
  let c = start;
  const out: unknown[] = [];
  for (const o of ops) {
    switch (o.op) {
      case "observe":
        c.observe(o.x);
        break;
      case "observeMany":
        c.observeMany(o.xs);
        break;
      case "observeExt":
        c.observeExt(o.e);
        break;
      case "sample":
        out.push(c.sample());
        break;
      case "sampleExt":
        out.push(c.sampleExt());
        break;
      case "sampleBits":
        out.push(c.sampleBits(o.bits));
        break;
      case "clone":
        c = c.clone();
        break;
    }
  }
  out.push(c.sampleExt());
  return out;
}

test("default challenger uses the fast permutation and gives the reference bytes (§18 first challenge)", () => {
  assert.deepEqual(
    DuplexChallenger.withDomain(PROOF_DOMAIN_TAG).sampleExt(),
    [734443161, 199066737, 984464474, 1243658086],
  );
  assert.deepEqual(
    DuplexChallenger.withDomain(PROOF_DOMAIN_TAG, permuteInPlace).sampleExt(),
    [734443161, 199066737, 984464474, 1243658086],
  );
});

test("differential: random observe/sample sequences give the same outputs with the fast and the reference permutation", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.array(op, { maxLength: 60 }), (tag, ops) => {
      const fast = run(DuplexChallenger.withDomain(tag, permuteFast), ops);
      const ref = run(DuplexChallenger.withDomain(tag, permuteInPlace), ops);
      assert.deepEqual(fast, ref);
    }),
    { numRuns: 300 },
  );
});

test("differential: a long transcript (thousands of permutations, sumcheck-like schedule)", () => {
  const a = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
  const b = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG, permuteInPlace);
  let x = 12345;
  for (let round = 0; round < 1500; round++) {
    for (let k = 0; k < 5; k++) {
      x = (x * 48271 + round) % P;
      const e = [x, (x + 1) % P, (x + 2) % P, (x + 3) % P] as const;
      a.observeExt(e);
      b.observeExt(e);
    }
    assert.deepEqual(a.sampleExt(), b.sampleExt(), `round ${round}`);
  }
});

test("a clone keeps the permutation of its original", () => {
  const calls: number[] = [];
  const counting = (s: Uint32Array): void => {
    calls.push(1);
    permuteInPlace(s);
  };
  const c = new DuplexChallenger(counting);
  c.observe(1);
  const d = c.clone();
  d.sample();
  assert.equal(calls.length, 1);
  assert.equal(
    d.sample(),
    (() => {
      const r = new DuplexChallenger(permuteInPlace);
      r.observe(1);
      r.sample();
      return r.sample();
    })(),
  );
});
