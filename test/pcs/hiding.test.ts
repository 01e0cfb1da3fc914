/**
 * The hiding commitment and masked opening (docs/pcs.md §12): completeness with point, block and
 * mixed claims; refusals; real forgeries by a prover that changes one message and continues
 * honestly on the changed transcript; what each of the verifier's checks of §12.6 rejects.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, extMul, type Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { PCS_HIDING_DOMAIN_TAG } from "../../src/transcript/domains.js";
import {
  decodeWhirCommitment,
  decodeWhirHidingCommitment,
  decodeWhirHidingProof,
  encodeWhirHidingCommitment,
  encodeWhirHidingProof,
  minHidingVariables,
  whirCommit,
  whirCommitHiding,
  whirCommitHidingOn,
  whirHidingSchedule,
  whirOpen,
  whirOpenHiding,
  whirOpenHidingOn,
  releaseWhirHidingState,
  whirParameterSet,
  whirReadHidingCommitmentOn,
  whirSeededRandomSource,
  whirVerifyHiding,
  whirVerifyHidingOn,
  type WhirAnyClaim,
  type WhirBlockClaim,
  type WhirHidingAdversary,
  type WhirHidingCommitted,
  type WhirHidingProof,
  type WhirHidingProverState,
  type WhirSetId,
  type WhirVerdict,
} from "../../src/pcs/index.js";
import { blockClaim, mleAt, randomEvaluations, randomPoint } from "./support.js";
import { dropRecycledWords, recycledWords } from "../../src/memory/recycled-words.js";
import { coefficientsToEvaluations, evaluationsToCoefficients } from "../../src/pcs/multilinear.js";

function pointClaim(f: Uint32Array, m: number, seed: number): WhirAnyClaim {
  const point = randomPoint(m, seed);
  return { point, value: mleAt(f, point) };
}

function bump(e: Ext): Ext {
  return [(e[0] + 1) % P, e[1], e[2], e[3]];
}

const ok: WhirVerdict = { ok: true };

function commit(f: Uint32Array, set: WhirSetId = "cb100-r4", seed = 1): WhirHidingCommitted {
  return whirCommitHiding(f, { set, random: whirSeededRandomSource(seed) });
}

/** A masked opening by a prover with `adversary`'s changes, as bytes (the commitment may have been opened before). */
function forge(committed: WhirHidingCommitted, claims: readonly WhirAnyClaim[], adversary: WhirHidingAdversary) {
  return encodeWhirHidingProof(
    whirOpenHidingOn(committed.transcript.clone(), committed.state, claims, { ...adversary, reopen: true }),
  );
}

/** An honest masked opening of a commitment these tests open several times (each opening alone is honest). */
function openAgain(committed: WhirHidingCommitted, claims: readonly WhirAnyClaim[]): Uint8Array {
  return forge(committed, claims, {});
}

function verify(
  committed: WhirHidingCommitted,
  claims: readonly WhirAnyClaim[],
  proof: Uint8Array,
  set: WhirSetId = "cb100-r4",
): WhirVerdict {
  const commitment = decodeWhirHidingCommitment(encodeWhirHidingCommitment(committed.commitment));
  return whirVerifyHiding(commitment, claims, proof, { alsoAccept: [set] });
}

/** Verifies a proof object (not bytes) on a fresh standalone transcript. */
function verifyObject(committed: WhirHidingCommitted, claims: readonly WhirAnyClaim[], proof: WhirHidingProof) {
  const t = DuplexChallenger.withDomain(PCS_HIDING_DOMAIN_TAG);
  return whirVerifyHidingOn(t, whirReadHidingCommitmentOn(t, committed.commitment), claims, proof);
}

