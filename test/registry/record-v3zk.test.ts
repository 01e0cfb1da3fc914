/**
 * Proofs about a name in the zero-knowledge mode of profile v3 (`proveNameStatement(…, { zk:
 * true })`, docs/registry.md "Zero-knowledge proofs about a name"): every statement proves and
 * is accepted by the counterparty's one-call checks, which read the mode from the bytes and say
 * it (`profile: "v3-zk"`); false claims and damaged bytes are rejected with the codes of profile
 * v3; zk with profile v1 is `BAD_PROFILE` naming the option.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { proveNameStatement, type NameProof } from "../../src/registry/name-prove.js";
import { verifyRecordProof, verifyRecordUpdateProof, type RecordVerdict } from "../../src/registry/verify-record.js";
import { RegistryError } from "../../src/registry/errors.js";
import { bytesBase64, checkProofBody } from "../../src/counterparty/body.js";
import { proveNameRead } from "../../src/counterparty/prove.js";
import { hasV3Encoding, hasV3ZkEncoding } from "../../src/codec/v3/message.js";
import { whirSeededRandomSource } from "../../src/pcs/random.js";
import { tempDir } from "./support/tmp.js";

const DEPTH = 16;
const cfg = { depth: DEPTH };
const URL_A = "https://github.com/owner/alpha";
const zk = { zk: true } as const;
const codeOf = (v: RecordVerdict) => (v.ok ? `ACCEPT ${v.profile}` : v.code);

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

const le32 = (d: ArrayLike<number>) => new Uint8Array(Uint32Array.from(d).buffer);

test("v3-zk statements about a name: every statement accepted from the statement alone with profile v3-zk; false claims and damaged bytes rejected; no sibling in the bytes", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: DEPTH });
  try {
    for (const [n, v] of [
      ["alpha", URL_A],
      ["beta", "https://gitlab.com/b/beta"],
    ] as const)
      planNameUpdate(store, "insert", n, v).commit();
    const r0 = store.head().root;
    const member = proveNameStatement(store, "membership", "alpha", undefined, undefined, undefined, zk);
    const never = proveNameStatement(store, "nonmembership", "never-registered", undefined, undefined, undefined, zk);
    assert.deepEqual([member.profile, member.zk, never.profile, never.zk], ["v3", true, "v3", true]);
    assert.ok(hasV3ZkEncoding(member.proof) && hasV3ZkEncoding(never.proof));
    assert.ok(hasV3Encoding(member.proof), "a v3-zk proof is read as profile v3");
    const ins = proveNameStatement(store, "insert", "delta", "https://d.example/1", undefined, undefined, zk);
    const r1 = store.head().root;
    const rep = proveNameStatement(store, "replace", "delta", "https://d.example/2", undefined, undefined, zk);
    const r2 = store.head().root;
    const del = proveNameStatement(store, "delete", "delta", undefined, undefined, undefined, zk);
    const r3 = store.head().root;
    const res = proveNameStatement(store, "restore", "delta", "https://d.example/3", undefined, undefined, zk);
    const r4 = store.head().root;
    assert.deepEqual(rep.statementJson["old"], { record: true }, "a v3-zk replace states the old side as a record");

    const accepted: [string, RecordVerdict][] = [
      ["membership", verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, member.proof)],
      ["absence", verifyRecordProof({ trustedRoot: r0, name: "never-registered", absent: true, ...cfg }, never.proof)],
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
        "restore",
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
    for (const [what, v] of accepted) assert.equal(codeOf(v), "ACCEPT v3-zk", `${what}: ${v.ok ? "" : v.reason}`);

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
        "an absent name claimed present",
        "RECORD_ABSENT",
        verifyRecordProof({ trustedRoot: r0, name: "never-registered", value: "x", ...cfg }, never.proof),
      ],
      [
        "an update proof checked as a read",
        "STATEMENT_MISMATCH",
        verifyRecordProof({ trustedRoot: r0, name: "delta", value: "https://d.example/1", ...cfg }, ins.proof),
      ],
      [
        "an old value claimed against a replace",
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
        "another depth",
        "CONFIG_MISMATCH",
        verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, depth: 24 }, member.proof),
      ],
    ];
    for (const [what, code, v] of rejected) assert.equal(codeOf(v), code, `${what}: ${v.ok ? "" : v.reason}`);
    const t = verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, truncated);
    assert.ok(!t.ok && t.code.startsWith("DECODE_"), `truncated: ${codeOf(t)}`);
    const f = verifyRecordProof({ trustedRoot: r0, name: "alpha", value: URL_A, ...cfg }, flipped);
    assert.equal(f.ok, false, "a flipped byte is rejected");
    const m = rejected[2]![2];
    assert.ok(!m.ok && /membership proof/.test(m.reason), "the kind of a v3-zk proof is read from its identity");

    for (const p of [member, never, ins, rep, del, res] as NameProof[])
      for (const s of p.request.siblings)
        assert.ok(!contains(p.proof, le32(s)), `${p.statement}: a sibling digest appears in the proof bytes`);

    // the proof body the HTTP API and the page exchange: its verdict's scope names the mode
    const body = checkProofBody({ statement: never.statementJson, proof: bytesBase64(never.proof) }, undefined, r0);
    assert.equal(body.ok, true, body.reason);
    assert.match(body.scope!, /profile v3-zk: .*zero-knowledge/);
    const plain = proveNameStatement(store, "membership", "alpha", undefined, undefined, undefined, {
      profile: "v3",
    });
    assert.equal(plain.zk, false);
    const plainBody = checkProofBody({ statement: plain.statementJson, proof: bytesBase64(plain.proof) });
    assert.ok(plainBody.ok && !/v3-zk|zero-knowledge/.test(plainBody.scope!), plainBody.scope);
  } finally {
    await store.close();
  }
});

test("zk implies profile v3; zk with profile v1 is BAD_PROFILE naming the option; with one seed two proofs are the same bytes, otherwise they differ", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: DEPTH });
  try {
    planNameUpdate(store, "insert", "alpha", URL_A).commit();
    assert.throws(
      () =>
        proveNameStatement(store, "membership", "alpha", undefined, undefined, undefined, { zk: true, profile: "v1" }),
      (e: unknown) => e instanceof RegistryError && e.code === "BAD_PROFILE" && /options\.zk/.test(e.message),
    );
    assert.throws(
      () => proveNameRead(store, "alpha", undefined, { zk: true, profile: "v1" }),
      (e: unknown) => e instanceof RegistryError && e.code === "BAD_PROFILE",
    );
    const read = proveNameRead(store, "alpha", undefined, zk);
    assert.deepEqual([read.profile, read.zk, "request" in read], ["v3", true, false], "no request is handed out");
    const seeded = (seed: number) =>
      proveNameStatement(store, "nonmembership", "gone", undefined, undefined, undefined, {
        zk: true,
        random: whirSeededRandomSource(seed),
      }).proof;
    assert.deepEqual(seeded(7), seeded(7));
    const a = proveNameStatement(store, "nonmembership", "gone", undefined, undefined, undefined, zk).proof;
    const b = proveNameStatement(store, "nonmembership", "gone", undefined, undefined, undefined, zk).proof;
    assert.notDeepEqual(a, b, "two proofs of one statement are fresh randomness");
  } finally {
    await store.close();
  }
});
