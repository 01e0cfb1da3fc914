/**
 * Names compare by code point; records are written only under names in Unicode NFC. Writes of
 * another spelling are refused (`NAME_NOT_NFC`, naming the NFC form) in the CLI, the library and
 * the import; reads and proofs of such a spelling answer for that exact spelling with a notice;
 * the counterparty checks accept no live record under it; `registry check` lists records under
 * such names (written here by a test-only path that disables the check, as a registry written
 * before names were checked holds them).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tempFile } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { insertRecord } from "../../src/registry/operations.js";
import { RegistryError } from "../../src/registry/errors.js";
import { nfcFormOf, requireNfcName } from "../../src/registry/name-form.js";
import { proveNameStatement } from "../../src/registry/name-prove.js";
import { verifyRecordProof } from "../../src/registry/verify-record.js";
import { verifyNameStatement } from "../../src/counterparty/verify.js";
import { proveNameRead } from "../../src/counterparty/prove.js";
import { claimOf } from "../../src/counterparty/claim.js";
import { requestToJson } from "../../src/sync/request.js";

/** "é" as e + U+0301 COMBINING ACUTE ACCENT (not NFC) and as U+00E9 (its NFC form): they print alike. */
const DECOMPOSED = "caf\u0065\u0301";
const COMPOSED = "caf\u00e9";

/** Runs `fn` with the NFC check disabled: the test-only path that writes a record under a name not in NFC. */
function withoutNfcCheck<T>(fn: () => T): T {
  const normalize = String.prototype.normalize;
  String.prototype.normalize = function (this: string) {
    return String(this);
  };
  try {
    return fn();
  } finally {
    String.prototype.normalize = normalize;
  }
}

test("name form: the two spellings differ, only the composed one is NFC, and requireNfcName names the NFC form", () => {
  assert.notEqual(DECOMPOSED, COMPOSED);
  assert.equal(nfcFormOf(DECOMPOSED), COMPOSED);
  assert.equal(nfcFormOf(COMPOSED), undefined);
  assert.equal(nfcFormOf("left-pad"), undefined);
  assert.throws(
    () => requireNfcName(DECOMPOSED),
    (e: unknown) =>
      e instanceof RegistryError &&
      e.code === "NAME_NOT_NFC" &&
      e.message.includes(JSON.stringify(COMPOSED)) &&
      e.message.includes("U+0065 U+0301") &&
      e.message.includes("U+00E9") &&
      (e.details as { nfc?: string }).nfc === COMPOSED,
  );
});

test("registry CLI: an insert under a name not in NFC is refused (exit 2, error NAME_NOT_NFC with the NFC form); the NFC spelling is accepted", async () => {
  const db = join(tempDir(), "db");
  assert.equal(
    (
      await runCli(
        "registry",
        "import",
        "--db",
        db,
        "--file",
        tempFile("r.ndjson", '{"name":"left-pad","value":"https://github.com/left-pad/left-pad"}\n'),
        "--depth",
        "16",
        "--threads",
        "0",
        "--no-progress",
      )
    ).code,
    0,
  );
  const before = (await runCli("registry", "root", "--db", db, "--json")).out;
  for (const args of [
    ["insert", "--value", "https://x.example/a"],
    ["replace", "--value", "https://x.example/a"],
    ["restore"],
  ]) {
    const r = await runCli("registry", args[0]!, "--db", db, "--name", DECOMPOSED, ...args.slice(1));
    assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
    assert.equal(r.err.trimEnd().split("\n").length, 1, r.err);
    assert.match(r.err, /^error NAME_NOT_NFC: record name .* is not in Unicode NFC/);
    assert.ok(r.err.includes(`NFC form ${JSON.stringify(COMPOSED)} (U+0063 U+0061 U+0066 U+00E9)`), r.err);
  }
  const proved = await runCli(
    "registry",
    "prove",
    "insert",
    "--db",
    db,
    "--name",
    DECOMPOSED,
    "--value",
    "https://x.example/a",
    "--out",
    join(tempDir(), "p"),
  );
  assert.equal(proved.code, 2);
  assert.match(proved.err, /^error NAME_NOT_NFC:/);
  assert.equal((await runCli("registry", "root", "--db", db, "--json")).out, before, "a refused write changed nothing");
  const ok = await runCli("registry", "insert", "--db", db, "--name", COMPOSED, "--value", "https://x.example/cafe");
  assert.equal(ok.code, 0, ok.err);
  assert.doesNotMatch(ok.out, /notice/);

  // the slot mapping applies the same rule
  const slot = RegistryStore.openOrCreate(join(tempDir(), "slot"), { depth: 8 });
  try {
    assert.throws(
      () => insertRecord(slot, DECOMPOSED, null),
      (e: unknown) => e instanceof RegistryError && e.code === "NAME_NOT_NFC",
    );
    assert.equal(insertRecord(slot, COMPOSED, null).kind, "insert");
  } finally {
    await slot.close();
  }
});

