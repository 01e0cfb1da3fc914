import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, type Ext } from "../../src/field/extension.js";
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
  type WhirBoundBlocksClaim,
} from "../../src/pcs/index.js";
import { MAX_CLAIM_BLOCKS } from "../../src/pcs/checks.js";
import { blockWeightAt, blocksWeightAt } from "../../src/pcs/multilinear.js";
import { absorbClaims } from "../../src/pcs/transcript-steps.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { blocksValue, randomEvaluations, randomPoint, randomWeights, twoClaims } from "./support.js";

/** Blocks of 2^b lanes at block indices q, random weights. */
function boundClaim(evals: Uint32Array, places: readonly [number, number][], seed: number): WhirBoundBlocksClaim {
  const blocks = places.map(([b, q], s) => ({ offset: q << b, weights: randomWeights(1 << b, seed + s) }));
  return { blocks, value: blocksValue(evals, blocks) };
}

function bump(e: Ext): Ext {
  return [(e[0] + 1) % P, e[1], e[2], e[3]];
}

test("blocksWeightAt (eq tables shared per length) is the sum of blockWeightAt over the blocks", () => {
  for (const [m, places] of [
    [1, [[0, 1]]],
    [
      4,
      [
        [2, 1],
        [0, 0],
        [2, 3],
        [1, 1],
      ],
    ],
    [
      7,
      [
        [5, 2],
        [3, 1],
        [3, 5],
        [0, 127],
        [7, 0],
      ],
    ],
    [
      9,
      [
        [8, 1],
        [5, 3],
        [3, 1],
        [2, 1],
      ],
    ],
  ] as [number, [number, number][]][]) {
    const blocks = places.map(([b, q], s) => ({ offset: q << b, weights: randomWeights(1 << b, 31 * m + s) }));
    const point = randomPoint(m, 200 + m);
    let want: Ext = [0, 0, 0, 0];
    for (const b of blocks) want = extAdd(want, blockWeightAt(b.offset, b.weights, point));
    assert.deepEqual(blocksWeightAt(blocks, point), want, `m = ${m}`);
  }
});

test("bound-blocks claims are proved and verified beside point and block claims, plain and hiding; a false value or another place is rejected", () => {
  for (const m of [3, 8, 12]) {
    const evals = randomEvaluations(m, 600 + m);
    const committed = whirCommit(evals);
    const commitment = decodeWhirCommitment(encodeWhirCommitment(committed.commitment));
    const b = Math.min(4, m - 1);
    const claims: WhirAnyClaim[] = [
      ...twoClaims(evals, m, m),
      boundClaim(
        evals,
        [
          [b, 1],
          [b - 1, 0],
          [0, (1 << m) - 1],
        ],
        m,
      ),
      boundClaim(evals, [[m, 0]], m + 9),
    ];
    const proof = whirOpen(committed, claims);
    assert.deepEqual(whirVerify(commitment, claims, proof), { ok: true }, `m = ${m}`);
    const wrong = claims.map((c, i) => (i === 2 ? { ...c, value: bump(c.value) } : c));
    assert.equal(whirVerify(commitment, wrong, whirOpen(committed, wrong)).ok, false, `m = ${m}: a false value`);
    const moved = claims.map((c, i) =>
      i === 2 && "blocks" in c ? { blocks: [{ ...c.blocks[0]!, offset: 0 }, ...c.blocks.slice(1)], value: c.value } : c,
    );
    assert.equal(whirVerify(commitment, moved, proof).ok, false, `m = ${m}: a block moved`);
    const reweighed = claims.map((c, i) =>
      i === 2 && "blocks" in c
        ? {
            blocks: [c.blocks[0]!, { ...c.blocks[1]!, weights: randomWeights(1 << (b - 1), 5) }, c.blocks[2]!],
            value: c.value,
          }
        : c,
    );
    assert.equal(whirVerify(commitment, reweighed, proof).ok, false, `m = ${m}: other weights`);
  }
  const m = 12;
  const f = randomEvaluations(m, 71);
  const hiding = whirCommitHiding(f, { random: whirSeededRandomSource("bound blocks") });
  const hc = decodeWhirHidingCommitment(encodeWhirHidingCommitment(hiding.commitment));
  const claims: WhirAnyClaim[] = [
    boundClaim(
      f,
      [
        [8, 3],
        [5, 1],
        [2, 1],
      ],
      40,
    ),
    ...twoClaims(f, m, 41),
  ];
  const proof = whirOpenHiding(hiding, claims);
  assert.deepEqual(whirVerifyHiding(hc, claims, proof), { ok: true }, "hiding");
  const wrong = claims.map((c, i) => (i === 0 ? { ...c, value: bump(c.value) } : c));
  assert.equal(whirVerifyHiding(hc, wrong, proof).ok, false, "hiding: a false value");
});