test("masked openings of point, block and mixed claims are accepted, from the least hiding size up, on several sets", () => {
  const cases: [WhirSetId, number][] = [
    ["cb100-r4", 11],
    ["cb100-r4", 12],
    ["cb100-r4", 13],
    ["cb100-r4", 14],
    ["cb90-r4", 11],
    ["cb100-r2", 12],
    ["ud100-r4", 12],
  ];
  for (const [set, m] of cases) {
    const f = randomEvaluations(m, 900 + m);
    const committed = commit(f, set, m);
    const encoded = encodeWhirHidingCommitment(committed.commitment);
    assert.equal(encoded.length, 48);
    assert.deepEqual(decodeWhirHidingCommitment(encoded), committed.commitment);
    const points = [pointClaim(f, m, 3 * m), pointClaim(f, m, 3 * m + 1)];
    const blocks = [blockClaim(f, 4, 3, m), blockClaim(f, 0, (1 << m) - 1, m + 1), blockClaim(f, m, 0, m + 2)];
    const mixed = [blocks[0]!, points[0]!, blocks[1]!, points[1]!];
    for (const [what, claims] of [
      ["points", points],
      ["blocks", blocks],
      ["mixed", mixed],
    ] as const) {
      const proof = openAgain(committed, claims);
      assert.deepEqual(verify(committed, claims, proof, set), ok, `${set} m = ${m}, ${what}`);
      assert.deepEqual(encodeWhirHidingProof(decodeWhirHidingProof(proof)), proof, `${set} m = ${m}: bytes round-trip`);
      const decoded = decodeWhirHidingProof(proof);
      const k = whirHidingSchedule(whirParameterSet(set), m).schedule.rounds[0]!.foldingFactor;
      assert.equal(decoded.rounds[0]!.rows.length, (decoded.rounds[0]!.rowCount * 5) << k, "F′ and G′ rows");
      assert.equal(decoded.maskedValues.length, claims.length);
    }
  }
});

test("the default source of randomness gives a fresh commitment each time, and its openings verify", () => {
  const m = 11;
  const f = randomEvaluations(m, 1);
  const a = whirCommitHiding(f);
  const b = whirCommitHiding(f);
  assert.notDeepEqual(a.commitment.root, b.commitment.root);
  const claims = [pointClaim(f, m, 5)];
  assert.deepEqual(verify(a, claims, openAgain(a, claims)), ok);
  // A seeded source is deterministic.
  assert.deepEqual(commit(f, "cb100-r4", 9).commitment.root, commit(f, "cb100-r4", 9).commitment.root);
  assert.throws(() => whirSeededRandomSource(-1), { code: "PCS_BAD_OPTION" });
});

test("refusals: a vector below the least hiding size, above the set's limit, malformed values and claims", () => {
  const set = whirParameterSet("cb100-r4");
  assert.equal(minHidingVariables(set), 11);
  for (let m = 1; m <= 10; m++)
    assert.throws(() => whirCommitHiding(randomEvaluations(m, m)), { code: "PCS_TOO_SMALL_TO_HIDE" }, `m = ${m}`);
  assert.throws(() => whirHidingSchedule(set, 22), { code: "PCS_TOO_LARGE" });
  assert.throws(() => whirCommitHiding(new Uint32Array(3000)), { code: "PCS_BAD_POLYNOMIAL" });
  const bad = randomEvaluations(11, 2);
  bad[17] = P;
  assert.throws(() => whirCommitHiding(bad), { code: "PCS_BAD_POLYNOMIAL" });
  assert.throws(() => whirCommitHiding(randomEvaluations(11, 2), { set: "nope" as WhirSetId }), {
    code: "PCS_UNKNOWN_SET",
  });
  const f = randomEvaluations(11, 3);
  const committed = commit(f);
  assert.throws(() => openAgain(committed, []), { code: "PCS_BAD_CLAIM" });
  assert.throws(() => openAgain(committed, [{ point: randomPoint(12, 1), value: [0, 0, 0, 0] }]), {
    code: "PCS_BAD_CLAIM",
  });
  assert.throws(
    () => openAgain(committed, [{ block: { offset: 1 << 11, weights: [[1, 0, 0, 0]] }, value: [0, 0, 0, 0] }]),
    { code: "PCS_BAD_CLAIM" },
    "a block in f′'s Y = 1 half is not a claim about f",
  );
});

// One commitment and proof shared by the soundness tests (cb100-r4 at m = 13 grinds 1 bit before ρ).
const M = 13;
const F = randomEvaluations(M, 77);
const COMMITTED = commit(F, "cb100-r4", 5);
const CLAIMS: WhirAnyClaim[] = [pointClaim(F, M, 40), blockClaim(F, 3, 5, 41)];
const PROOF = openAgain(COMMITTED, CLAIMS);

test("the shared opening grinds before ρ and verifies", () => {
  assert.equal(whirHidingSchedule(whirParameterSet("cb100-r4"), M).batchPowBits, 1);
  assert.notEqual(decodeWhirHidingProof(PROOF).batchWitness, null);
  assert.deepEqual(verify(COMMITTED, CLAIMS, PROOF), ok);
});

