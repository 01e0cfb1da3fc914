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

test("pcs phase timer: a phase inside another is reported on its own, and the outer one without it", () => {
  const busy = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  const reports: [PcsPhase, number][] = [];
  let outerWall = 0;
  withPhaseTimer(
    (name, ms) => reports.push([name, ms]),
    () => {
      const t0 = performance.now();
      phase("merkle", () => {
        busy(5);
        phase("input", () => busy(30));
        busy(5);
      });
      outerWall = performance.now() - t0;
    },
  );
  assert.deepEqual(
    reports.map(([name]) => name),
    ["input", "merkle"],
  );
  const [[, inner], [, outer]] = reports as [[PcsPhase, number], [PcsPhase, number]];
  assert.ok(inner >= 30, `inner ${inner}`);
  assert.ok(outer >= 10 && outer < outerWall - 29, `outer ${outer} of ${outerWall}`);
  assert.ok(inner + outer <= outerWall + 1, "the two add up to no more than the outer phase's wall time");
});
