import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { requestToJson, type SyncRequest } from "../../src/sync/request.js";
import { RegistryError } from "../../src/registry/errors.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { proveNameStatement, type NameProof } from "../../src/registry/name-prove.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { insertRecord } from "../../src/registry/operations.js";
import { proveStatement } from "../../src/registry/prove.js";
import {
  cachedPrepared,
  parseRoot,
  verifyRecordProof,
  verifyRecordUpdateProof,
  type RecordVerdict,
} from "../../src/registry/verify-record.js";
import { OpKind } from "../../src/statement/types.js";
import { tempDir } from "./support/tmp.js";

const DEPTH = 20;
const URL_A = "https://github.com/owner/alpha";
const codeOf = (v: RecordVerdict) => (v.ok ? "ACCEPT" : v.code);
const prep = (kind: OpKind) => cachedPrepared(kind, DEPTH, 31);
const text = (p: NameProof) => JSON.stringify(requestToJson(p.request));
const edit = (p: NameProof, f: (j: Record<string, unknown>) => void) => {
  const j = requestToJson(p.request);
  f(j);
  return JSON.stringify(j);
};

test("verifyRecordProof: honest membership and absence accepted; each false claim or forgery rejected with its own code", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: DEPTH });
  for (const [n, v] of [
    ["alpha", URL_A],
    ["beta", "https://gitlab.com/b/beta"],
    ["gamma", null],
    ["delta", "https://github.com/d/delta"],
  ] as const)
    planNameUpdate(store, "insert", n, v).commit();
  const member = proveNameStatement(store, "membership", "alpha", undefined, prep);
  const never = proveNameStatement(store, "nonmembership", "never-registered", undefined, prep);
  const betaMember = proveNameStatement(store, "membership", "beta", undefined, prep);
  const rootBefore = store.head().root;
  const del = proveNameStatement(store, "delete", "beta", undefined, prep);
  const root = store.head().root;
  const gone = proveNameStatement(store, "nonmembership", "beta", undefined, prep);
  const member2 = proveNameStatement(store, "membership", "alpha", undefined, prep);
  const cfg = { depth: DEPTH };

  const never2 = proveNameStatement(store, "nonmembership", "never-registered", undefined, prep);
  const results: [string, RecordVerdict][] = [
    [
      "honest membership",
      verifyRecordProof({ trustedRoot: root, name: "alpha", value: URL_A, ...cfg }, text(member2), member2.proof),
    ],
    [
      "honest absence (never registered)",
      verifyRecordProof(
        { trustedRoot: root, name: "never-registered", absent: true, ...cfg },
        text(never2),
        never2.proof,
      ),
    ],
    [
      "honest absence (deleted)",
      verifyRecordProof({ trustedRoot: root, name: "beta", absent: true, ...cfg }, text(gone), gone.proof),
    ],
  ];
  for (const [what, v] of results) assert.equal(codeOf(v), "ACCEPT", `${what}: ${v.ok ? "" : v.reason}`);

  const flipped = member2.proof.slice();
  flipped[flipped.length - 40]! ^= 1;
  const rejections: [string, string, RecordVerdict][] = [
    [
      "wrong name (leaf identity of another name under this name's key)",
      "NAME_MISMATCH",
      verifyRecordProof(
        { trustedRoot: root, name: "alpha", value: URL_A, ...cfg },
        edit(member2, (j) => {
          (j["old_leaf"] as Record<string, unknown>)["identity"] = (j["new_leaf"] as Record<string, unknown>)[
            "identity"
          ] = "11".repeat(32);
        }),
        member2.proof,
      ),
    ],
    [
      "wrong value",
      "VALUE_MISMATCH",
      verifyRecordProof(
        { trustedRoot: root, name: "alpha", value: "https://github.com/evil/alpha", ...cfg },
        text(member2),
        member2.proof,
      ),
    ],
    [
      "wrong root (request rewritten to the trusted root)",
      "PUBLIC_INPUTS_MISMATCH",
      verifyRecordProof(
        { trustedRoot: root, name: "beta", value: "https://gitlab.com/b/beta", ...cfg },
        edit(betaMember, (j) => {
          j["old_root"] = j["new_root"] = Array.from(root);
        }),
        betaMember.proof,
      ),
    ],
    [
      "a deleted name claimed present",
      "RECORD_ABSENT",
      verifyRecordProof(
        { trustedRoot: root, name: "beta", value: "https://gitlab.com/b/beta", ...cfg },
        text(gone),
        gone.proof,
      ),
    ],
    [
      "a present name claimed absent",
      "RECORD_PRESENT",
      verifyRecordProof({ trustedRoot: root, name: "alpha", absent: true, ...cfg }, text(member2), member2.proof),
    ],
    [
      "the proof of one name replayed for another",
      "KEY_MISMATCH",
      verifyRecordProof({ trustedRoot: root, name: "delta", value: URL_A, ...cfg }, text(member2), member2.proof),
    ],
    [
      "a flipped proof byte",
      "flipped",
      verifyRecordProof({ trustedRoot: root, name: "alpha", value: URL_A, ...cfg }, text(member2), flipped),
    ],
    [
      "a root from before the last change",
      "ROOT_NOT_TRUSTED",
      verifyRecordProof({ trustedRoot: root, name: "alpha", value: URL_A, ...cfg }, text(member), member.proof),
    ],
    [
      "another registry depth",
      "CONFIG_MISMATCH",
      verifyRecordProof({ trustedRoot: root, name: "alpha", value: URL_A }, text(member2), member2.proof),
    ],
    [
      "an update proof given to the read-only check",
      "STATEMENT_MISMATCH",
      verifyRecordProof({ trustedRoot: rootBefore, name: "beta", absent: true, ...cfg }, text(del), del.proof),
    ],
    [
      "an unreadable request",
      "REQUEST_JSON",
      verifyRecordProof({ trustedRoot: root, name: "alpha", value: URL_A, ...cfg }, "{", member2.proof),
    ],
  ];
  const seen = new Set<string>();
  for (const [what, expected, v] of rejections) {
    assert.equal(v.ok, false, `${what} must be rejected`);
    if (v.ok) continue;
    if (expected !== "flipped") assert.equal(v.code, expected, `${what}: ${v.reason}`);
    assert.ok(!seen.has(v.code), `${what}: code ${v.code} is distinct`);
    seen.add(v.code);
  }
  // the never-registered proof was made before the delete: stale against the new root
  assert.equal(
    codeOf(
      verifyRecordProof(
        { trustedRoot: root, name: "never-registered", absent: true, ...cfg },
        text(never),
        never.proof,
      ),
    ),
    "ROOT_NOT_TRUSTED",
  );
  assert.equal(
    codeOf(
      verifyRecordProof(
        { trustedRoot: rootBefore, name: "never-registered", absent: true, ...cfg },
        text(never),
        never.proof,
      ),
    ),
    "ACCEPT",
  );
  // an unusable claim is an input error, not a verdict
  assert.throws(
    () =>
      verifyRecordProof({ trustedRoot: [1, 2, 3], name: "alpha", value: URL_A, ...cfg }, text(member2), member2.proof),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_ROOT",
  );
  assert.throws(
    () => verifyRecordProof({ trustedRoot: root, name: "", value: URL_A, ...cfg }, text(member2), member2.proof),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_NAME",
  );

  // updates: honest accepted; wrong new root, wrong old value, old root not trusted rejected
  const upd = {
    trustedRoot: rootBefore,
    newRoot: root,
    name: "beta",
    old: { value: "https://gitlab.com/b/beta" },
    new: { absent: true as const },
    ...cfg,
  };
  assert.equal(codeOf(verifyRecordUpdateProof(upd, text(del), del.proof)), "ACCEPT");
  assert.equal(
    codeOf(verifyRecordUpdateProof({ ...upd, newRoot: rootBefore }, text(del), del.proof)),
    "NEW_ROOT_MISMATCH",
  );
  assert.equal(
    codeOf(verifyRecordUpdateProof({ ...upd, trustedRoot: root }, text(del), del.proof)),
    "ROOT_NOT_TRUSTED",
  );
  assert.equal(
    codeOf(verifyRecordUpdateProof({ ...upd, old: { value: null } }, text(del), del.proof)),
    "VALUE_MISMATCH",
  );
  assert.equal(
    codeOf(verifyRecordUpdateProof({ ...upd, new: { value: null } }, text(del), del.proof)),
    "RECORD_ABSENT",
  );
  assert.equal(codeOf(verifyRecordUpdateProof(upd, text(gone), gone.proof)), "STATEMENT_MISMATCH");
  await store.close();
});