test("a false claim value is rejected: the honest proof of the true value, and the prover's proof of the false one", () => {
  for (const i of [0, 1]) {
    const wrong = CLAIMS.map((c, j) => (j === i ? { ...c, value: bump(c.value) } : c));
    assert.equal(verify(COMMITTED, wrong, PROOF).ok, false, `claim ${i}: the true proof`);
    const v = verify(COMMITTED, wrong, openAgain(COMMITTED, wrong));
    assert.equal(v.ok, false, `claim ${i}: the prover's proof of the false value`);
    assert.equal(!v.ok && v.code, "PCS_FINAL_CLAIM");
  }
});

test("a claim moved to another point or another block, with its value kept, is rejected", () => {
  const point = CLAIMS[0] as { point: Ext[]; value: Ext };
  const movedPoint = [{ point: point.point.map((x, j) => (j === 4 ? bump(x) : x)), value: point.value }, CLAIMS[1]!];
  assert.equal(verify(COMMITTED, movedPoint, PROOF).ok, false);
  assert.equal(verify(COMMITTED, movedPoint, openAgain(COMMITTED, movedPoint)).ok, false);
  const block = CLAIMS[1] as WhirBlockClaim;
  const movedBlock = [CLAIMS[0]!, { block: { ...block.block, offset: block.block.offset + 8 }, value: block.value }];
  assert.equal(verify(COMMITTED, movedBlock, PROOF).ok, false);
  assert.equal(verify(COMMITTED, movedBlock, openAgain(COMMITTED, movedBlock)).ok, false);
  const reordered = [CLAIMS[1]!, CLAIMS[0]!];
  assert.equal(verify(COMMITTED, reordered, PROOF).ok, false, "claims in another order");
});

test("a tampered σ′ is rejected, though the prover continues honestly on the changed transcript", () => {
  for (const i of [0, 1]) {
    const proof = forge(COMMITTED, CLAIMS, { maskedValues: (v) => v.map((x, j) => (j === i ? bump(x) : x)) });
    const v = verify(COMMITTED, CLAIMS, proof);
    assert.equal(!v.ok && v.code, "PCS_FINAL_CLAIM", `σ′_${i}`);
  }
  // σ′ chosen to make a false claim's combined value true for the ρ the prover will see is impossible:
  // σ′ is observed before ρ. A forger that shifts σ′ by −ρ'·δ for a guessed ρ' fails.
  const delta: Ext = [1, 0, 0, 0];
  const wrong = [{ ...CLAIMS[0]!, value: extAdd(CLAIMS[0]!.value, delta) }, CLAIMS[1]!];
  const guess: Ext = [5, 6, 7, 8];
  const proof = forge(COMMITTED, wrong, {
    maskedValues: (v) => [extAdd(v[0]!, extMul(guess, [P - 1, 0, 0, 0])), v[1]!],
  });
  assert.equal(verify(COMMITTED, wrong, proof).ok, false);
});

test("h's out-of-domain answers forged are rejected", () => {
  const proof = forge(COMMITTED, CLAIMS, { maskedOodAnswers: (a) => a.map((x, j) => (j === 1 ? bump(x) : x)) });
  const v = verify(COMMITTED, CLAIMS, proof);
  assert.equal(!v.ok && v.code, "PCS_FINAL_CLAIM");
});

test("a grinding witness before ρ that does not grind is rejected (PCS_PROOF_OF_WORK)", () => {
  const honest = decodeWhirHidingProof(PROOF).batchWitness!;
  const proof = forge(COMMITTED, CLAIMS, {
    // The least witness that does not give a zero bit on the prover's transcript.
    batchWitness: (_w, t) => {
      for (let x = 0; ; x++) if (!t.clone().checkWitness(1, x)) return x;
    },
  });
  const decoded = decodeWhirHidingProof(proof);
  assert.notEqual(decoded.batchWitness, honest);
  const v = verify(COMMITTED, CLAIMS, proof);
  assert.equal(!v.ok && v.code, "PCS_PROOF_OF_WORK");
});