test("registry import: a record under a name not in NFC is malformed (NAME_NOT_NFC): refused with --on-error fail, left out with skip", async () => {
  const file = tempFile(
    "r.ndjson",
    `{"name":"a","value":null}\n{"name":${JSON.stringify(DECOMPOSED)},"value":null}\n{"name":${JSON.stringify(COMPOSED)},"value":null}\n`,
  );
  const fail = await runCli(
    "registry",
    "import",
    "--db",
    join(tempDir(), "db"),
    "--file",
    file,
    "--depth",
    "16",
    "--threads",
    "0",
    "--no-progress",
  );
  assert.equal(fail.code, 2);
  assert.match(fail.err, /line 2: NAME_NOT_NFC: record name .*NFC form/);
  const db = join(tempDir(), "db");
  const skip = await runCli(
    "registry",
    "import",
    "--db",
    db,
    "--file",
    file,
    "--depth",
    "16",
    "--threads",
    "0",
    "--no-progress",
    "--on-error",
    "skip",
    "--json",
  );
  assert.equal(skip.code, 0, skip.err);
  assert.equal(JSON.parse(skip.out).imported, 2);
  assert.match((await runCli("registry", "get", "--db", db, "--name", COMPOSED)).out, /: live/);
});

test("registry CLI: reads and proofs of a name not in NFC answer for that exact spelling (absent), with a notice giving the NFC form; the counterparty accepts the absence with the notice", async () => {
  const dir = tempDir();
  const db = join(dir, "db");
  assert.equal(
    (
      await runCli(
        "registry",
        "import",
        "--db",
        db,
        "--file",
        tempFile("r.ndjson", `{"name":${JSON.stringify(COMPOSED)},"value":"https://x.example/cafe"}\n`),
        "--depth",
        "16",
        "--threads",
        "0",
        "--no-progress",
      )
    ).code,
    0,
  );
  const got = await runCli("registry", "get", "--db", db, "--name", DECOMPOSED);
  assert.equal(got.code, 0, got.err);
  assert.match(got.out, /: never registered\n/);
  assert.match(
    got.out,
    /\nnotice: the name .* is not in Unicode NFC: this answer is about that exact spelling; .*NFC form "café" \(U\+0063 U\+0061 U\+0066 U\+00E9\)\n$/,
  );
  const gotJson = JSON.parse((await runCli("registry", "get", "--db", db, "--name", DECOMPOSED, "--json")).out);
  assert.equal(gotJson.nfcName, COMPOSED);
  assert.match(gotJson.nameNotice, /not in Unicode NFC/);
  assert.equal(
    JSON.parse((await runCli("registry", "get", "--db", db, "--name", COMPOSED, "--json")).out).nfcName,
    undefined,
  );

  const out = join(dir, "absent");
  const proved = await runCli("registry", "prove", "nonmembership", "--db", db, "--name", DECOMPOSED, "--out", out);
  assert.equal(proved.code, 0, proved.err);
  assert.match(proved.out, /\nnotice: the name .* is not in Unicode NFC/);
  const membership = await runCli(
    "registry",
    "prove",
    "membership",
    "--db",
    db,
    "--name",
    DECOMPOSED,
    "--out",
    join(dir, "m"),
  );
  assert.equal(membership.code, 1, "the exact spelling holds no record");
  const root = JSON.parse((await runCli("registry", "root", "--db", db, "--json")).out).root as string;
  const files = ["--request", join(out, "request.json"), "--proof", join(out, "proof.bin"), "--depth", "16"];
  const accepted = await runCli("registry", "verify", "--name", DECOMPOSED, "--absent", "--root", root, ...files);
  assert.equal(accepted.code, 0, accepted.out);
  assert.match(accepted.out, /^ACCEPT name=.* absent root=[0-9a-f]{64}\nnotice: the name .* is not in Unicode NFC/);
  const claimedLive = await runCli(
    "registry",
    "verify",
    "--name",
    DECOMPOSED,
    "--value",
    "https://x.example/cafe",
    "--root",
    root,
    ...files,
  );
  assert.equal(claimedLive.code, 1);
  assert.match(
    claimedLive.out,
    /^REJECT NAME_NOT_NFC: the claim is that .* holds a live record, but that name is not in Unicode NFC.*its NFC form is "café"/,
  );
  const statement = JSON.parse(readFileSync(join(out, "statement.json"), "utf8"));
  assert.equal(statement.name, DECOMPOSED);
  assert.equal(statement.absent, true);
});

