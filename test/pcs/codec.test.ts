import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import {
  decodeWhirCommitment,
  decodeWhirProof,
  encodeWhirCommitment,
  encodeWhirProof,
  PcsError,
  whirCommit,
  whirOpen,
  whirVerify,
} from "../../src/pcs/index.js";
import { randomEvaluations, twoClaims } from "./support.js";

// m = 14: two iterations under the default set (docs/pcs.md §3).
const m = 14;
const evals = randomEvaluations(m, 77);
const committed = whirCommit(evals);
const claims = twoClaims(evals, m, 78);
const proof = whirOpen(committed, claims);
const commitmentBytes = encodeWhirCommitment(committed.commitment);

function setWord(bytes: Uint8Array, index: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(4 * index, value >>> 0, true);
  return out;
}

test("commitment and proof bytes round-trip exactly", () => {
  assert.deepEqual(encodeWhirCommitment(decodeWhirCommitment(commitmentBytes)), commitmentBytes);
  assert.deepEqual(encodeWhirProof(decodeWhirProof(proof)), proof);
});

test("the decoders refuse wrong magic, unknown sets, sizes out of range, non-canonical words, truncation and trailing bytes", () => {
  const cases: [string, Uint8Array, (b: Uint8Array) => unknown][] = [
    ["commitment magic", setWord(commitmentBytes, 0, 0x12345678), decodeWhirCommitment],
    ["commitment set", setWord(commitmentBytes, 1, 99), decodeWhirCommitment],
    ["commitment m = 0", setWord(commitmentBytes, 2, 0), decodeWhirCommitment],
    ["commitment m = 23", setWord(commitmentBytes, 2, 23), decodeWhirCommitment],
    ["commitment width", setWord(commitmentBytes, 3, 2), decodeWhirCommitment],
    ["commitment root word = p", setWord(commitmentBytes, 4, P), decodeWhirCommitment],
    ["commitment trailing", new Uint8Array([...commitmentBytes, 0, 0, 0, 0]), decodeWhirCommitment],
    ["commitment odd length", commitmentBytes.subarray(0, commitmentBytes.length - 1), decodeWhirCommitment],
    ["proof magic", setWord(proof, 0, 0), decodeWhirProof],
    ["proof set", setWord(proof, 1, 0), decodeWhirProof],
    ["proof first sumcheck word = p", setWord(proof, 4, P), decodeWhirProof],
    ["proof trailing", new Uint8Array([...proof, 1, 0, 0, 0]), decodeWhirProof],
  ];
  for (const [name, bytes, decode] of cases) {
    assert.throws(
      () => decode(bytes),
      (e: unknown) => e instanceof PcsError && e.code === "PCS_DECODE",
      name,
    );
  }
  for (let cut = 0; cut < proof.length; cut += 4 * 97) {
    assert.throws(() => decodeWhirProof(proof.subarray(0, cut)), { code: "PCS_DECODE" }, `truncated at ${cut}`);
  }
  for (let cut = 0; cut < commitmentBytes.length; cut += 4) {
    assert.throws(() => decodeWhirCommitment(commitmentBytes.subarray(0, cut)), { code: "PCS_DECODE" });
  }
});

test("a row count or sibling count out of its bound is refused before anything is read", () => {
  const decoded = decodeWhirProof(proof);
  // Word offset of the first rowCount: header 4, k sumcheck rounds × 8, fold witnesses, root 8, ood answers, query witness.
  const r0 = decoded.rounds[0]!;
  let at =
    4 +
    8 * r0.sumcheck.length +
    r0.foldWitnesses.length +
    8 +
    4 * r0.nextOodAnswers.length +
    (r0.queryWitness === null ? 0 : 1);
  assert.equal(new DataView(proof.buffer, proof.byteOffset).getUint32(4 * at, true), r0.rowCount);
  assert.throws(() => decodeWhirProof(setWord(proof, at, 0)), /rowCount 0/);
  assert.throws(() => decodeWhirProof(setWord(proof, at, 0xffffffff)), /rowCount 4294967295/);
  at += 1 + r0.rows.length;
  assert.throws(() => decodeWhirProof(setWord(proof, at, 0x7fffffff)), /siblingCount/);
});

/** The fuzzed openings: the default set at m = 14 (two iterations, first fold 5) and m = 12 (a first fold of 6 straight to the final polynomial), the provable set at m = 14 (later domains 2^4 times smaller, 12 bits of query grinding). */
const targets = [
  { commitment: committed.commitment, claims, proof },
  ...[
    [12, undefined],
    [14, "ud100-r4-s4-l24-f6-q12"],
  ].map(([mm, set], i) => {
    const e = randomEvaluations(mm as number, 90 + i);
    const c = whirCommit(e, set === undefined ? {} : { set: set as "ud100-r4-s4-l24-f6-q12" });
    const cl = twoClaims(e, mm as number, 95 + i);
    return { commitment: c.commitment, claims: cl, proof: whirOpen(c, cl) };
  }),
];

test("the fuzzed openings verify unchanged: a first fold of 6 and the provable set's shrink among them", () => {
  assert.equal(decodeWhirProof(targets[1]!.proof).rounds[0]!.sumcheck.length, 6);
  assert.equal(targets[2]!.commitment.set, "ud100-r4-s4-l24-f6-q12");
  for (const t of targets) assert.deepEqual(whirVerify(t.commitment, t.claims, t.proof), { ok: true });
});

