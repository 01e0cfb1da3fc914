import { test } from "node:test";
import assert from "node:assert/strict";
import type { Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import {
  decodeWhirCommitment,
  decodeWhirProof,
  encodeWhirCommitment,
  encodeWhirProof,
  releaseWhirState,
  whirCommit,
  whirCommitOn,
  whirOpen,
  whirOpenOn,
  whirParameterSets,
  whirReadCommitmentOn,
  whirVerify,
  whirVerifyOn,
  type WhirAdversary,
  type WhirClaim,
  type WhirProverState,
  type WhirSetId,
} from "../../src/pcs/index.js";
import { dropRecycledWords, recycledWords } from "../../src/memory/recycled-words.js";
import { PCS_DOMAIN_TAG } from "../../src/transcript/domains.js";
import { randomEvaluations, twoClaims, rng } from "./support.js";

const ALL_SETS = whirParameterSets().map((s) => s.id);
const everySet = { alsoAccept: ALL_SETS };

function bump(e: Ext): Ext {
  return [(e[0] + 1) % P, e[1], e[2], e[3]];
}

/** Proves on a transcript of its own with an adversary and verifies; returns the verdict. */
function forge(
  m: number,
  seed: number,
  adversary: WhirAdversary,
  set: WhirSetId = "cb100-r4",
  claimsOf = twoClaims,
): ReturnType<typeof whirVerifyOn> {
  const evals = randomEvaluations(m, seed);
  const claims = claimsOf(evals, m, seed);
  const tp = DuplexChallenger.withDomain("forgery");
  const state = whirCommitOn(tp, evals, { set });
  const proof = whirOpenOn(tp, state, claims, adversary);
  const decoded = decodeWhirProof(encodeWhirProof(proof));
  const tv = DuplexChallenger.withDomain("forgery");
  return whirVerifyOn(tv, whirReadCommitmentOn(tv, state.commitment), claims, decoded);
}

test("honest openings of two claims are accepted for m = 1..12 (default set)", () => {
  for (let m = 1; m <= 12; m++) {
    const evals = randomEvaluations(m, m);
    const committed = whirCommit(evals);
    const claims = twoClaims(evals, m, m);
    const proof = whirOpen(committed, claims);
    const commitment = decodeWhirCommitment(encodeWhirCommitment(committed.commitment));
    assert.deepEqual(whirVerify(commitment, claims, proof), { ok: true }, `m = ${m}`);
  }
});

test("honest openings are accepted under every parameter set, base and extension polynomials, one to three claims", () => {
  for (const set of ALL_SETS) {
    for (const width of [1, 4] as const) {
      for (const count of [1, 3]) {
        const m = 7 + (count % 2);
        const evals = randomEvaluations(m, 200 + count, width);
        const committed = whirCommit(evals, { set, width });
        const claims: WhirClaim[] = [...twoClaims(evals, m, 300, width), ...twoClaims(evals, m, 301, width)].slice(
          0,
          count,
        );
        const proof = whirOpen(committed, claims);
        assert.deepEqual(
          whirVerify(committed.commitment, claims, proof, everySet),
          { ok: true },
          `${set} width ${width} ${count} claims`,
        );
      }
    }
  }
});

test("a claim with a wrong value is rejected, whether the prover is honest about the rest or not", () => {
  for (const m of [1, 4, 9]) {
    const evals = randomEvaluations(m, 400 + m);
    const committed = whirCommit(evals);
    const claims = twoClaims(evals, m, 401);
    const honest = whirOpen(committed, claims);
    const wrong = [claims[0]!, { point: claims[1]!.point, value: bump(claims[1]!.value) }];
    assert.equal(whirVerify(committed.commitment, wrong, honest).ok, false, "honest proof, wrong value");
    const forged = whirOpen(committed, wrong);
    const v = whirVerify(committed.commitment, wrong, forged);
    assert.equal(v.ok, false);
    if (!v.ok) assert.equal(v.code, "PCS_FINAL_CLAIM", `m = ${m}: ${v.reason}`);
  }
});

test("forgeries: a changed round polynomial in any sumcheck round (iterations and final) is rejected", () => {
  const m = 13; // iterations of 5 and 5 variables, then a final polynomial of 3
  for (const [i, s] of [
    [0, 0],
    [0, 4],
    [1, 2],
    [2, 0],
    [2, 2],
  ] as const) {
    const v = forge(m, 500 + i * 5 + s, {
      roundPolynomial: (ii, ss, h) => (ii === i && ss === s ? [bump(h[0]), h[1]] : h),
    });
    assert.equal(v.ok, false, `iteration ${i} round ${s}`);
    if (!v.ok) assert.equal(v.code, "PCS_FINAL_CLAIM");
    const v2 = forge(m, 510 + i, { roundPolynomial: (ii, ss, h) => (ii === i && ss === s ? [h[0], bump(h[1])] : h) });
    assert.equal(v2.ok, false, `iteration ${i} round ${s}, h(2)`);
  }
});

test("forgeries: a changed out-of-domain answer of a folded function is rejected", () => {
  const v = forge(13, 600, { oodAnswers: (i, a) => (i === 0 ? [bump(a[0]!), ...a.slice(1)] : a) });
  assert.equal(v.ok, false);
  if (!v.ok) assert.equal(v.code, "PCS_FINAL_CLAIM");
});

test("forgeries: a wrong final polynomial is rejected", () => {
  for (const j of [0, 3]) {
    const v = forge(13, 700 + j, {
      finalCoefficients: (c) => {
        c[4 * j] = (c[4 * j]! + 1) % P;
        return c;
      },
    });
    assert.equal(v.ok, false);
    if (!v.ok) assert.match(v.code, /PCS_FINAL_POLYNOMIAL|PCS_FINAL_CLAIM/);
  }
});

test("forgeries: a changed opened row or Merkle sibling in any iteration is rejected", () => {
  for (const i of [0, 1]) {
    const v = forge(13, 800 + i, {
      rows: (ii, rows) => {
        if (ii === i) rows[3] = (rows[3]! + 1) % P;
      },
    });
    assert.equal(v.ok, false);
    if (!v.ok) assert.equal(v.code, "PCS_MERKLE", `rows of iteration ${i}`);
    const s = forge(13, 810 + i, {
      siblings: (ii, sib) => {
        if (ii === i) sib[0] = (sib[0]! + 1) % P;
      },
    });
    assert.equal(s.ok, false);
    if (!s.ok) assert.equal(s.code, "PCS_MERKLE", `siblings of iteration ${i}`);
  }
});

test("a proof for another commitment is rejected", () => {
  const m = 8;
  const a = randomEvaluations(m, 900);
  const b = randomEvaluations(m, 901);
  const claims = twoClaims(a, m, 902);
  const proofA = whirOpen(whirCommit(a), claims);
  const committedB = whirCommit(b);
  assert.equal(whirVerify(committedB.commitment, claims, proofA).ok, false);
});

test("a committed word far from the code is rejected over many seeds (δ = 1/2 of the codeword positions changed)", () => {
  let rejected = 0;
  const seeds = 24;
  for (let seed = 0; seed < seeds; seed++) {
    const m = 6 + (seed % 4);
    const evals = randomEvaluations(m, 1000 + seed);
    const claims = twoClaims(evals, m, 1100 + seed);
    const next = rng(1200 + seed);
    const tp = DuplexChallenger.withDomain("far");
    const state = whirCommitOn(tp, evals, {
      corruptCodeword: (rows) => {
        for (let i = 0; i < rows.length; i++) if (next() & 1) rows[i] = next();
      },
    });
    const proof = whirOpenOn(tp, state, claims);
    const tv = DuplexChallenger.withDomain("far");
    const v = whirVerifyOn(tv, whirReadCommitmentOn(tv, state.commitment), claims, proof);
    if (!v.ok) rejected++;
  }
  assert.equal(rejected, seeds);
});

test("a committed word with one corrupted value is rejected when the queries reach its row", () => {
  // m = 4 folds all 4 variables at once: 2^(4+2−4) = 4 rows, and 44 queries reach row 0 unless all 44 miss it ((3/4)^44 < 2^-18).
  let hits = 0;
  for (let seed = 0; seed < 6; seed++) {
    const m = 4;
    const evals = randomEvaluations(m, 1300 + seed);
    const claims = twoClaims(evals, m, 1400 + seed);
    const tp = DuplexChallenger.withDomain("near");
    const state = whirCommitOn(tp, evals, {
      set: "cb100-r4",
      corruptCodeword: (rows) => {
        rows[0] = (rows[0]! + 1) % P;
      },
    });
    const proof = whirOpenOn(tp, state, claims);
    const tv = DuplexChallenger.withDomain("near");
    const v = whirVerifyOn(tv, whirReadCommitmentOn(tv, state.commitment), claims, proof);
    assert.equal(proof.rounds[0]!.rowCount, 4, "every row is opened");
    if (!v.ok) hits++;
  }
  assert.equal(hits, 6);
});

test("the verifier refuses sets weaker than it accepts, and a proof naming another set than its commitment", () => {
  const m = 6;
  const evals = randomEvaluations(m, 1500);
  const claims = twoClaims(evals, m, 1501);
  const weak = whirCommit(evals, { set: "cb90-r4" });
  const proof = whirOpen(weak, claims);
  const v = whirVerify(weak.commitment, claims, proof);
  assert.equal(v.ok, false);
  if (!v.ok) assert.equal(v.code, "PCS_SET_NOT_ACCEPTED");
  assert.deepEqual(whirVerify(weak.commitment, claims, proof, { alsoAccept: ["cb90-r4"] }), { ok: true });
  const conj = whirCommit(evals, { set: "cb100-r4" });
  const pv = whirVerify(conj.commitment, claims, whirOpen(conj, claims), { accept: "provable" });
  assert.equal(pv.ok, false);
  if (!pv.ok) assert.equal(pv.code, "PCS_SET_NOT_ACCEPTED");
  const ud = whirCommit(evals, { set: "ud100-r4" });
  assert.deepEqual(whirVerify(ud.commitment, claims, whirOpen(ud, claims), { accept: "provable" }), { ok: true });
  // The provable default (12 bits of query grinding) is accepted by both regimes without being named.
  const q12 = whirCommit(evals, { set: "ud100-r4-s4-l24-f6-q12" });
  const q12Proof = whirOpen(q12, claims);
  assert.deepEqual(whirVerify(q12.commitment, claims, q12Proof, { accept: "provable" }), { ok: true });
  assert.deepEqual(whirVerify(q12.commitment, claims, q12Proof), { ok: true });
  const mixed = whirVerify(conj.commitment, claims, whirOpen(ud, claims));
  assert.equal(mixed.ok, false);
  if (!mixed.ok) assert.equal(mixed.code, "PCS_SET_NOT_ACCEPTED");
});

test("bad input is refused with typed errors before any work", () => {
  assert.throws(() => whirCommit(new Uint32Array(3)), { code: "PCS_BAD_POLYNOMIAL" });
  assert.throws(() => whirCommit(new Uint32Array(1)), { code: "PCS_BAD_POLYNOMIAL" });
  assert.throws(() => whirCommit(new Uint32Array([1, P])), { code: "PCS_BAD_POLYNOMIAL" });
  // A large table (scanned on its working copy): the first non-canonical value is named.
  const large = randomEvaluations(14, 1);
  large[9000] = P + 3;
  large[12000] = P;
  assert.throws(() => whirCommit(large), {
    code: "PCS_BAD_POLYNOMIAL",
    message: `evaluations[9000] = ${P + 3} is not a canonical field element (< p = ${P})`,
  });
  assert.throws(() => whirCommit(new Uint32Array(2), { set: "nope" as WhirSetId }), { code: "PCS_UNKNOWN_SET" });
  assert.throws(() => whirCommit(new Uint32Array(1 << 23), { set: "cb100-r4" }), { code: "PCS_TOO_LARGE" });
  const committed = whirCommit(randomEvaluations(3, 1));
  assert.throws(() => whirOpen(committed, []), { code: "PCS_BAD_CLAIM" });
  assert.throws(() => whirOpen(committed, [{ point: [[1, 0, 0, 0]], value: [0, 0, 0, 0] }]), { code: "PCS_BAD_CLAIM" });
});

test("the verifier refuses claims that are not canonical or not well formed instead of reducing them", () => {
  const m = 6;
  const evals = randomEvaluations(m, 1600);
  const committed = whirCommit(evals);
  const claims = twoClaims(evals, m, 1601);
  const proof = whirOpen(committed, claims);
  const c0 = claims[0]!;
  const bad: [string, unknown][] = [
    ["value + p", [{ point: c0.point, value: [c0.value[0] + P, c0.value[1], c0.value[2], c0.value[3]] }, claims[1]]],
    ["coordinate + p", [{ point: [[c0.point[0]![0] + P, 0, 0, 0], ...c0.point.slice(1)], value: c0.value }, claims[1]]],
    ["5 limbs", [{ point: [[1, 2, 3, 4, 5], ...c0.point.slice(1)], value: c0.value }]],
    ["3 limbs", [{ point: [[1, 2, 3], ...c0.point.slice(1)], value: c0.value }]],
    ["−1", [{ point: c0.point, value: [-1, 0, 0, 0] }]],
    ["1.5", [{ point: c0.point, value: [1.5, 0, 0, 0] }]],
    ["not an array", c0],
    ["no claims", []],
  ];
  for (const [what, cl] of bad) {
    const v = whirVerify(committed.commitment, cl as WhirClaim[], proof);
    assert.equal(v.ok, false, what);
    if (!v.ok) assert.equal(v.code, "PCS_BAD_CLAIM", `${what}: ${v.reason}`);
    assert.throws(() => whirOpen(committed, cl as WhirClaim[]), { code: "PCS_BAD_CLAIM" }, what);
  }
  const encoded = whirVerify(
    encodeWhirCommitment(committed.commitment) as unknown as typeof committed.commitment,
    claims,
    proof,
  );
  assert.equal(encoded.ok, false);
  if (!encoded.ok) {
    assert.equal(encoded.code, "PCS_SHAPE");
    assert.match(encoded.reason, /decodeWhirCommitment/);
  }
});

test("non-canonical evaluations are PCS_BAD_POLYNOMIAL, and a polynomial too large is refused before its values are read", () => {
  const evals = randomEvaluations(4, 1700);
  evals[3] = P;
  assert.throws(() => whirCommit(evals), { code: "PCS_BAD_POLYNOMIAL" });
  const tooLarge = new Uint32Array(1 << 23).fill(P);
  assert.throws(() => whirCommit(tooLarge), { code: "PCS_TOO_LARGE" }, "the size is checked first");
});

test("evaluateMultilinear refuses points of the wrong size or with non-canonical coordinates", async () => {
  const { evaluateMultilinear } = await import("../../src/pcs/index.js");
  const evals = randomEvaluations(3, 1800);
  assert.throws(
    () =>
      evaluateMultilinear(evals, [
        [1, 0, 0, 0],
        [2, 0, 0, 0],
      ]),
    { code: "PCS_BAD_CLAIM" },
  );
  assert.throws(
    () =>
      evaluateMultilinear(evals, [
        [1, 0, 0, 0],
        [2, 0, 0, 0],
        [P, 0, 0, 0],
      ]),
    { code: "PCS_BAD_CLAIM" },
  );
  assert.throws(() => evaluateMultilinear(new Uint32Array(3), []), { code: "PCS_BAD_POLYNOMIAL" });
  assert.deepEqual(evaluateMultilinear(new Uint32Array([3, 5]), [[2, 0, 0, 0]]), [7, 0, 0, 0]);
});

test("each grinding witness is checked: a changed fold or query witness is PCS_PROOF_OF_WORK; a proof that is not bytes is PCS_DECODE", () => {
  const m = 14;
  const evals = randomEvaluations(m, 1900);
  const claims = twoClaims(evals, m, 1901);
  const committed = whirCommit(evals);
  const proof = decodeWhirProof(whirOpen(committed, claims));
  const r = proof.rounds.findIndex((x) => x.foldWitnesses.length > 0);
  assert.ok(r >= 0, "some iteration grinds before its folding challenges");
  const withFold = {
    ...proof,
    rounds: proof.rounds.map((x, i) =>
      i === r ? { ...x, foldWitnesses: [x.foldWitnesses[0]! + 1, ...x.foldWitnesses.slice(1)] } : x,
    ),
  };
  const q = proof.rounds.findIndex((x) => x.queryWitness !== null);
  const withQuery = {
    ...proof,
    rounds: proof.rounds.map((x, i) => (i === q ? { ...x, queryWitness: x.queryWitness! + 1 } : x)),
  };
  for (const [what, forged] of [
    ["fold", withFold],
    ["query", withQuery],
  ] as const) {
    const v = whirVerify(committed.commitment, claims, encodeWhirProof(forged));
    assert.equal(v.ok, false, what);
    if (!v.ok) assert.equal(v.code, "PCS_PROOF_OF_WORK", `${what}: ${v.reason}`);
  }
  for (const bad of [[1, 2, 3, 4], "WHRP", null]) {
    const notBytes = whirVerify(committed.commitment, claims, bad as unknown as Uint8Array);
    assert.equal(notBytes.ok, false);
    if (!notBytes.ok) {
      assert.equal(notBytes.code, "PCS_DECODE");
      assert.match(notBytes.reason, /Uint8Array/);
    }
  }
});

test("whirVerifyOn refuses a proof object whose shape is not the schedule's, each field on its own (PCS_SHAPE)", () => {
  const m = 14;
  const evals = randomEvaluations(m, 2300);
  const claims = twoClaims(evals, m, 2301);
  const committed = whirCommit(evals);
  const proof = decodeWhirProof(whirOpen(committed, claims));
  const last = proof.rounds.length - 1;
  assert.ok(last >= 1, "an opening of several iterations");
  const fold = proof.rounds.findIndex((x) => x.foldWitnesses.length > 0);
  const query = proof.rounds.findIndex((x) => x.queryWitness !== null);
  const still = proof.rounds.findIndex((x) => x.queryWitness === null);
  assert.ok(fold >= 0 && query >= 0, "some iteration grinds before its folding challenges and its queries");
  type Round = (typeof proof.rounds)[number];
  const at = (i: number, change: (r: Round) => Partial<Round>) => ({
    ...proof,
    rounds: proof.rounds.map((r, j) => (j === i ? { ...r, ...change(r) } : r)),
  });
  const verdict = (p: typeof proof, commitment = committed.commitment) => {
    const t = DuplexChallenger.withDomain("ssgkr/pcs/whir/v1");
    return whirVerifyOn(t, whirReadCommitmentOn(t, commitment), claims, p);
  };
  assert.deepEqual(verdict(proof), { ok: true }, "the proof object as decoded");
  const cases: [string, typeof proof][] = [
    ["a sumcheck round dropped", at(0, (r) => ({ sumcheck: r.sumcheck.slice(1) }))],
    ["a fold witness more", at(fold, (r) => ({ foldWitnesses: [...r.foldWitnesses, 0] }))],
    ["no next root before the last iteration", at(0, () => ({ nextRoot: null }))],
    ["a next root of 7 words", at(0, (r) => ({ nextRoot: r.nextRoot!.subarray(0, 7) }))],
    ["a final polynomial before the last iteration", at(0, () => ({ finalCoefficients: new Uint32Array(4) }))],
    ["an out-of-domain answer dropped", at(0, (r) => ({ nextOodAnswers: r.nextOodAnswers.slice(1) }))],
    [
      "a final polynomial of the wrong length",
      at(last, (r) => ({ finalCoefficients: r.finalCoefficients!.subarray(4) })),
    ],
    ["no query witness where the iteration grinds", at(query, () => ({ queryWitness: null }))],
    ["a row count off by one", at(0, (r) => ({ rowCount: r.rowCount + 1 }))],
    ["a row word dropped", at(0, (r) => ({ rows: r.rows.subarray(1) }))],
    ["a sibling digest dropped", at(0, (r) => ({ siblings: r.siblings.subarray(8) }))],
  ];
  if (still >= 0)
    cases.push(["a query witness where the iteration does not grind", at(still, () => ({ queryWitness: 0 }))]);
  for (const [what, p] of cases) {
    const v = verdict(p);
    assert.equal(v.ok, false, what);
    if (!v.ok) assert.equal(v.code, "PCS_SHAPE", `${what}: ${v.reason}`);
  }
  const c = committed.commitment;
  const fewer = verdict(proof, { ...c, oodAnswers: c.oodAnswers.slice(1) });
  assert.equal(fewer.ok, false);
  if (!fewer.ok) assert.equal(fewer.code, "PCS_SHAPE", "a commitment with an out-of-domain answer dropped");
});

test("releaseWhirState: the state's copies are recycled into the next commitment, which gives the same bytes however they were scribbled on; a released state is not opened again", () => {
  const m = 12;
  const f = randomEvaluations(m, 19);
  const claims = twoClaims(f, m, 20);
  const run = (): { commitment: Uint8Array; proof: Uint8Array; state: WhirProverState } => {
    const t = DuplexChallenger.withDomain(PCS_DOMAIN_TAG);
    const state = whirCommitOn(t, f);
    const proof = encodeWhirProof(whirOpenOn(t, state, claims));
    return { commitment: encodeWhirCommitment(state.commitment), proof, state };
  };
  const copiesOf = (state: WhirProverState): Uint32Array[] => [state.evaluations, state.coefficients, state.codeword];
  dropRecycledWords();
  const first = run();
  const copies = copiesOf(first.state);
  assert.equal(recycledWords(), 0, "nothing is listed before the release");
  releaseWhirState(first.state);
  releaseWhirState(first.state);
  assert.equal(
    recycledWords(),
    copies.reduce((n, x) => n + x.length, 0),
    "the three copies are listed once",
  );
  for (const x of copies) x.fill(P - 1);
  assert.throws(() => whirOpenOn(DuplexChallenger.withDomain(PCS_DOMAIN_TAG), first.state, claims), {
    code: "PCS_ALREADY_OPENED",
  });
  const second = run();
  const again = copiesOf(second.state);
  assert.ok(
    again.every((x) => copies.includes(x)),
    "the second commitment took the recycled copies",
  );
  assert.deepEqual(second.commitment, first.commitment);
  assert.deepEqual(second.proof, first.proof);
  releaseWhirState(second.state);
  dropRecycledWords();
});