test("the transcript binds a bound-blocks claim's places and value but not its weights (pcs §4.8)", () => {
  const state = (claims: readonly WhirAnyClaim[]): Ext => {
    const t = DuplexChallenger.withDomain("bound-blocks test");
    absorbClaims(t, claims);
    return t.sampleExt();
  };
  const w = randomWeights(8, 1);
  const base: WhirBoundBlocksClaim = { blocks: [{ offset: 8, weights: w }], value: [1, 2, 3, 4] };
  const same = state([base]);
  assert.deepEqual(state([{ ...base, blocks: [{ offset: 8, weights: randomWeights(8, 2) }] }]), same, "weights");
  for (const [what, other] of [
    ["the offset", { ...base, blocks: [{ offset: 16, weights: w }] }],
    ["the length", { ...base, blocks: [{ offset: 8, weights: randomWeights(4, 1) }] }],
    ["the value", { ...base, value: [1, 2, 3, 5] }],
    ["a second block", { ...base, blocks: [...base.blocks, { offset: 0, weights: w }] }],
    ["a block claim", { block: base.blocks[0]!, value: base.value }],
  ] as [string, WhirAnyClaim][])
    assert.notDeepEqual(state([other]), same, what);
});

test("a bound-blocks claim is absorbed as the claim count, S, each block's b and o/2^b, then the value (pcs §6.2 step 1)", () => {
  const claim: WhirBoundBlocksClaim = {
    blocks: [
      { offset: 48, weights: randomWeights(16, 3) },
      { offset: 8, weights: randomWeights(4, 4) },
    ],
    value: [5, 6, 7, 8],
  };
  const t = DuplexChallenger.withDomain("bound-blocks absorb");
  absorbClaims(t, [claim]);
  const want = DuplexChallenger.withDomain("bound-blocks absorb");
  for (const x of [1, 2, 4, 3, 2, 2]) want.observe(x);
  want.observeExt([5, 6, 7, 8]);
  assert.deepEqual(t.sampleExt(), want.sampleExt());
});

test("malformed bound-blocks claims are refused (PCS_BAD_CLAIM) by the prover and the verifier", () => {
  const m = 5;
  const evals = randomEvaluations(m, 13);
  const committed = whirCommit(evals);
  const good = boundClaim(
    evals,
    [
      [2, 1],
      [1, 0],
    ],
    3,
  );
  const proof = whirOpen(committed, [good]);
  const one = good.blocks[0]!;
  const bad: [string, unknown][] = [
    ["not an array", { blocks: one, value: good.value }],
    ["no blocks", { blocks: [], value: good.value }],
    ["too many blocks", { blocks: Array.from({ length: MAX_CLAIM_BLOCKS + 1 }, () => one), value: good.value }],
    ["an unaligned block", { blocks: [{ offset: 2, weights: one.weights }], value: good.value }],
    ["a block past the end", { blocks: [{ offset: 32, weights: one.weights }], value: good.value }],
    [
      "a weight not canonical",
      { blocks: [{ offset: 0, weights: [[0, P, 0, 0], ...one.weights.slice(1)] }], value: good.value },
    ],
    ["blocks and a block", { ...good, block: one }],
    ["blocks and a point", { ...good, point: randomPoint(m, 1) }],
    ["a value not canonical", { ...good, value: [P, 0, 0, 0] }],
  ];
  for (const [what, claim] of bad) {
    assert.throws(
      () => whirOpen(committed, [claim as WhirAnyClaim]),
      (e: unknown) => (e as { code?: string }).code === "PCS_BAD_CLAIM",
      what,
    );
    const v = whirVerify(committed.commitment, [claim as WhirAnyClaim], proof);
    assert.equal(v.ok ? "ok" : v.code, "PCS_BAD_CLAIM", what);
  }
  assert.deepEqual(whirVerify(committed.commitment, [good], proof), { ok: true });
  const many = { blocks: Array.from({ length: MAX_CLAIM_BLOCKS }, () => one), value: good.value };
  const v = whirVerify(committed.commitment, [many], whirOpen(committed, [good]));
  assert.notEqual(v.ok ? "ok" : v.code, "PCS_BAD_CLAIM", "64 blocks are a well-formed claim");
});
