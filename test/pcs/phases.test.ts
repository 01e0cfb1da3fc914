import { test } from "node:test";
import assert from "node:assert/strict";
import { extRandom } from "../../src/field/extension.js";
import { whirCommit, whirOpen, whirVerify } from "../../src/pcs/index.js";
import { evaluateCoefficients, evaluationsToCoefficients, liftToExtension } from "../../src/pcs/multilinear.js";
import { phase, withPhaseTimer, type PcsPhase } from "../../src/pcs/phases.js";

test("pcs phase timer: reports the prover's phases only inside withPhaseTimer, and leaves the proof bytes unchanged", () => {
  const m = 8;
  const evals = Uint32Array.from({ length: 1 << m }, (_, i) => (i * 7919 + 13) % 2_130_706_433);
  const coeffs = liftToExtension(evals);
  evaluationsToCoefficients(coeffs, 4);
  const point = Array.from({ length: m }, () => extRandom());
  const claims = [{ point, value: evaluateCoefficients(coeffs, point) }];
  const seen = new Map<PcsPhase, number>();
  const timed = withPhaseTimer(
    (name, ms) => {
      assert.ok(ms >= 0);
      seen.set(name, (seen.get(name) ?? 0) + 1);
    },
    () => {
      const c = whirCommit(evals, { set: "cb100-r4" });
      return { c, proof: whirOpen(c, claims) };
    },
  );
  for (const name of [
    "encode",
    "merkle",
    "sumcheck",
    "fold",
    "weights",
    "evaluate",
    "transcript",
    "input",
    "queries",
  ] as const)
    assert.ok((seen.get(name) ?? 0) > 0, `phase ${name} reported`);
  const count = [...seen.values()].reduce((a, b) => a + b, 0);
  const plain = whirCommit(evals, { set: "cb100-r4" });
  assert.deepEqual(whirOpen(plain, claims), timed.proof);
  assert.equal(
    [...seen.values()].reduce((a, b) => a + b, 0),
    count,
    "nothing reported outside withPhaseTimer",
  );
  assert.deepEqual(whirVerify(timed.c.commitment, claims, timed.proof), { ok: true });
  assert.equal(
    phase("encode", () => 42),
    42,
  );
});
