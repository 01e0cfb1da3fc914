import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, extMul, extTimesXPower, type Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import {
  decodeWhirCommitment,
  decodeWhirHidingCommitment,
  encodeWhirCommitment,
  encodeWhirHidingCommitment,
  whirCommit,
  whirCommitHiding,
  whirOpen,
  whirOpenHiding,
  whirSeededRandomSource,
  whirVerify,
  whirVerifyHiding,
  type WhirAnyClaim,
  type WhirWeightBlock,
} from "../../src/pcs/index.js";
import { blockLanes, blocksWeightAt, laneWeights } from "../../src/pcs/multilinear.js";
import { absorbClaims } from "../../src/pcs/transcript-steps.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { blocksValue, randomEvaluations, randomPoint, randomWeights, twoClaims } from "./support.js";

/** An extension-unit block of 2^b lanes (2^(b−2) weights) at block index q. */
function extBlock(b: number, q: number, seed: number): WhirWeightBlock {
  return { offset: q << b, weights: randomWeights(1 << (b - 2), seed), unit: "ext" };
}

/** The same block with one weight per lane. */
function expanded(blk: WhirWeightBlock): WhirWeightBlock {
  return { offset: blk.offset, weights: laneWeights(blk) };
}

function bump(e: Ext): Ext {
  return [(e[0] + 1) % P, e[1], e[2], e[3]];
}

test("an extension-unit block weighs each extension element of four lanes by its weight (pcs §4.8)", () => {
  const evals = randomEvaluations(6, 3);
  const blk = extBlock(4, 2, 9);
  assert.equal(blockLanes(blk), 16);
  const lanes = laneWeights(blk);
  assert.equal(lanes.length, 16);
  let want: Ext = [0, 0, 0, 0];
  blk.weights.forEach((w, c) => {
    for (let t = 0; t < 4; t++) assert.deepEqual(lanes[4 * c + t], extTimesXPower(w, t), `lane ${4 * c + t}`);
    const at = blk.offset + 4 * c;
    const element: Ext = [evals[at]!, evals[at + 1]!, evals[at + 2]!, evals[at + 3]!];
    want = extAdd(want, extMul(w, element));
  });
  assert.deepEqual(blocksValue(evals, [blk]), want);
  assert.equal(laneWeights({ offset: 0, weights: blk.weights }), blk.weights, "a lane block is its own expansion");
});

test("extTimesXPower is the product by X^t in K = F[X]/(X^4 − 3)", () => {
  const a = randomPoint(1, 77)[0]!;
  for (let t = 0; t < 4; t++) {
    const x: [number, number, number, number] = [0, 0, 0, 0];
    x[t] = 1;
    assert.deepEqual(extTimesXPower(a, t), extMul(a, x), `t = ${t}`);
  }
});

test("blocksWeightAt evaluates extension-unit blocks as their lane expansions, sharing tables with lane blocks", () => {
  for (const [m, places] of [
    [2, [[2, 0]]],
    [
      5,
      [
        [3, 1],
        [2, 0],
        [5, 0],
        [2, 7],
      ],
    ],
    [
      9,
      [
        [8, 1],
        [6, 1],
        [2, 1],
        [4, 3],
      ],
    ],
  ] as [number, [number, number][]][]) {
    const point = randomPoint(m, 500 + m);
    const blocks = places.map(([b, q], s) => extBlock(b, q, 17 * m + s));
    const lanes = blocks.map(expanded);
    const mixed = [...blocks, { offset: 0, weights: randomWeights(4, 1) }, { offset: 0, weights: randomWeights(1, 2) }];
    const tables = new Map<number, Uint32Array>();
    assert.deepEqual(blocksWeightAt(blocks, point, tables), blocksWeightAt(lanes, point), `m = ${m}`);
    assert.deepEqual(
      blocksWeightAt(mixed, point, tables),
      blocksWeightAt(mixed.map(expanded), point),
      `m = ${m}: mixed`,
    );
  }
});

test("the transcript absorbs an extension-unit block exactly as its lane expansion (pcs §6.2)", () => {
  const state = (claims: readonly WhirAnyClaim[]): Ext => {
    const t = DuplexChallenger.withDomain("ext-unit test");
    absorbClaims(t, claims);
    return t.sampleExt();
  };
  const blk = extBlock(3, 1, 4);
  const value: Ext = [1, 2, 3, 4];
  assert.deepEqual(state([{ blocks: [blk], value }]), state([{ blocks: [expanded(blk)], value }]), "bound blocks");
  assert.deepEqual(state([{ block: blk, value }]), state([{ block: expanded(blk), value }]), "a block claim");
  assert.notDeepEqual(
    state([{ blocks: [blk], value }]),
    state([{ blocks: [{ ...blk, unit: "lane" }], value }]),
    "the unit changes the lanes covered",
  );
});

