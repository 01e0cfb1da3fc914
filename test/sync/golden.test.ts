import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared, proveSync } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { decodeProof } from "../../src/codec/index.js";
import { occupied } from "../../src/smt/leaf.js";
import type { OpRequest } from "../../src/smt/operation.js";

/** compat-v1 §18: the reference engine's committed golden proofs of F(kind, 24, 5). */
const GOLDEN: Record<string, { length: number; sha256: string }> = {
  [OpKind.Membership]: { length: 176948, sha256: "35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587" },
  [OpKind.NonMembership]: {
    length: 181646,
    sha256: "1873091159ec39569a49090dc209a675cd9373ac2bfee69e04c62411de99f1fa",
  },
  [OpKind.Update]: { length: 186992, sha256: "aa4b5d5844e2fdeb70b04601f42383d7ff72d920bdf0ba0e2ba0acfb29cb8a20" },
};

const prepared = new Map<OpKind, PreparedSync>();
const proofs = new Map<OpKind, Uint8Array>();
function setup(kind: OpKind): { prep: PreparedSync; bytes: Uint8Array; request: OpRequest } {
  if (!prepared.has(kind)) {
    const prep = prepare(kind, { depth: 24 });
    prepared.set(kind, prep);
    proofs.set(kind, encodeSyncResult(prep, provePrepared(prep, goldenFixture(kind, 24, 5n))));
  }
  return { prep: prepared.get(kind)!, bytes: proofs.get(kind)!, request: goldenFixture(kind, 24, 5n) };
}

for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
  test(`golden proof of F(${kind}, 24, 5) is byte-identical to the reference and verifies`, () => {
    const { prep, bytes, request } = setup(kind);
    assert.equal(bytes.length, GOLDEN[kind]!.length);
    assert.equal(createHash("sha256").update(bytes).digest("hex"), GOLDEN[kind]!.sha256);
    assert.deepEqual(verifyEncoded(prep, request, bytes), { ok: true });
    assert.equal(decodeProof(bytes).proof.layers.length, 118);
  });
}

test("pinned d24 membership commitment (spec §18)", () => {
  const { prep } = setup(OpKind.Membership);
  assert.deepEqual(
    Array.from(prep.commitment),
    [438623915, 1302919243, 1221834511, 1542247335, 222756456, 991215267, 847238870, 120576555],
  );
});

test("flipping any single byte at offsets 17..165 is rejected", () => {
  const { prep, bytes, request } = setup(OpKind.Membership);
  for (let off = 17; off <= 165; off++) {
    const t = bytes.slice();
    t[off]! ^= 0x01;
    const v = verifyEncoded(prep, request, t);
    assert.equal(v.ok, false, `flip at ${off} accepted`);
  }
});

test("tampered round coefficient, trailing byte, other kind, other request are rejected", () => {
  const { prep, bytes, request } = setup(OpKind.Membership);
  const coeff = bytes.slice();
  coeff[175]! ^= 0x01; // first coefficient of layer 0 round 0
  assert.equal(verifyEncoded(prep, request, coeff).ok, false);
  const trailing = new Uint8Array(bytes.length + 1);
  trailing.set(bytes);
  assert.deepEqual(verifyEncoded(prep, request, trailing).ok, false);
  // A non-membership proof against the membership circuit and request.
  const other = setup(OpKind.NonMembership);
  const v = verifyEncoded(prep, request, other.bytes);
  assert.ok(!v.ok && v.code === "IDENTITY_MISMATCH");
  // The same proof checked against a different request (another payload) is rejected.
  if (request.operation.kind !== OpKind.Membership) throw new Error("fixture kind");
  const leaf = occupied([43, 5], request.operation.leaf.identity);
  const changed: OpRequest = {
    ...request,
    operation: { ...request.operation, leaf },
    witness: { ...request.witness, leaf },
  };
  assert.equal(verifyEncoded(prep, changed, bytes).ok, false);
});

test("fresh and prepared proving give identical bytes (depth 4)", () => {
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const request = goldenFixture(kind, 4, 9n);
    const prep = prepare(kind, { depth: 4 });
    const a = encodeSyncResult(prep, provePrepared(prep, request));
    const b = encodeSyncResult(prep, proveSync(request, { depth: 4 }));
    assert.deepEqual(a, b);
    assert.deepEqual(verifyEncoded(prep, request, a), { ok: true });
  }
});