test("committed F′ or G′ words off the code (a corrupted row at every index) are rejected", () => {
  for (const which of ["F′", "G′"] as const) {
    const committed = whirCommitHiding(F, {
      random: whirSeededRandomSource(5),
      corruptRows: (fRows, gRows) => {
        const rows = which === "F′" ? fRows : gRows;
        const words = which === "F′" ? 32 : 128;
        for (let j = 0; j < rows.length / words; j++)
          rows[j * words + (j % words)] = (rows[j * words + (j % words)]! + 1) % P;
      },
    });
    const v = verify(committed, CLAIMS, openAgain(committed, CLAIMS));
    assert.equal(v.ok, false, which);
  }
});

test("opened F′ or G′ words changed are rejected by the Merkle check, even when their combination h is kept", () => {
  const cases: [string, WhirHidingAdversary][] = [
    ["an F′ word", { firstRows: (_rho, rows) => void (rows[3] = (rows[3]! + 1) % P) }],
    ["a G′ word", { firstRows: (_rho, rows) => void (rows[32 + 5] = (rows[32 + 5]! + 1) % P) }],
    [
      "F′ + δ and G′ − ρ·δ (h's row unchanged)",
      {
        firstRows: (rho, rows) => {
          rows[0] = (rows[0]! + 1) % P; // F′ value 0 of the first row
          for (let l = 0; l < 4; l++) rows[32 + l] = (rows[32 + l]! + P - rho[l]!) % P; // G′ value 0
        },
      },
    ],
  ];
  for (const [what, adversary] of cases) {
    const v = verify(COMMITTED, CLAIMS, forge(COMMITTED, CLAIMS, adversary));
    assert.equal(!v.ok && v.code, "PCS_MERKLE", what);
  }
});

test("a proof made for one commitment is rejected against another (other randomness, another vector)", () => {
  const again = commit(F, "cb100-r4", 6); // the same f, other τ and g′
  assert.equal(verify(again, CLAIMS, PROOF).ok, false);
  const g = randomEvaluations(M, 78);
  const other = commit(g, "cb100-r4", 5);
  assert.equal(verify(other, CLAIMS, PROOF).ok, false);
  // …and a proof of the other commitment's true claims does not verify against the first.
  const otherClaims = [pointClaim(g, M, 40), blockClaim(g, 3, 5, 41)];
  const otherProof = openAgain(other, otherClaims);
  assert.deepEqual(verify(other, otherClaims, otherProof), ok);
  assert.equal(verify(COMMITTED, otherClaims, otherProof).ok, false);
  // A plain commitment's proof and a hiding one's are not interchangeable.
  const plain = whirCommit(F);
  const plainProof = whirOpen(plain, CLAIMS);
  assert.equal(verify(COMMITTED, CLAIMS, plainProof).ok, false);
  assert.throws(() => decodeWhirCommitment(encodeWhirHidingCommitment(COMMITTED.commitment)), { code: "PCS_DECODE" });
});

