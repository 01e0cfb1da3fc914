import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { RegistryError } from "../../src/registry/errors.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { insertRecord } from "../../src/registry/operations.js";
import { proveStatement } from "../../src/registry/prove.js";
import { parseRequestText, requestToJson } from "../../src/sync/request.js";
import { toOpRequest } from "../../src/sync/request-convert.js";
import { prepare } from "../../src/sync/prepared.js";
import { verifyEncoded } from "../../src/sync/encoded.js";
import { main } from "../../src/cli/main.js";
import { tempDir } from "./support/tmp.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const arr = (d: ArrayLike<number>) => Array.from(d);

/** Verifies a proof the way a counterparty would: from the request JSON text and the bytes. */
function accepts(requestJson: unknown, proof: Uint8Array): boolean {
  const file = parseRequestText(JSON.stringify(requestJson));
  const prepared = prepare(file.kind, { depth: file.depth, leafMaxFields: file.leafMaxFields });
  return verifyEncoded(prepared, toOpRequest(file), proof).ok;
}

test("registry proofs: membership, non-membership (never used, deleted), insert and delete verify; updates commit", async () => {
  const store = RegistryStore.openOrCreate(join(tempDir(), "db"), { depth: 4 });
  insertRecord(store, "left-pad", "https://github.com/left-pad/left-pad");
  insertRecord(store, "gone", null);
  const root0 = arr(store.head().root);

  const m = proveStatement(store, "membership", { name: "left-pad" });
  assert.equal(m.request.kind, "membership");
  assert.deepEqual(arr(m.request.oldRoot), root0);
  assert.ok(accepts(requestToJson(m.request), m.proof));

  const e = proveStatement(store, "nonmembership", { slot: 9 });
  assert.equal(e.request.oldLeaf.tag, 0);
  assert.ok(accepts(requestToJson(e.request), e.proof));

  const d = proveStatement(store, "delete", { name: "gone" });
  assert.equal(d.request.kind, "update");
  assert.deepEqual(arr(d.request.oldRoot), root0);
  assert.deepEqual(arr(d.request.newRoot), arr(store.head().root), "the delete was committed");
  assert.equal(d.update!.entry.kind, "delete");
  assert.ok(accepts(requestToJson(d.request), d.proof));

  const t = proveStatement(store, "nonmembership", { name: "gone" });
  assert.equal(t.request.oldLeaf.tag, 2);
  assert.ok(accepts(requestToJson(t.request), t.proof));

  const i = proveStatement(store, "insert", { name: "new" }, { fields: [1, 2] });
  assert.equal(i.slot, 2);
  assert.ok(accepts(requestToJson(i.request), i.proof));

  const before = store.history().length;
  assert.throws(() => proveStatement(store, "membership", { slot: 9 }), code("RECORD_ABSENT"));
  assert.throws(() => proveStatement(store, "nonmembership", { name: "left-pad" }), code("RECORD_LIVE"));
  assert.throws(() => proveStatement(store, "insert", { name: "left-pad" }, null), code("NAME_EXISTS"));
  assert.throws(() => proveStatement(store, "restore", { name: "left-pad" }), code("RECORD_LIVE"));
  assert.equal(store.history().length, before);
  await store.close();
});

test("registry prove CLI writes request.json and proof.bin; a false membership statement exits 1", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const store = RegistryStore.openOrCreate(db, { depth: 4 });
  insertRecord(store, "a", "https://gitlab.com/a/a");
  await store.close();
  const err: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const out = process.stdout.write.bind(process.stdout);
  process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let ok: number, absent: number;
  try {
    ok = await main([
      "node",
      "ssgkr",
      "registry",
      "prove",
      "replace",
      "--db",
      db,
      "--name",
      "a",
      "--value",
      "https://github.com/a/a",
      "--out",
      join(base, "p"),
    ]);
    absent = await main([
      "node",
      "ssgkr",
      "registry",
      "prove",
      "membership",
      "--db",
      db,
      "--slot",
      "7",
      "--out",
      join(base, "q"),
    ]);
  } finally {
    process.stderr.write = write;
    process.stdout.write = out;
  }
  assert.equal(ok, 0, err.join(""));
  const requestJson = JSON.parse(readFileSync(join(base, "p", "request.json"), "utf8"));
  assert.equal(requestJson.kind, "update");
  assert.equal(requestJson.new_leaf.payload[0], 1);
  assert.ok(accepts(requestJson, new Uint8Array(readFileSync(join(base, "p", "proof.bin")))));
  assert.equal(absent, 1);
  assert.match(err.join(""), /^FALSE RECORD_ABSENT: /m);
});