test("counterparty checks: a live record under a name not in NFC is never accepted (NAME_NOT_NFC), for name-keyed and slot statements; registry check lists such records", async () => {
  const dir = tempDir();
  const store = NameStore.openOrCreate(join(dir, "named"), { depth: 12 });
  try {
    planNameUpdate(store, "insert", COMPOSED, "https://x.example/nfc").commit();
    withoutNfcCheck(() => planNameUpdate(store, "insert", DECOMPOSED, "https://x.example/other").commit());
    const p = proveNameStatement(store, "membership", DECOMPOSED);
    const root = store.head().root;
    const v = verifyRecordProof(
      { trustedRoot: root, name: DECOMPOSED, value: "https://x.example/other", depth: 12 },
      requestToJson(p.request),
      p.proof,
    );
    assert.equal(v.ok, false);
    assert.equal(!v.ok && v.code, "NAME_NOT_NFC");
    const nfc = proveNameStatement(store, "membership", COMPOSED);
    assert.equal(
      verifyRecordProof(
        { trustedRoot: root, name: COMPOSED, value: "https://x.example/nfc", depth: 12 },
        requestToJson(nfc.request),
        nfc.proof,
      ).ok,
      true,
    );
    // the HTTP-facing call (statement JSON → claim) applies the same rule
    const read = proveNameRead(store, DECOMPOSED);
    const verdict = verifyNameStatement(claimOf(read.statement), read.request, read.proof);
    assert.deepEqual(verdict.ok ? "ACCEPT" : verdict.code, "NAME_NOT_NFC");
    // a legacy record may be deleted (its spelling then holds no record), and never restored
    planNameUpdate(store, "delete", DECOMPOSED).commit();
    assert.throws(
      () => planNameUpdate(store, "restore", DECOMPOSED),
      (e: unknown) => e instanceof RegistryError && e.code === "NAME_NOT_NFC",
    );
  } finally {
    await store.close();
  }
  const check = await runCli("registry", "check", "--db", join(dir, "named"), "--no-progress");
  assert.equal(check.code, 0, check.err);
  assert.match(
    check.out,
    /^ok: 2 records .*\n1 record under names not in Unicode NFC \(kept; new records are written only under NFC names\):\n  key \d+ deleted /,
  );
  assert.ok(
    check.out.endsWith(
      ` deleted ${JSON.stringify(DECOMPOSED)} (U+0063 U+0061 U+0066 U+0065 U+0301); NFC form ${JSON.stringify(COMPOSED)} (U+0063 U+0061 U+0066 U+00E9)\n`,
    ),
    check.out,
  );
  const checkJson = JSON.parse((await runCli("registry", "check", "--db", join(dir, "named"), "--json")).out);
  assert.deepEqual(
    checkJson.nonNfc.map((r: { name: string; nfc: string; state: string }) => [r.name, r.nfc, r.state]),
    [[DECOMPOSED, COMPOSED, "deleted"]],
  );

  const slot = RegistryStore.openOrCreate(join(dir, "slot"), { depth: 8 });
  try {
    insertRecord(slot, COMPOSED, "https://x.example/nfc");
    withoutNfcCheck(() => insertRecord(slot, DECOMPOSED, "https://x.example/other"));
    const read = proveNameRead(slot, DECOMPOSED);
    const verdict = verifyNameStatement(claimOf(read.statement), read.request, read.proof);
    assert.deepEqual(verdict.ok ? "ACCEPT" : verdict.code, "NAME_NOT_NFC");
    const nfc = proveNameRead(slot, COMPOSED);
    assert.equal(verifyNameStatement(claimOf(nfc.statement), nfc.request, nfc.proof).ok, true);
  } finally {
    await slot.close();
  }
  const slotCheck = await runCli("registry", "check", "--db", join(dir, "slot"), "--threads", "0", "--no-progress");
  assert.equal(slotCheck.code, 0, slotCheck.err);
  assert.ok(
    slotCheck.out.endsWith(
      `\n  slot 1 live ${JSON.stringify(DECOMPOSED)} (U+0063 U+0061 U+0066 U+0065 U+0301); NFC form ${JSON.stringify(COMPOSED)} (U+0063 U+0061 U+0066 U+00E9)\n`,
    ),
    slotCheck.out,
  );
  assert.match(slotCheck.out, /\n1 record under names not in Unicode NFC /);
});