test("the verifier's shape checks give their verdicts (σ′ count, witness presence, out-of-domain count, set, m, claims)", () => {
  const proof = decodeWhirHidingProof(PROOF);
  const expect = (p: WhirHidingProof, claims: readonly WhirAnyClaim[], code: string, what: string) => {
    const v = verifyObject(COMMITTED, claims, p);
    assert.equal(!v.ok && v.code, code, what);
  };
  expect({ ...proof, maskedValues: proof.maskedValues.slice(0, 1) }, CLAIMS, "PCS_SHAPE", "one σ′ for two claims");
  expect({ ...proof, maskedValues: [...proof.maskedValues, [0, 0, 0, 0]] }, CLAIMS, "PCS_SHAPE", "three σ′");
  expect({ ...proof, maskedValues: [[P, 0, 0, 0], proof.maskedValues[1]!] }, CLAIMS, "PCS_SHAPE", "a non-canonical σ′");
  expect({ ...proof, batchWitness: null }, CLAIMS, "PCS_SHAPE", "no witness before ρ");
  expect({ ...proof, batchWitness: P }, CLAIMS, "PCS_SHAPE", "a non-canonical witness before ρ");
  expect({ ...proof, oodAnswers: proof.oodAnswers.slice(1) }, CLAIMS, "PCS_SHAPE", "one out-of-domain answer missing");
  expect({ ...proof, numVariables: M + 1 }, CLAIMS, "PCS_SHAPE", "another m");
  expect({ ...proof, set: "cb100-r2" }, CLAIMS, "PCS_SHAPE", "another set");
  expect(
    proof,
    [{ point: randomPoint(M - 1, 1), value: [0, 0, 0, 0] }],
    "PCS_BAD_CLAIM",
    "a claim of m − 1 coordinates",
  );
  expect(proof, [], "PCS_BAD_CLAIM", "no claim");
  // The standalone verifier: a set it does not accept, and a value that is not a commitment.
  const v = whirVerifyHiding(COMMITTED.commitment, CLAIMS, PROOF, { accept: "provable" });
  assert.equal(!v.ok && v.code, "PCS_SET_NOT_ACCEPTED");
  const w = whirVerifyHiding(null as never, CLAIMS, PROOF);
  assert.equal(!w.ok && w.code, "PCS_SHAPE");
  const badRoot = whirVerifyHiding(
    { ...COMMITTED.commitment, root: Uint32Array.of(P, 0, 0, 0, 0, 0, 0, 0) },
    CLAIMS,
    PROOF,
  );
  assert.equal(!badRoot.ok && badRoot.code, "PCS_SHAPE", "a non-canonical root");
  const small = whirVerifyHiding({ ...COMMITTED.commitment, numVariables: 5 }, CLAIMS, PROOF);
  assert.equal(!small.ok && small.code, "PCS_SHAPE", "a commitment of a size that cannot hide");
  const notBytes = whirVerifyHiding(COMMITTED.commitment, CLAIMS, "abcd" as never);
  assert.equal(!notBytes.ok && notBytes.code, "PCS_DECODE");
  // A proof naming another set than the commitment, both accepted.
  const f = randomEvaluations(12, 3);
  const r2 = commit(f, "cb100-r2", 3);
  const r4 = commit(f, "cb100-r4", 3);
  const claims = [pointClaim(f, 12, 1)];
  const x = whirVerifyHiding(r4.commitment, claims, openAgain(r2, claims));
  assert.equal(!x.ok && x.code, "PCS_SET_NOT_ACCEPTED");
});

test("whirCommitHidingOn / whirOpenHidingOn on a caller's transcript: the same proof as the standalone one under the same tag", () => {
  const t = DuplexChallenger.withDomain(PCS_HIDING_DOMAIN_TAG);
  const state = whirCommitHidingOn(t, F, { set: "cb100-r4", random: whirSeededRandomSource(5) });
  assert.deepEqual(encodeWhirHidingProof(whirOpenHidingOn(t, state, CLAIMS)), PROOF);
  // On another transcript (a caller's), the proof verifies on that transcript only.
  const caller = DuplexChallenger.withDomain("some/gkr/driver");
  caller.observe(12345);
  const s2 = whirCommitHidingOn(caller.clone(), F, { set: "cb100-r4", random: whirSeededRandomSource(5) });
  const pt = caller.clone();
  whirCommitHidingOn(pt, F, { set: "cb100-r4", random: whirSeededRandomSource(5) });
  const proof = whirOpenHidingOn(pt, s2, CLAIMS);
  const vt = caller.clone();
  const read = whirReadHidingCommitmentOn(vt, s2.commitment);
  assert.deepEqual(whirVerifyHidingOn(vt, read, CLAIMS, proof), ok);
  assert.equal(verifyObject(COMMITTED, CLAIMS, proof).ok, false, "not on the standalone transcript");
});

test("fold and query grinding witnesses of the WHIR opening of h that do not grind are rejected (PCS_PROOF_OF_WORK)", () => {
  const schedule = whirHidingSchedule(whirParameterSet("cb100-r4"), M).schedule;
  const i = schedule.rounds.findIndex((r) => r.foldPowBits > 0);
  const q = schedule.rounds.findIndex((r) => r.queryPowBits > 0);
  assert.ok(i >= 0 && q >= 0, "the schedule grinds before a folding challenge and before queries");
  for (const kind of ["fold", "query"] as const) {
    const at = kind === "fold" ? i : q;
    const proof = forge(COMMITTED, CLAIMS, {
      witness: (k, round, s, w, t) => {
        if (k !== kind || round !== at || s !== 0) return w;
        const bits = kind === "fold" ? schedule.rounds[at]!.foldPowBits : schedule.rounds[at]!.queryPowBits;
        for (let x = 0; ; x++) if (!t.clone().checkWitness(bits, x)) return x;
      },
    });
    const v = verify(COMMITTED, CLAIMS, proof);
    assert.equal(!v.ok && v.code, "PCS_PROOF_OF_WORK", kind);
  }
});

