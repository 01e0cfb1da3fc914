/**
 * Known-answer checks of the sparse-Merkle frontend for `ssgkr selftest` (compat-v1 §18):
 * leaf hashes, the golden fixture's roots, the pinned d24 membership commitment and the three
 * golden proofs (SHA-256 and length).
 */
import { createHash } from "node:crypto";
import { EMPTY, TOMBSTONE, hashLeaf, limbs } from "../smt/leaf.js";
import { goldenFixture } from "../smt/fixture.js";
import { OpKind } from "../statement/types.js";
import { prepare, type PreparedSync } from "../sync/prepared.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../sync/encoded.js";
import type { KnownAnswerCheck } from "./selftest-checks.js";

const prepared = new Map<OpKind, PreparedSync>();
function prepared24(kind: OpKind): PreparedSync {
  let p = prepared.get(kind);
  if (!p) prepared.set(kind, (p = prepare(kind, { depth: 24 })));
  return p;
}

function hexWords(hex: string): number[] {
  return hex.match(/.{8}/g)!.map((w) => parseInt(w, 16));
}

/** [length, 8 words of SHA-256, 1 if the proof verifies] of the golden proof of F(kind, 24, 5). */
function goldenProof(kind: OpKind): number[] {
  const prep = prepared24(kind);
  const request = goldenFixture(kind, 24, 5n);
  const bytes = encodeSyncResult(prep, provePrepared(prep, request));
  const ok = verifyEncoded(prep, request, bytes).ok ? 1 : 0;
  return [bytes.length, ...hexWords(createHash("sha256").update(bytes).digest("hex")), ok];
}

export const GOLDEN_CHECKS: KnownAnswerCheck[] = [
  {
    name: "h_leaf(Empty), B = 31 (spec §18)",
    run: () => Array.from(hashLeaf(EMPTY)),
    expected: [1909596571, 2084703925, 2076132673, 1660320635, 485629442, 1540884636, 1753030895, 352396268],
  },
  {
    name: "h_leaf(Tombstone), B = 31 (spec §18)",
    run: () => Array.from(hashLeaf(TOMBSTONE)),
    expected: [1413360753, 889469805, 342662304, 1708929337, 188312453, 606778231, 1830580533, 1667069054],
  },
  {
    name: "limbs(32 × 0x09) (spec §18)",
    run: () => limbs(new Uint8Array(32).fill(9)),
    expected: [151587081, 606348324, 277909648, 37896770, 151587081, 606348324, 277909648, 37896770, 2313],
  },
  {
    name: "F(Membership, 24, 5) old_root (spec §18)",
    run: () => Array.from(goldenFixture(OpKind.Membership, 24, 5n).publicInputs.oldRoot),
    expected: [713004424, 270442322, 1876444405, 1505254917, 494852605, 719176658, 1480955704, 421700720],
  },
  {
    name: "d24 membership circuit commitment (spec §18)",
    run: () => Array.from(prepared24(OpKind.Membership).commitment),
    expected: [438623915, 1302919243, 1221834511, 1542247335, 222756456, 991215267, 847238870, 120576555],
  },
  {
    name: "golden proof membership-d24: length, SHA-256 words, verifies",
    run: () => goldenProof(OpKind.Membership),
    expected: [176948, ...hexWords("35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587"), 1],
  },
  {
    name: "golden proof nonmembership-d24: length, SHA-256 words, verifies",
    run: () => goldenProof(OpKind.NonMembership),
    expected: [181646, ...hexWords("1873091159ec39569a49090dc209a675cd9373ac2bfee69e04c62411de99f1fa"), 1],
  },
  {
    name: "golden proof update-d24: length, SHA-256 words, verifies",
    run: () => goldenProof(OpKind.Update),
    expected: [186992, ...hexWords("aa4b5d5844e2fdeb70b04601f42383d7ff72d920bdf0ba0e2ba0acfb29cb8a20"), 1],
  },
];
