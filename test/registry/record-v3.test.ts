import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { nameReadRequest, proveNameStatement, type NameProof } from "../../src/registry/name-prove.js";
import { proveRecordV3 } from "../../src/registry/record-v3.js";
import { recordLeaf } from "../../src/registry/mapping.js";
import { verifyRecordProof, verifyRecordUpdateProof, type RecordVerdict } from "../../src/registry/verify-record.js";
import { checkProofBody } from "../../src/counterparty/body.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { hasV3Encoding } from "../../src/codec/v3/message.js";
import { OpKind } from "../../src/statement/types.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { tempDir } from "./support/tmp.js";

const DEPTH = 20;
const cfg = { depth: DEPTH };
const URL_A = "https://github.com/owner/alpha";
const URL_B = "https://gitlab.com/b/beta";
const codeOf = (v: RecordVerdict) => (v.ok ? "ACCEPT" : v.code);
const v3 = { profile: "v3" } as const;

/** True iff `needle` occurs in `hay` as a byte sequence. */
function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

const le32 = (d: ArrayLike<number>) => new Uint8Array(Uint32Array.from(d).buffer);

test("profile v3 statements about a name: honest reads and updates accepted from the statement alone; false claims and forgeries rejected with their codes", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: DEPTH });
  try {
    for (const [n, v] of [
      ["alpha", URL_A],
      ["beta", URL_B],
      ["gamma", null],
    ] as const)
      planNameUpdate(store, "insert", n, v).commit();
    const r0 = store.head().root;
    const member = proveNameStatement(store, "membership", "alpha", undefined, undefined, undefined, v3);
    const never = proveNameStatement(store, "nonmembership", "never-registered", undefined, undefined, undefined, v3);
    assert.equal(member.profile, "v3");
    assert.ok(hasV3Encoding(member.proof) && hasV3Encoding(never.proof));
    const ins: NameProof = proveNameStatement(
      store,
      "insert",
      "delta",
      "https://d.example/1",
      undefined,
      undefined,
      v3,
    );
    const r1 = store.head().root;
    const rep = proveNameStatement(store, "replace", "delta", "https://d.example/2", undefined, undefined, v3);
    const r2 = store.head().root;
    const del = proveNameStatement(store, "delete", "delta", undefined, undefined, undefined, v3);
    const r3 = store.head().root;
    const gone = proveNameStatement(store, "nonmembership", "delta", undefined, undefined, undefined, v3);
    const res = proveNameStatement(store, "restore", "delta", "https://d.example/3", undefined, undefined, v3);
    const r4 = store.head().root;
    assert.deepEqual(rep.statementJson["old"], { record: true }, "a v3 replace states the old side as a record");
    assert.deepEqual(ins.statementJson["old"], { absent: true });

    const accepted: [string, RecordVerdict][] = [
      ["membership", verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, member.proof)],
      [
        "membership, request argument undefined",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, undefined, member.proof),
      ],
      [
        "absence (never registered)",
        verifyRecordProof({ trustedRoot: r0, name: "never-registered", absent: true, ...cfg }, never.proof),
      ],
      ["absence (deleted)", verifyRecordProof({ trustedRoot: r3, name: "delta", absent: true, ...cfg }, gone.proof)],
      [
        "insert",
        verifyRecordUpdateProof(
          {
            trustedRoot: r0,
            newRoot: r1,
            name: "delta",
            old: { absent: true },
            new: { value: "https://d.example/1" },
            ...cfg,
          },
          ins.proof,
        ),
      ],
      [
        "replace",
        verifyRecordUpdateProof(
          {
            trustedRoot: r1,
            newRoot: r2,
            name: "delta",
            old: { record: true },
            new: { value: "https://d.example/2" },
            ...cfg,
          },
          rep.proof,
        ),
      ],
      [
        "delete",
        verifyRecordUpdateProof(
          { trustedRoot: r2, newRoot: r3, name: "delta", old: { record: true }, new: { absent: true }, ...cfg },
          del.proof,
        ),
      ],
      [
        "restore (old absent: a Tombstone)",
        verifyRecordUpdateProof(
          {
            trustedRoot: r3,
            newRoot: r4,
            name: "delta",
            old: { absent: true },
            new: { value: "https://d.example/3" },
            ...cfg,
          },
          res.proof,
        ),
      ],
    ];
    for (const [what, v] of accepted) assert.equal(codeOf(v), "ACCEPT", `${what}: ${v.ok ? "" : v.reason}`);
    const m = accepted[0]![1];
    assert.ok(m.ok && m.kind === "membership" && m.key === BigInt(member.key));

    // a false membership: the proof of a leaf the registry does not hold, proved as it is
    const real = nameReadRequest(store, "membership", "beta").request;
    const lie: OpRequest = {
      ...real,
      operation: {
        ...real.operation,
        leaf: recordLeaf("beta", "https://evil.example/beta", 31),
      } as OpRequest["operation"],
    };
    const forged = proveRecordV3(lie, DEPTH, 31);
    const truncated = member.proof.slice(0, member.proof.length - 7);
    const flipped = member.proof.slice();
    flipped[flipped.length - 40]! ^= 1;
    const rejected: [string, string, RecordVerdict][] = [
      [
        "wrong value",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordProof(
          { trustedRoot: r0, name: "alpha", value: "https://github.com/evil/alpha", ...cfg },
          member.proof,
        ),
      ],
      [
        "the proof of one name for another",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordProof({ trustedRoot: r0, name: "beta", value: URL_A, ...cfg }, member.proof),
      ],
      [
        "another root",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordProof({ trustedRoot: r4, name: "alpha", value: URL_A, ...cfg }, member.proof),
      ],
      [
        "a present name claimed absent",
        "RECORD_PRESENT",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", absent: true, ...cfg }, member.proof),
      ],
      [
        "a deleted name claimed present",
        "RECORD_ABSENT",
        verifyRecordProof({ trustedRoot: r3, name: "delta", value: "https://d.example/2", ...cfg }, gone.proof),
      ],
      [
        "an update proof checked as a read",
        "STATEMENT_MISMATCH",
        verifyRecordProof({ trustedRoot: r0, name: "delta", value: "https://d.example/1", ...cfg }, ins.proof),
      ],
      [
        "a read proof checked as an update",
        "STATEMENT_MISMATCH",
        verifyRecordUpdateProof(
          { trustedRoot: r0, newRoot: r0, name: "alpha", old: { record: true }, new: { value: URL_A }, ...cfg },
          member.proof,
        ),
      ],
      [
        "an old value claimed against a v3 replace",
        "STATEMENT_MISMATCH",
        verifyRecordUpdateProof(
          {
            trustedRoot: r1,
            newRoot: r2,
            name: "delta",
            old: { value: "https://d.example/1" },
            new: { value: "https://d.example/2" },
            ...cfg,
          },
          rep.proof,
        ),
      ],
      [
        "a replace claimed as an insert (old absent)",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordUpdateProof(
          {
            trustedRoot: r1,
            newRoot: r2,
            name: "delta",
            old: { absent: true },
            new: { value: "https://d.example/2" },
            ...cfg,
          },
          rep.proof,
        ),
      ],
      [
        "an insert claimed as a replace (old record)",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordUpdateProof(
          {
            trustedRoot: r0,
            newRoot: r1,
            name: "delta",
            old: { record: true },
            new: { value: "https://d.example/1" },
            ...cfg,
          },
          ins.proof,
        ),
      ],
      [
        "another new root",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordUpdateProof(
          {
            trustedRoot: r0,
            newRoot: r2,
            name: "delta",
            old: { absent: true },
            new: { value: "https://d.example/1" },
            ...cfg,
          },
          ins.proof,
        ),
      ],
      [
        "another new value",
        "PUBLIC_INPUTS_MISMATCH",
        verifyRecordUpdateProof(
          {
            trustedRoot: r1,
            newRoot: r2,
            name: "delta",
            old: { record: true },
            new: { value: "https://d.example/9" },
            ...cfg,
          },
          rep.proof,
        ),
      ],
      [
        "another depth",
        "CONFIG_MISMATCH",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, depth: 24 }, member.proof),
      ],
      [
        "a false membership proved as it is",
        "forged",
        verifyRecordProof({ trustedRoot: r4, name: "beta", value: "https://evil.example/beta", ...cfg }, forged),
      ],
      [
        "a truncated proof",
        "truncated",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, truncated),
      ],
      [
        "a flipped byte",
        "flipped",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, flipped),
      ],
    ];
    for (const [what, code, v] of rejected) {
      assert.equal(v.ok, false, `${what} must be rejected`);
      if (!v.ok && !["forged", "truncated", "flipped"].includes(code))
        assert.equal(v.code, code, `${what}: ${v.reason}`);
    }
    const f = rejected.find(([w]) => w.startsWith("a false membership"))![2];
    assert.ok(
      !f.ok && f.code !== "PUBLIC_INPUTS_MISMATCH",
      `${f.ok ? "" : f.code + ": " + f.reason}: the forged proof is for the false statement itself: it fails in GKR or the opening, not on the statement digest`,
    );
    const t = rejected.find(([w]) => w === "a truncated proof")![2];
    assert.ok(!t.ok && t.code.startsWith("DECODE_"), `truncated: ${t.ok ? "" : t.code}`);

    // no witness value in the proof bytes: no sibling of the path, no leaf digest of the neighbours
    for (const p of [member, never, ins, rep, del, res]) {
      for (const s of p.request.siblings)
        assert.ok(!contains(p.proof, le32(s)), `${p.statement}: a sibling digest appears in the proof bytes`);
    }
  } finally {
    await store.close();
  }
});