/**
 * A seeded hiding commitment whose source's draws are recorded (τ's, then g′'s), with a check that
 * f′'s and g′'s values are their coefficients' multilinear values (the prover computes f′'s values
 * without a transform of all of them).
 */
function commitRecordingDraws(
  f: Uint32Array,
  seed: string,
  options: { readonly set?: WhirSetId; readonly layout?: "extra-variable" | "top-block" },
): { committed: WhirHidingCommitted; draws: Uint32Array[] } {
  const draws: Uint32Array[] = [];
  const seeded = whirSeededRandomSource(seed);
  const committed = whirCommitHiding(f, {
    ...options,
    random: (out) => {
      seeded(out);
      draws.push(out.slice());
    },
  });
  const { fCoefficients, fEvaluations, gCoefficients, gEvaluations } = committed.state;
  const fv = fCoefficients.slice();
  coefficientsToEvaluations(fv, 1);
  assert.deepEqual(fv, fEvaluations, "f′'s values are its coefficients' multilinear values");
  const gv = gCoefficients.slice();
  coefficientsToEvaluations(gv, 4);
  assert.deepEqual(gv, gEvaluations, "g′'s values are its coefficients' multilinear values");
  return { committed, draws };
}

test("f′ = f + Y·τ with τ's t coefficients the source's first draw and the rest zero; g′ the second draw; at most t values of F′ are opened", async () => {
  const m = 11;
  const f = randomEvaluations(m, 12);
  const { committed, draws } = commitRecordingDraws(f, "structure", {});
  const { hiding, fCoefficients, fEvaluations, gEvaluations } = committed.state;
  const n = 1 << m;
  const t = hiding.maskCoefficients;
  assert.deepEqual(
    draws.map((d) => d.length),
    [t, 8 * n],
  );
  const fc = f.slice();
  evaluationsToCoefficients(fc, 1);
  assert.deepEqual(fCoefficients.subarray(0, n), fc, "f's coefficients in the Y = 0 half");
  assert.deepEqual(fCoefficients.subarray(n, n + t), draws[0], "τ's coefficients");
  assert.ok(
    fCoefficients.subarray(n + t).every((x) => x === 0),
    "τ has exactly t coefficients",
  );
  assert.deepEqual(fEvaluations.subarray(0, n), f, "f′(·, 0) = f");
  assert.deepEqual(gEvaluations, draws[1], "g′'s values");
  const proof = decodeWhirHidingProof(openAgain(committed, [pointClaim(f, m, 1)]));
  const k = hiding.schedule.rounds[0]!.foldingFactor;
  assert.ok(proof.rounds[0]!.rowCount << k <= t, "the opened values of F′ are at most t");
});

test("releaseWhirHidingState: the released tables are recycled into the next commitment, which gives the same bytes however they were scribbled on; a released state is not opened again", () => {
  const m = 11;
  const f = randomEvaluations(m, 9);
  const claims = [pointClaim(f, m, 4), blockClaim(f, 3, 5, 6)];
  const run = (): { commitment: Uint8Array; proof: Uint8Array; state: WhirHidingProverState } => {
    const t = DuplexChallenger.withDomain(PCS_HIDING_DOMAIN_TAG);
    const state = whirCommitHidingOn(t, f, { random: whirSeededRandomSource(11) });
    const proof = encodeWhirHidingProof(whirOpenHidingOn(t, state, claims));
    return { commitment: encodeWhirHidingCommitment(state.commitment), proof, state };
  };
  const tablesOf = (state: WhirHidingProverState): Uint32Array[] =>
    (["fCoefficients", "fEvaluations", "gEvaluations", "gCoefficients", "fCodeword", "gCodeword"] as const).map(
      (name) => state[name],
    );
  dropRecycledWords();
  const first = run();
  const tables = tablesOf(first.state);
  // h's two tables are working tables of the backend, which the opening released: none is recycled yet
  assert.equal(recycledWords(), 0, "nothing recycled after the opening");
  releaseWhirHidingState(first.state);
  releaseWhirHidingState(first.state);
  assert.equal(
    recycledWords(),
    tables.reduce((n, x) => n + x.length, 0),
    "the six tables are listed once",
  );
  for (const x of tables) x.fill(P - 1);
  assert.throws(() => whirOpenHidingOn(DuplexChallenger.withDomain(PCS_HIDING_DOMAIN_TAG), first.state, claims), {
    code: "PCS_ALREADY_OPENED",
  });
  const second = run();
  const again = tablesOf(second.state);
  assert.ok(
    again.some((x) => tables.includes(x)),
    "the second commitment took recycled tables",
  );
  assert.deepEqual(second.commitment, first.commitment);
  assert.deepEqual(second.proof, first.proof);
  releaseWhirHidingState(second.state);
  dropRecycledWords();
});

