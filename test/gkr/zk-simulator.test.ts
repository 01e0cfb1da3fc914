/**
 * Evidence that the zero-knowledge GKR hides the witness (docs/profile-v3.md §11.6): a simulator
 * that holds no witness produces accepting interactive transcripts, and over many seeds the real
 * prover's messages (with the challenges fixed: an honest verifier) are distributed as the
 * simulator's — uniformly — at every position, while a prover without masks is caught.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Ext } from "../../src/field/extension.js";
import { inputBitsOf } from "../../src/gkr/circuit.js";
import { CopiesWiring } from "../../src/gkr/structured/copies.js";
import { evaluateStructuredCopies } from "../../src/gkr/structured/dp-prover.js";
import { drawLayerMasks, type ZkLayerMasks } from "../../src/gkr/zk/masks.js";
import type { ZkGkrProof } from "../../src/gkr/zk/proof.js";
import { proveZkCopiesGkr } from "../../src/gkr/zk/prover.js";
import { verifyZkGkr } from "../../src/gkr/zk/verifier.js";
import { whirSeededRandomSource } from "../../src/pcs/random.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { buildV3Inputs, v3StatementOf } from "../../src/smt/v3/input.js";
import { prepareV3 } from "../../src/sync/v3/prepared.js";
import { padCommittedHalves, v3ZkVectorLayout } from "../../src/sync/v3/zk-layout.js";
import type { DuplexChallenger } from "../../src/transcript/challenger.js";
import { scriptedTranscript, seededChallenges, simulateZkGkr } from "../support/zk-simulator.js";

const prepared = prepareV3("membership", { depth: 4 });
const circuit = prepared.compiled.circuit;
const layout = prepared.compiled.layout;
const shape = prepared.shape;
const wiring = new CopiesWiring(prepared.wiring, 0, [...prepared.mulFree]);
const request = goldenFixture("membership", 4, 5n);
const inputBits = circuit.layers.map((_, i) => inputBitsOf(circuit, i));

const scripted = (seed: number) => scriptedTranscript(seededChallenges(seed)) as unknown as DuplexChallenger;

/** The real prover's layers for one seed of its randomness (the random lanes, then the masks); `masked` false: no randomness at all. */
function real(challengeSeed: number, seed: number, masked = true): ZkGkrProof {
  const input = buildV3Inputs(layout, [request], [v3StatementOf(request)]);
  const random = whirSeededRandomSource(`zk-simulator/${seed}`);
  const zero = (out: Uint32Array) => out.fill(0);
  if (masked) padCommittedHalves(v3ZkVectorLayout(layout, inputBits, 0), input, random);
  const masks: ZkLayerMasks[] = inputBits.map((s, i) => drawLayerMasks(s, i > 0, masked ? random : zero));
  const witness = evaluateStructuredCopies(circuit, 0, input);
  return proveZkCopiesGkr(circuit, 0, witness, scripted(challengeSeed), masks).proof;
}

function simulated(challengeSeed: number, seed: number): ZkGkrProof {
  return simulateZkGkr(
    shape,
    wiring,
    seededChallenges(challengeSeed),
    whirSeededRandomSource(`zk-simulator/sim/${seed}`),
  );
}

/** Every message of a proof as a list of extension elements, in transcript order. */
function messages(proof: ZkGkrProof): Ext[] {
  return proof.layers.flatMap((l) => [l.maskSum, ...l.rounds.flat(), l.evalX, l.evalY, l.maskValue]);
}

test("the simulator's transcripts, made without the witness, are accepted by the verifier with the same challenges", () => {
  for (const seed of [1, 2, 3]) {
    const v = verifyZkGkr(shape, wiring, simulated(seed, seed), scripted(seed));
    assert.ok(v.ok, v.ok ? "" : `${v.code}: ${v.reason}`);
    const r = verifyZkGkr(shape, wiring, real(seed, seed), scripted(seed));
    assert.ok(r.ok, r.ok ? "" : `${r.code}: ${r.reason}`);
  }
});

/** χ² of the low 4 bits of coordinate 0 of each message position over the runs (16 buckets, 15 degrees of freedom). */
function chiSquares(runs: readonly Ext[][]): number[] {
  const positions = runs[0]!.length;
  const expected = runs.length / 16;
  const out: number[] = [];
  for (let p = 0; p < positions; p++) {
    const counts = new Array(16).fill(0);
    for (const r of runs) counts[r[p]![0] & 15]++;
    out.push(counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0));
  }
  return out;
}

test("with the challenges fixed, every message of the real prover is uniform over 160 seeds, as the simulator's; a prover without masks is caught", () => {
  const N = 160;
  const challengeSeed = 77;
  const realRuns = Array.from({ length: N }, (_, s) => messages(real(challengeSeed, s)));
  const simRuns = Array.from({ length: N }, (_, s) => messages(simulated(challengeSeed, s)));
  assert.equal(realRuns[0]!.length, simRuns[0]!.length, "the same messages");
  // χ²(15) exceeds 70 with probability below 1e-8: a bound for thousands of positions at once (fixed seeds).
  const LIMIT = 70;
  const r = chiSquares(realRuns);
  const s = chiSquares(simRuns);
  const worst = (xs: number[]): string => {
    const at = xs.indexOf(Math.max(...xs));
    return `χ² ${xs[at]!.toFixed(1)} at position ${at} of ${xs.length}`;
  };
  assert.ok(Math.max(...r) < LIMIT, `real: ${worst(r)}`);
  assert.ok(Math.max(...s) < LIMIT, `simulated: ${worst(s)}`);
  // the mean χ² is near its expectation 15 for both: the two distributions agree
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(Math.abs(mean(r) - 15) < 1.5 && Math.abs(mean(s) - 15) < 1.5, `means ${mean(r)} ${mean(s)}`);
  // control: without masks and random lanes the messages are functions of the witness and the challenges
  const bare = Array.from({ length: 20 }, (_, seed) => messages(real(challengeSeed, seed, false)));
  const c = chiSquares(bare);
  assert.ok(c.filter((x) => x >= LIMIT).length === c.length, "every position of the unmasked prover is constant");
  // and no real message equals the unmasked prover's at its position
  assert.equal(realRuns[0]!.filter((m, i) => m[0] === bare[0]![i]![0]).length, 0);
});
