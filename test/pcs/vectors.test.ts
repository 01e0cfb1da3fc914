/**
 * Known answers of the WHIR commitment (docs/pcs.md §9): for fixed polynomials, claims and sets (new
 * entries go after the others, which never change),
 * the commitment root, the proof's length and its digest (the compat-v1 sponge of its u32 words)
 * are checked in (test/vectors/pcs-whir.json), so the bytes cannot drift unnoticed.
 * `UPDATE_PCS_VECTORS=1` rewrites the file after an intended change of docs/pcs.md.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sponge } from "../../src/hash/digest.js";
import { encodeWhirCommitment, whirCommit, whirOpen, whirVerify, type WhirSetId } from "../../src/pcs/index.js";
import type { CommittedWidth } from "../../src/pcs/types.js";
import { randomEvaluations, twoClaims } from "./support.js";

interface Vector {
  readonly set: WhirSetId;
  readonly numVariables: number;
  readonly width: CommittedWidth;
  readonly seed: number;
  readonly commitmentHex: string;
  readonly proofBytes: number;
  readonly proofDigest: number[];
}

const FILE = join(process.cwd(), "test", "vectors", "pcs-whir.json");
const CASES: readonly [WhirSetId, number, CommittedWidth, number][] = [
  ["cb100-r4", 3, 1, 1],
  ["cb100-r4", 11, 1, 2],
  ["cb100-r2", 9, 4, 3],
  ["ud100-r4", 8, 1, 4],
  ["cb90-r4", 12, 1, 5],
  ["cb100-r4-s3", 17, 1, 6],
  ["ud100-r4-s3", 13, 4, 7],
  ["cb100-r4-s3-l24", 17, 1, 8],
  ["ud100-r4-s3-l24", 13, 4, 9],
  ["cb100-r2-s3-l24", 11, 1, 10],
  ["ud100-r2-s3-l24", 10, 4, 11],
  ["cb100-r4-s3-l24", 3, 1, 12],
  ["cb100-r4-s3-l24-f6", 17, 1, 13],
  ["ud100-r4-s3-l24-f6", 12, 4, 14],
  ["cb100-r4-s3-l24-f6", 14, 1, 15],
  ["ud100-r4-s4-l24-f6", 17, 1, 16],
  ["ud100-r4-s4-l24-f6", 14, 4, 17],
  ["ud100-r4-s4-l24-f6-q12", 17, 1, 18],
  ["ud100-r4-s4-l24-f6-q12", 14, 4, 19],
];

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function compute(set: WhirSetId, m: number, width: CommittedWidth, seed: number): Vector {
  const evals = randomEvaluations(m, seed, width);
  const committed = whirCommit(evals, { set, width });
  const claims = twoClaims(evals, m, seed, width);
  const proof = whirOpen(committed, claims);
  assert.deepEqual(whirVerify(committed.commitment, claims, proof, { alsoAccept: [set] }), { ok: true });
  const words = new Uint32Array(proof.buffer, proof.byteOffset, proof.length / 4);
  return {
    set,
    numVariables: m,
    width,
    seed,
    commitmentHex: hex(encodeWhirCommitment(committed.commitment)),
    proofBytes: proof.length,
    proofDigest: [...sponge(words)],
  };
}

test("WHIR commitments and proofs match the checked-in known answers", () => {
  const got = CASES.map(([set, m, width, seed]) => compute(set, m, width, seed));
  if (process.env.UPDATE_PCS_VECTORS === "1") writeFileSync(FILE, `${JSON.stringify(got, null, 2)}\n`);
  const expected = JSON.parse(readFileSync(FILE, "utf8")) as Vector[];
  assert.equal(expected.length, CASES.length);
  got.forEach((g, i) => assert.deepEqual(g, expected[i], `${g.set} m=${g.numVariables} width=${g.width}`));
});