test("a slot-mapped proof given to the name check is refused with SLOT_MAPPED_PROOF", async () => {
  const store = RegistryStore.openOrCreate(join(tempDir(), "slot"), { depth: 8 });
  insertRecord(store, "first", null);
  insertRecord(store, "alpha", URL_A);
  const p = proveStatement(store, "membership", { name: "alpha" }, undefined, (k) => cachedPrepared(k, 8, 31));
  const v = verifyRecordProof(
    { trustedRoot: store.head().root, name: "alpha", value: URL_A, depth: 8 },
    requestToJson(p.request as SyncRequest),
    p.proof,
  );
  assert.equal(codeOf(v), "SLOT_MAPPED_PROOF");
  await store.close();
});

test("roots parse in the [a, b, …] form of `registry root` and the comma form", () => {
  assert.deepEqual(Array.from(parseRoot("[1, 2, 3, 4, 5, 6, 7, 8]")), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(Array.from(parseRoot("1,2,3,4,5,6,7,8")), [1, 2, 3, 4, 5, 6, 7, 8]);
  for (const bad of ["1,2,3", "[1,2,3,4,5,6,7,2130706433]", "a,b,c,d,e,f,g,h"])
    assert.throws(
      () => parseRoot(bad),
      (e: unknown) => e instanceof RegistryError && e.code === "BAD_ROOT",
    );
});

test("the counterparty check loads no database code: verify-record.ts imports nothing that reaches lmdb", () => {
  const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "src");
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const t = readFileSync(file, "utf8");
    // `import type` / `export type` statements are erased by the compiler and load nothing
    for (const m of t.matchAll(
      /(?:import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    )) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else bare.add(spec);
    }
  };
  visit(join(srcRoot, "registry", "verify-record.ts"));
  assert.ok(seen.size > 10, "the import graph was walked");
  assert.ok(![...bare].some((s) => s === "lmdb" || s.startsWith("lmdb/")), `bare imports: ${[...bare].join(", ")}`);
  assert.ok(
    ![...seen].some((f) => /registry[\\/](store|name-store|import|name-import)\.ts$/.test(f)),
    "no store module is imported",
  );
});