test("extension-unit claims are proved and verified, plain and hiding; a false value, a move or other weights are rejected", () => {
  const m = 10;
  const evals = randomEvaluations(m, 5);
  const committed = whirCommit(evals);
  const commitment = decodeWhirCommitment(encodeWhirCommitment(committed.commitment));
  const blocks = [extBlock(6, 2, 1), extBlock(3, 1, 2), extBlock(2, 255, 3)];
  const single = extBlock(5, 7, 4);
  const claims: WhirAnyClaim[] = [
    { blocks, value: blocksValue(evals, blocks) },
    { block: single, value: blocksValue(evals, [single]) },
    ...twoClaims(evals, m, 6),
  ];
  const proof = whirOpen(committed, claims);
  assert.deepEqual(whirVerify(commitment, claims, proof), { ok: true });
  const lanes: WhirAnyClaim[] = [
    { blocks: blocks.map(expanded), value: claims[0]!.value },
    { block: expanded(single), value: claims[1]!.value },
    ...claims.slice(2),
  ];
  assert.deepEqual(whirVerify(commitment, lanes, proof), { ok: true }, "the lane expansion verifies the same proof");
  const swap = (i: number, c: WhirAnyClaim): WhirAnyClaim[] => claims.map((x, j) => (j === i ? c : x));
  for (const [what, bad] of [
    ["a false value", swap(0, { blocks, value: bump(claims[0]!.value) })],
    ["a moved block", swap(0, { blocks: [{ ...blocks[0]!, offset: 0 }, ...blocks.slice(1)], value: claims[0]!.value })],
    ["other weights", swap(0, { blocks: [blocks[0]!, extBlock(3, 1, 99), blocks[2]!], value: claims[0]!.value })],
    ["lanes instead of elements", swap(1, { block: { ...single, unit: "lane" }, value: claims[1]!.value })],
  ] as [string, WhirAnyClaim[]][])
    assert.equal(whirVerify(commitment, bad, proof).ok, false, what);

  const f = randomEvaluations(12, 8);
  const hiding = whirCommitHiding(f, { random: whirSeededRandomSource("ext-unit blocks") });
  const hc = decodeWhirHidingCommitment(encodeWhirHidingCommitment(hiding.commitment));
  const hidden: WhirAnyClaim[] = [{ blocks, value: blocksValue(f, blocks) }, ...twoClaims(f, 12, 9)];
  const hp = whirOpenHiding(hiding, hidden);
  assert.deepEqual(whirVerifyHiding(hc, hidden, hp), { ok: true }, "hiding");
  assert.equal(
    whirVerifyHiding(hc, [{ blocks, value: bump(hidden[0]!.value) }, ...hidden.slice(1)], hp).ok,
    false,
    "hiding: a false value",
  );
});

test("malformed extension-unit blocks are refused (PCS_BAD_CLAIM) by the prover and the verifier", () => {
  const m = 5;
  const evals = randomEvaluations(m, 13);
  const committed = whirCommit(evals);
  const good = extBlock(3, 1, 3);
  const claim = (blk: unknown): unknown => ({ blocks: [blk], value: [0, 0, 0, 0] });
  const proof = whirOpen(committed, [{ blocks: [good], value: blocksValue(evals, [good]) }]);
  for (const [what, bad] of [
    ["an unknown unit", claim({ ...good, unit: "bytes" })],
    ["three weights (12 lanes)", claim({ ...good, weights: randomWeights(3, 1) })],
    ["an offset not a multiple of the block's lanes", claim({ ...good, offset: 4 })],
    ["a block past the end", claim({ ...good, offset: 32 })],
    ["more lanes than the polynomial", claim({ offset: 0, weights: randomWeights(16, 1), unit: "ext" })],
  ] as [string, unknown][]) {
    assert.throws(
      () => whirOpen(committed, [bad as WhirAnyClaim]),
      (e: unknown) => (e as { code?: string }).code === "PCS_BAD_CLAIM",
      what,
    );
    const v = whirVerify(committed.commitment, [bad as WhirAnyClaim], proof);
    assert.equal(v.ok ? "ok" : v.code, "PCS_BAD_CLAIM", what);
  }
});