test("profile v3 proof bodies: {statement, proof} without a request checked by checkProofBody; a v1 body still needs its request", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: DEPTH });
  try {
    planNameUpdate(store, "insert", "alpha", URL_A).commit();
    planNameUpdate(store, "insert", "beta", URL_B).commit();
    const rep = proveNameStatement(store, "replace", "beta", "https://b.example/2", undefined, undefined, v3);
    const member = proveNameStatement(store, "membership", "alpha", undefined, undefined, undefined, v3);
    const v1 = proveNameStatement(store, "membership", "alpha");
    const ok = checkProofBody(
      { statement: member.statementJson, proof: bytesBase64(member.proof) },
      "alpha",
      store.head().root,
    );
    assert.equal(ok.ok, true, ok.reason);
    assert.match(ok.scope!, /profile v3/);
    const upd = checkProofBody({ statement: rep.statementJson, proof: bytesBase64(rep.proof) });
    assert.equal(upd.ok, true, upd.reason);
    assert.match(upd.statement, /a live record \(value not stated\)/);
    const lied = checkProofBody({
      statement: { ...member.statementJson, value: "https://evil.example" },
      proof: bytesBase64(member.proof),
    });
    assert.equal(lied.code, "PUBLIC_INPUTS_MISMATCH");
    const noRequest = checkProofBody({ statement: v1.statementJson, proof: bytesBase64(v1.proof) });
    assert.equal(noRequest.code, "BAD_CLAIM");
    // bytes that name no known encoding, given without a request, are read as profile v3 and
    // rejected by its decoder (not taken for a compat-v1 proof missing its request)
    const damaged = member.proof.slice();
    damaged[8]! ^= 1;
    for (const bytes of [damaged, new Uint8Array(0)]) {
      const body = checkProofBody({ statement: member.statementJson, proof: bytesBase64(bytes) });
      assert.match(body.code ?? "", /^DECODE_/, `body check: ${body.code}`);
      const lib = verifyRecordProof(
        { trustedRoot: store.head().root, name: "alpha", value: URL_A, depth: DEPTH },
        bytes,
      );
      assert.ok(!lib.ok && lib.code.startsWith("DECODE_"), `library: ${lib.ok ? "ACCEPT" : lib.code}`);
    }
    assert.equal(OpKind.Membership, "membership");
  } finally {
    await store.close();
  }
});