test("a hiding commitment is opened once: a second opening is refused (PCS_ALREADY_OPENED), a refused claim list does not use it up", () => {
  const m = 11;
  const f = randomEvaluations(m, 7);
  const committed = commit(f, "cb100-r4", 7);
  const claims = [pointClaim(f, m, 2)];
  assert.throws(() => whirOpenHiding(committed, []), { code: "PCS_BAD_CLAIM" });
  const proof = whirOpenHiding(committed, claims);
  assert.deepEqual(verify(committed, claims, proof), ok, "the first opening, after a refused one");
  assert.throws(() => whirOpenHiding(committed, claims), { code: "PCS_ALREADY_OPENED" });
  assert.throws(() => whirOpenHidingOn(committed.transcript.clone(), committed.state, [pointClaim(f, m, 3)]), {
    code: "PCS_ALREADY_OPENED",
  });
});

// The layout "top-block" (docs/pcs.md §12.10): τ in the top 2^j values of f itself, f′ and g′ of m variables.

/** A point claim with a zero coordinate at variable m − 1, so that it does not weigh τ's block. */
function pointOffBlock(f: Uint32Array, m: number, seed: number): WhirAnyClaim {
  const point = randomPoint(m, seed).map((x, j) => (j === m - 1 ? ([0, 0, 0, 0] as Ext) : x));
  return { point, value: mleAt(f, point) };
}

function commitTop(f: Uint32Array, set: WhirSetId = "cb100-r4", seed = 1): WhirHidingCommitted {
  return whirCommitHiding(f, { set, layout: "top-block", random: whirSeededRandomSource(seed) });
}

test("top-block: masked openings of point, block and mixed claims off τ's block are accepted, from the least size up, on several sets", () => {
  const cases: [WhirSetId, number][] = [
    ["cb100-r4", 12],
    ["cb100-r4", 14],
    ["cb100-r2", 13],
    ["ud100-r4-s3", 13],
  ];
  for (const [set, m] of cases) {
    assert.ok(m >= minHidingVariables(set, "top-block"));
    const hiding = whirHidingSchedule(whirParameterSet(set), m, "top-block");
    assert.equal(hiding.committedVariables, m);
    assert.ok(hiding.maskCoefficients <= 2 ** hiding.maskBlockVariables && hiding.maskBlockVariables < m);
    const f = randomEvaluations(m, 700 + m);
    const committed = commitTop(f, set, m);
    const encoded = encodeWhirHidingCommitment(committed.commitment);
    assert.deepEqual(decodeWhirHidingCommitment(encoded), committed.commitment);
    const below = 2 ** m - 2 ** hiding.maskBlockVariables;
    const claims = [
      blockClaim(f, 4, 3, m),
      pointOffBlock(f, m, 3 * m),
      blockClaim(f, 3, below / 8 - 1, m + 1), // the last block of 8 values below τ's
      pointOffBlock(f, m, 3 * m + 1),
    ];
    const proof = openAgain(committed, claims);
    assert.deepEqual(verify(committed, claims, proof, set), ok, `${set} m = ${m}`);
    const decoded = decodeWhirHidingProof(proof);
    assert.equal(decoded.layout, "top-block");
    assert.deepEqual(encodeWhirHidingProof(decoded), proof, "bytes round-trip");
  }
});