test("fuzz: changed, cut and random bytes never crash the decoder or the verifier, and never verify", () => {
  fc.assert(
    fc.property(
      fc.nat(targets.length - 1),
      fc.oneof(
        fc.record({ kind: fc.constant("flip"), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
        fc.record({ kind: fc.constant("cut"), at: fc.nat(), bit: fc.constant(0) }),
        fc.record({ kind: fc.constant("word"), at: fc.nat(), bit: fc.nat() }),
      ),
      (which, { kind, at: anywhere, bit }) => {
        const { commitment, claims, proof } = targets[which]!;
        const at = kind === "word" ? anywhere % (proof.length / 4) : anywhere % proof.length;
        let bytes: Uint8Array;
        if (kind === "flip") {
          bytes = proof.slice();
          bytes[at]! ^= 1 << bit;
        } else if (kind === "cut") bytes = proof.subarray(0, at);
        else
          bytes = setWord(
            proof,
            at,
            bit % P === new DataView(proof.buffer, proof.byteOffset).getUint32(4 * at, true) ? (bit + 1) % P : bit % P,
          );
        const v = whirVerify(commitment, claims, bytes);
        assert.equal(v.ok, false);
        try {
          decodeWhirProof(bytes);
        } catch (e) {
          assert.ok(e instanceof PcsError && e.code === "PCS_DECODE");
        }
      },
    ),
    { numRuns: 120, seed: 20261202 },
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      assert.equal(whirVerify(committed.commitment, claims, bytes).ok, false);
    }),
    { numRuns: 200, seed: 7 },
  );
});

test("an honest proof still verifies after decoding (the fuzz baseline)", () => {
  assert.deepEqual(whirVerify(decodeWhirCommitment(commitmentBytes), claims, proof), { ok: true });
});

test("decoding errors name the encoding and the field", () => {
  assert.throws(
    () => decodeWhirCommitment(commitmentBytes.subarray(0, 20)),
    (e: unknown) => e instanceof PcsError && /WHIR commitment: truncated at root/.test(e.message),
  );
  const decoded = decodeWhirProof(proof);
  const last = decoded.rounds.length - 1;
  let cut = 4 * 4;
  for (let i = 0; i < last; i++)
    cut += 4 * (encodeWhirProof({ ...decoded, rounds: [decoded.rounds[i]!], finalSumcheck: [] }).length / 4 - 4);
  const r = decoded.rounds[last]!;
  cut += 4 * (8 * r.sumcheck.length + r.foldWitnesses.length) + 4;
  assert.throws(
    () => decodeWhirProof(proof.subarray(0, cut)),
    (e: unknown) =>
      e instanceof PcsError &&
      new RegExp(`WHIR proof: truncated at rounds\\[${last}\\]\\.finalCoefficients`).test(e.message),
  );
});

test("the -l24, -f6, -s4 and -q12 set codes 11–18 decode to their sets and no other code past them does; a proof renamed to the width-16 set of the same schedule decodes but does not verify", () => {
  const l24 = whirCommit(evals, { set: "cb100-r4-s3-l24" });
  const bytes = encodeWhirCommitment(l24.commitment);
  assert.equal(new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true), 11);
  for (const [code, id] of [
    [11, "cb100-r4-s3-l24"],
    [12, "ud100-r4-s3-l24"],
    [13, "cb100-r2-s3-l24"],
    [14, "ud100-r2-s3-l24"],
    [15, "cb100-r4-s3-l24-f6"],
    [16, "ud100-r4-s3-l24-f6"],
    [17, "ud100-r4-s4-l24-f6"],
    [18, "ud100-r4-s4-l24-f6-q12"],
  ] as const) {
    const encoded = encodeWhirCommitment(whirCommit(evals, { set: id }).commitment);
    assert.equal(new DataView(encoded.buffer, encoded.byteOffset).getUint32(4, true), code, id);
    assert.equal(decodeWhirCommitment(encoded).set, id, `code ${code}`);
  }
  for (const code of [0, 19, 20, 24, 0xffffffff])
    assert.throws(() => decodeWhirCommitment(setWord(bytes, 1, code)), { code: "PCS_DECODE" }, `code ${code}`);
  const l24Proof = whirOpen(l24, claims);
  assert.deepEqual(whirVerify(l24.commitment, claims, l24Proof), { ok: true });
  assert.deepEqual(encodeWhirProof(decodeWhirProof(l24Proof)), l24Proof);
  // The same root and proof named as cb100-r4-s3 (same schedule, width-16 leaves): the leaves no longer hash to the root.
  const renamed = decodeWhirCommitment(setWord(bytes, 1, 7));
  const verdict = whirVerify(renamed, claims, setWord(l24Proof, 1, 7));
  assert.equal(verdict.ok, false);
});

test("an -f6 proof renamed to its -l24 twin (a first fold of 6 read as 5) is refused at decoding (PCS_DECODE)", () => {
  // m = 12: the -f6 set folds 6 variables straight to the final polynomial, its twin 5 and then 5 more.
  const m12 = 12;
  const evals12 = randomEvaluations(m12, 79);
  const claims12 = twoClaims(evals12, m12, 80);
  const f6 = whirCommit(evals12, { set: "cb100-r4-s3-l24-f6" });
  const f6Proof = whirOpen(f6, claims12);
  assert.equal(decodeWhirProof(f6Proof).rounds[0]!.sumcheck.length, 6);
  const renamedCommitment = decodeWhirCommitment(setWord(encodeWhirCommitment(f6.commitment), 1, 11));
  assert.equal(renamedCommitment.set, "cb100-r4-s3-l24");
  const verdict = whirVerify(renamedCommitment, claims12, setWord(f6Proof, 1, 11));
  // Read with 5 sumcheck rounds instead of 6, the words after them are misplaced: the row count is out of its bound.
  assert.equal(verdict.ok === false && verdict.code, "PCS_DECODE");
});
