import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, extMul, type Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import {
  decodeWhirCommitment,
  encodeWhirCommitment,
  whirCommit,
  whirOpen,
  whirVerify,
  type WhirAnyClaim,
} from "../../src/pcs/index.js";
import { blockWeightAt, eqEval } from "../../src/pcs/multilinear.js";
import { blockClaim, randomEvaluations, randomPoint, randomWeights, twoClaims } from "./support.js";

function bump(e: Ext): Ext {
  return [(e[0] + 1) % P, e[1], e[2], e[3]];
}

test("blockWeightAt is the block weight's MLE by its definition Σ_i weights[i]·eq(offset + i, point)", () => {
  for (const [m, b, q] of [
    [1, 0, 1],
    [3, 3, 0],
    [5, 2, 5],
    [6, 0, 37],
    [7, 4, 3],
  ] as const) {
    const weights = randomWeights(1 << b, 10 * m + b);
    const point = randomPoint(m, 100 + m);
    let want: Ext = [0, 0, 0, 0];
    weights.forEach((w, i) => {
      const index = (q << b) + i;
      const bits = Array.from({ length: m }, (_, j) => [(index >> j) & 1, 0, 0, 0] as Ext);
      want = extAdd(want, extMul(w, eqEval(bits, point)));
    });
    assert.deepEqual(blockWeightAt(q << b, weights, point), want, `m = ${m}, b = ${b}, block ${q}`);
  }
});

test("openings of block claims, alone and beside point claims, are accepted; a wrong value is rejected", () => {
  for (const m of [2, 6, 11]) {
    const evals = randomEvaluations(m, 500 + m);
    const committed = whirCommit(evals);
    const commitment = decodeWhirCommitment(encodeWhirCommitment(committed.commitment));
    const b = Math.min(3, m - 1);
    const claims: WhirAnyClaim[] = [
      blockClaim(evals, b, 1, m),
      ...twoClaims(evals, m, m),
      blockClaim(evals, 0, (1 << m) - 1, m + 1),
    ];
    assert.deepEqual(whirVerify(commitment, claims, whirOpen(committed, claims)), { ok: true }, `m = ${m}`);
    const alone = [blockClaim(evals, m, 0, m + 2)];
    assert.deepEqual(whirVerify(commitment, alone, whirOpen(committed, alone)), { ok: true }, `m = ${m}, whole`);
    // A false block claim: the prover's proof for it does not verify.
    const wrong = claims.map((c, i) => (i === 0 ? { ...c, value: bump(c.value) } : c));
    const v = whirVerify(commitment, wrong, whirOpen(committed, wrong));
    assert.equal(v.ok, false, `m = ${m}: a false block claim`);
    // The true proof does not verify a claim moved to another block.
    const proof = whirOpen(committed, claims);
    const moved = claims.map((c, i) =>
      i === 0 && "block" in c ? { block: { ...c.block, offset: 0 }, value: c.value } : c,
    );
    assert.equal(whirVerify(commitment, moved, proof).ok, false, `m = ${m}: another block`);
  }
});

test("malformed block claims are refused before anything is proved or verified (PCS_BAD_CLAIM)", () => {
  const m = 4;
  const evals = randomEvaluations(m, 9);
  const committed = whirCommit(evals);
  const good = blockClaim(evals, 2, 1, 3);
  const bad: [string, unknown][] = [
    ["length not a power of two", { block: { offset: 0, weights: randomWeights(3, 1) }, value: good.value }],
    ["no weights", { block: { offset: 0, weights: [] }, value: good.value }],
    ["unaligned offset", { block: { offset: 2, weights: good.block.weights }, value: good.value }],
    ["past the end", { block: { offset: 16, weights: good.block.weights }, value: good.value }],
    ["longer than the polynomial", { block: { offset: 0, weights: randomWeights(32, 1) }, value: good.value }],
    [
      "a weight not canonical",
      { block: { offset: 0, weights: [[P, 0, 0, 0], ...good.block.weights.slice(1)] }, value: good.value },
    ],
    ["both a point and a block", { ...good, point: randomPoint(m, 1) }],
  ];
  for (const [what, claim] of bad) {
    assert.throws(
      () => whirOpen(committed, [claim as WhirAnyClaim]),
      (e: unknown) => (e as { code?: string }).code === "PCS_BAD_CLAIM",
      what,
    );
    const v = whirVerify(committed.commitment, [claim as WhirAnyClaim], whirOpen(committed, [good]));
    assert.equal(v.ok ? "ok" : v.code, "PCS_BAD_CLAIM", what);
  }
});

test("a point claim that carries `block: undefined` is a point claim for the checks, the prover, the verifier and the transcript", () => {
  const m = 5;
  const evals = randomEvaluations(m, 77);
  const committed = whirCommit(evals);
  const plain = twoClaims(evals, m, 77);
  const carrying = plain.map((c) => ({ ...c, block: undefined }) as unknown as WhirAnyClaim);
  const proof = whirOpen(committed, carrying);
  assert.deepEqual(proof, whirOpen(committed, plain), "the same proof bytes as the plain claims");
  assert.deepEqual(whirVerify(committed.commitment, carrying, proof), { ok: true });
});