test("top-block: a claim that weighs τ's block is refused by the prover and the verifier (PCS_BAD_CLAIM); a point with another zero coordinate in the block's variables is not", () => {
  const m = 13;
  const f = randomEvaluations(m, 5);
  const committed = commitTop(f);
  const j = committed.state.hiding.maskBlockVariables;
  const good = [pointOffBlock(f, m, 1)];
  const proof = openAgain(committed, good);
  assert.deepEqual(verify(committed, good, proof), ok);
  const full = randomPoint(m, 2);
  const weighing: [string, WhirAnyClaim][] = [
    ["a point without a zero coordinate among j … m − 1", { point: full, value: mleAt(f, full) }],
    ["a block inside τ's block", blockClaim(f, 2, 2 ** (m - 2) - 1, 3)],
    ["a block that ends inside τ's block", blockClaim(f, j + 1, 2 ** (m - j - 1) - 1, 4)],
  ];
  for (const [what, claim] of weighing) {
    assert.throws(() => openAgain(committed, [claim]), { code: "PCS_BAD_CLAIM" }, what);
    const v = verify(committed, [claim], proof);
    assert.equal(!v.ok && v.code, "PCS_BAD_CLAIM", what);
  }
  // A zero at variable j (the block's lowest variable) keeps the point off the block too.
  const atJ = randomPoint(m, 3).map((x, i) => (i === j ? ([0, 0, 0, 0] as Ext) : x));
  const claims = [{ point: atJ, value: mleAt(f, atJ) }];
  assert.deepEqual(verify(committed, claims, openAgain(committed, claims)), ok);
  // Below its least size the layout is refused before any work.
  assert.throws(() => whirCommitHiding(randomEvaluations(11, 1), { set: "cb100-r4", layout: "top-block" }), {
    code: "PCS_TOO_SMALL_TO_HIDE",
  });
  assert.throws(() => whirCommitHiding(f, { layout: "sideways" as never }), { code: "PCS_BAD_OPTION" });
});

test("top-block: f′ = f + E·τ (τ's t coefficients from 2^m − 2^j), g′ of m variables; a false claim, another layout or a forged row is rejected", async () => {
  const m = 13;
  const f = randomEvaluations(m, 21);
  const { committed, draws } = commitRecordingDraws(f, "top-block structure", {
    set: "cb100-r4",
    layout: "top-block",
  });
  const { hiding, fCoefficients, fEvaluations, gEvaluations } = committed.state;
  const n = 1 << m;
  const t = hiding.maskCoefficients;
  const at = n - 2 ** hiding.maskBlockVariables;
  assert.deepEqual(
    draws.map((d) => d.length),
    [t, 4 * n],
  );
  const fc = f.slice();
  evaluationsToCoefficients(fc, 1);
  for (let i = 0; i < n; i++) {
    const tau = i >= at && i < at + t ? draws[0]![i - at]! : 0;
    assert.equal(fCoefficients[i], (fc[i]! + tau) % P, `coefficient ${i}`);
  }
  assert.deepEqual(fEvaluations.subarray(0, at), f.subarray(0, at), "f′ = f below τ's block");
  assert.notDeepEqual(fEvaluations.subarray(at), f.subarray(at), "τ's values in the block");
  assert.deepEqual(gEvaluations, draws[1], "g′'s values");
  const claims = [pointOffBlock(f, m, 8)];
  const proof = openAgain(committed, claims);
  assert.deepEqual(verify(committed, claims, proof), ok);
  assert.ok(decodeWhirHidingProof(proof).rounds[0]!.rowCount << hiding.schedule.rounds[0]!.foldingFactor <= t);
  // A false value, proved by the prover as if true.
  const lie = [{ ...claims[0]!, value: bump(claims[0]!.value) }];
  assert.equal(verify(committed, lie, openAgain(committed, lie)).ok, false, "a false claim value");
  // The proof relabelled to the other layout, and the commitment read in the other layout.
  const decoded = decodeWhirHidingProof(proof);
  const relabelled = verifyObject(committed, claims, { ...decoded, layout: "extra-variable" });
  assert.equal(!relabelled.ok && relabelled.code, "PCS_SHAPE", "a proof for the other layout");
  const asExtra = whirVerifyHiding({ ...committed.commitment, layout: "extra-variable" }, claims, proof);
  assert.equal(asExtra.ok, false, "the commitment taken in the other layout");
  // Opened F′ words changed, h's row kept: the Merkle check.
  const forged = forge(committed, claims, {
    firstRows: (_rho, rows) => {
      rows[0] = (rows[0]! + 1) % P;
    },
  });
  const v = verify(committed, claims, forged);
  assert.equal(!v.ok && v.code, "PCS_MERKLE");
});
