/**
 * The one-call name check (`verifyNameStatement`) and the proof body check (`checkProofBody`):
 * honest statements are accepted; each check has a case that only it catches (a forgery that
 * would pass if the check were removed), with a distinct code.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isUtf8 as nodeIsUtf8 } from "node:buffer";
import { RegistryStore } from "../../src/registry/store/store.js";
import { proveNameRead, proveNameUpdate, type NameProof } from "../../src/counterparty/prove.js";
import { verifyNameStatement } from "../../src/counterparty/verify.js";
import { claimOf, parseRoot, type ReadStatementJson, type UpdateStatementJson } from "../../src/counterparty/claim.js";
import { base64Bytes, bytesBase64, checkProofBody } from "../../src/counterparty/body.js";
import { decoderIsUtf8 as shimIsUtf8 } from "../../src/registry/utf8.js";
import { freshDir, makeRegistry, makeSlotRegistry, RECORDS, removeDir } from "../web/support.js";

const DEPTH = 6;
let dir: string;
let store: RegistryStore;
let live: NameProof<ReadStatementJson>;
let scoped: NameProof<ReadStatementJson>;
let gone: NameProof<ReadStatementJson>;
let upd: NameProof<UpdateStatementJson>;
let del: NameProof<UpdateStatementJson>;
let root: Uint32Array;

before(() => {
  dir = freshDir("ssgkr-counterparty-");
  store = makeSlotRegistry(dir, DEPTH);
  live = proveNameRead(store, RECORDS.live);
  scoped = proveNameRead(store, RECORDS.scoped);
  gone = proveNameRead(store, RECORDS.deleted);
  root = Uint32Array.from(store.head().root);
  upd = proveNameUpdate(store, "replace", RECORDS.scoped, { fields: [7, 8] });
  del = proveNameUpdate(store, "delete", RECORDS.live);
});

after(async () => {
  await store?.close();
  if (dir) removeDir(dir);
});

const LIVE_VALUE = "https://github.com/left-pad/left-pad";
const code = (v: { ok: boolean; code?: string }) => (v.ok ? "ACCEPT" : v.code);

test("honest membership, absence and update statements are accepted", () => {
  assert.equal(
    code(verifyNameStatement({ trustedRoot: root, name: RECORDS.live, value: LIVE_VALUE }, live.request!, live.proof)),
    "ACCEPT",
  );
  assert.equal(
    code(verifyNameStatement({ trustedRoot: root, name: RECORDS.deleted, absent: true }, gone.request, gone.proof)),
    "ACCEPT",
  );
  assert.equal(
    code(
      verifyNameStatement(
        {
          trustedRoot: root,
          name: RECORDS.scoped,
          old: { value: "https://gitlab.com/scope/pkg" },
          new: { value: { fields: [7, 8] } },
        },
        upd.request,
        upd.proof,
      ),
    ),
    "ACCEPT",
  );
  assert.equal(code(verifyNameStatement(claimOf(upd.statement), upd.request, upd.proof)), "ACCEPT");
  assert.equal(
    code(
      verifyNameStatement(
        { trustedRoot: del.statement.old_root, name: RECORDS.live, old: { value: LIVE_VALUE }, new: { absent: true } },
        del.request,
        del.proof,
      ),
    ),
    "ACCEPT",
  );
});

test("each check rejects its own forgery with a distinct code", () => {
  const wrongRoot = Uint32Array.from(root);
  wrongRoot[7] = (wrongRoot[7]! + 1) % 2130706433;
  const flipped = live.proof.slice();
  flipped[flipped.length >> 1]! ^= 0x10;
  const cases: [string, string, () => { ok: boolean; code?: string }][] = [
    [
      "ROOT_NOT_TRUSTED",
      "a proof for another root",
      () =>
        verifyNameStatement(
          { trustedRoot: wrongRoot, name: RECORDS.live, value: LIVE_VALUE },
          live.request!,
          live.proof,
        ),
    ],
    [
      "NAME_MISMATCH",
      "another name's proof replayed",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, value: "https://gitlab.com/scope/pkg" },
          scoped.request!,
          scoped.proof,
        ),
    ],
    [
      "VALUE_MISMATCH",
      "a wrong value",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, value: "https://github.com/evil/left-pad" },
          live.request!,
          live.proof,
        ),
    ],
    [
      "VALUE_MISMATCH",
      "null claimed for a text",
      () => verifyNameStatement({ trustedRoot: root, name: RECORDS.live, value: null }, live.request!, live.proof),
    ],
    [
      "KIND_MISMATCH",
      "a present name claimed absent",
      () => verifyNameStatement({ trustedRoot: root, name: RECORDS.live, absent: true }, live.request!, live.proof),
    ],
    [
      "KIND_MISMATCH",
      "a deleted name claimed present",
      () => verifyNameStatement({ trustedRoot: root, name: RECORDS.deleted, value: null }, gone.request, gone.proof),
    ],
    [
      "KIND_MISMATCH",
      "a read proof offered as an update",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, old: { value: LIVE_VALUE }, new: { value: LIVE_VALUE } },
          live.request!,
          live.proof,
        ),
    ],
    [
      "VALUE_MISMATCH",
      "an update's new value misstated",
      () =>
        verifyNameStatement(
          {
            trustedRoot: root,
            name: RECORDS.scoped,
            old: { value: "https://gitlab.com/scope/pkg" },
            new: { value: { fields: [7, 9] } },
          },
          upd.request,
          upd.proof,
        ),
    ],
    [
      "VALUE_MISMATCH",
      "an update's old value misstated",
      () =>
        verifyNameStatement(
          {
            trustedRoot: root,
            name: RECORDS.scoped,
            old: { value: "https://gitlab.com/other" },
            new: { value: { fields: [7, 8] } },
          },
          upd.request,
          upd.proof,
        ),
    ],
    [
      "NOT_ABSENT",
      "a replace claimed as an insert",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.scoped, old: { absent: true }, new: { value: { fields: [7, 8] } } },
          upd.request,
          upd.proof,
        ),
    ],
    [
      "NOT_ABSENT",
      "a replace claimed as a delete",
      () =>
        verifyNameStatement(
          {
            trustedRoot: root,
            name: RECORDS.scoped,
            old: { value: "https://gitlab.com/scope/pkg" },
            new: { absent: true },
          },
          upd.request,
          upd.proof,
        ),
    ],
    [
      "RECORD_ABSENT",
      "a delete claimed as a replace",
      () =>
        verifyNameStatement(
          {
            trustedRoot: del.statement.old_root,
            name: RECORDS.live,
            old: { value: LIVE_VALUE },
            new: { value: LIVE_VALUE },
          },
          del.request,
          del.proof,
        ),
    ],
    [
      "BAD_ROOT",
      "a malformed root",
      () =>
        verifyNameStatement(
          { trustedRoot: [1, 2, 3], name: RECORDS.live, value: LIVE_VALUE },
          live.request!,
          live.proof,
        ),
    ],
    [
      "REQUEST_SCHEMA",
      "a malformed request",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, value: LIVE_VALUE },
          { ...live.request!, siblings: [] },
          live.proof,
        ),
    ],
    [
      "BAD_VALUE",
      "an unmappable claimed value",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, value: { fields: [2130706433] } },
          live.request!,
          live.proof,
        ),
    ],
    [
      "GKR_",
      "a flipped proof byte",
      () => verifyNameStatement({ trustedRoot: root, name: RECORDS.live, value: LIVE_VALUE }, live.request!, flipped),
    ],
    [
      "DeclaredLengthMismatch",
      "a truncated proof",
      () =>
        verifyNameStatement(
          { trustedRoot: root, name: RECORDS.live, value: LIVE_VALUE },
          live.request!,
          live.proof.subarray(0, 1000),
        ),
    ],
  ];
  for (const [want, what, run] of cases) {
    const c = code(run());
    assert.ok(c === want || (want.endsWith("_") && c!.startsWith(want)), `${what}: got ${c}, want ${want}`);
  }
});

test("a request rewritten to carry the claimed value (a real forgery) is rejected by the proof", () => {
  const forged = {
    ...live.request!,
    old_leaf: scoped.request!.old_leaf,
    new_leaf: scoped.request!.new_leaf,
    value_digest: scoped.request!.value_digest,
  };
  const v = verifyNameStatement({ trustedRoot: root, name: RECORDS.live, value: LIVE_VALUE }, forged, live.proof);
  assert.equal(v.ok, false);
  // The leaf carries the other name, so the name check catches it first.
  assert.equal(code(v), "NAME_MISMATCH");
  // With the forger's own name and value, the leaf checks pass and the proof itself fails.
  const v2 = verifyNameStatement(
    { trustedRoot: root, name: RECORDS.scoped, value: "https://gitlab.com/scope/pkg" },
    { ...forged, key: live.request!.key },
    live.proof,
  );
  assert.equal(v2.ok, false);
  assert.notEqual(code(v2), "NAME_MISMATCH");
});

test("checkProofBody: the body of a read round-trips; the name asked for decides; without a root it says so", () => {
  const body = { statement: live.statement, request: live.request!, proof: bytesBase64(live.proof) };
  const pinned = checkProofBody(body, RECORDS.live, root);
  assert.deepEqual([pinned.ok, pinned.rootSource, pinned.notice], [true, "given", undefined]);
  assert.match(
    pinned.statement,
    /^"left-pad" is registered with value "https:\/\/github.com\/left-pad\/left-pad" under root [0-9a-f]{64}$/,
  );
  const unpinned = checkProofBody(body);
  assert.deepEqual([unpinned.ok, unpinned.rootSource], [true, "statement"]);
  assert.match(unpinned.notice!, /no trusted root/);
  assert.equal(checkProofBody(body, RECORDS.scoped, root).code, "NAME_MISMATCH");
  assert.equal(checkProofBody({ ...body, proof: "not base64!" }, RECORDS.live, root).code, "BAD_CLAIM");
  assert.equal(checkProofBody(null).code, "BAD_CLAIM");
  assert.equal(
    checkProofBody({ ...body, statement: { ...body.statement, registry_mapping: "record-leaf-v2" } }).code,
    "SLOT_MAPPED_PROOF",
    "a slot proof offered as a name-keyed one",
  );
  assert.equal(
    checkProofBody({ ...body, statement: { ...body.statement, registry_mapping: "record-leaf-v9" } }).code,
    "BAD_CLAIM",
  );
  assert.equal(
    checkProofBody({ ...body, statement: { ...body.statement, registry_mapping: undefined } }).code,
    "BAD_CLAIM",
    "a statement names its mapping",
  );
  assert.equal(checkProofBody({ ...body, statement: { ...body.statement, kind: "nonsense" } }).code, "BAD_CLAIM");
});

test("base64 round trip and root parsing (property)", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 70_000 }), (bytes) => {
      assert.deepEqual(base64Bytes(bytesBase64(bytes)), bytes);
      assert.equal(bytesBase64(bytes), Buffer.from(bytes).toString("base64"));
    }),
    { numRuns: 60 },
  );
  const r = Array.from(root);
  assert.deepEqual(Array.from(parseRoot(`[${r.join(", ")}]`)), r);
  assert.deepEqual(Array.from(parseRoot(r.join(","))), r);
  assert.deepEqual(Array.from(parseRoot(` ${r.join("  ")} `)), r);
  assert.throws(() => parseRoot("1,2,3"), { code: "BAD_ROOT" });
  assert.throws(() => parseRoot("1,2,3,4,5,6,7,2130706433"), { code: "BAD_ROOT" });
  assert.throws(() => parseRoot("1,2,3,4,5,6,7,x"), { code: "BAD_ROOT" });
  assert.throws(() => parseRoot([1, 2, 3, 4, 5, 6, 7, -1]), { code: "BAD_ROOT" });
});

test("the TextDecoder isUtf8 (browsers) agrees with node:buffer's on random and edge bytes", () => {
  const edges = [
    [],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xe2, 0x82, 0xac],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xff],
    [0x7f],
  ];
  for (const e of edges)
    assert.equal(shimIsUtf8(Uint8Array.from(e)), nodeIsUtf8(Uint8Array.from(e)), JSON.stringify(e));
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 40 }),
        fc.string({ unit: "binary" }).map((s) => new TextEncoder().encode(s)),
      ),
      (bytes) => {
        assert.equal(shimIsUtf8(bytes), nodeIsUtf8(bytes));
      },
    ),
    { numRuns: 500 },
  );
});

test("name-keyed statements: delegated to verifyRecordProof / verifyRecordUpdateProof; any name's absence; forgeries rejected with their codes", async () => {
  const ndir = freshDir("ssgkr-counterparty-names-");
  const names = makeRegistry(ndir, 16);
  try {
    const r = Uint32Array.from(names.head().root);
    const m = proveNameRead(names, RECORDS.live);
    const never = proveNameRead(names, "never-registered");
    const gone2 = proveNameRead(names, RECORDS.deleted);
    assert.deepEqual(
      [
        m.statement.registry_mapping,
        m.statement.kind,
        never.statement.kind,
        never.statement.absent,
        gone2.statement.kind,
      ],
      ["record-leaf-v2", "membership", "nonmembership", true, "nonmembership"],
    );
    assert.equal(m.statement.depth, 16);
    const body = (p: NameProof<unknown>) => ({
      statement: p.statement,
      request: p.request,
      proof: bytesBase64(p.proof),
    });
    for (const p of [m, never, gone2]) {
      const v = checkProofBody(body(p), undefined, r);
      assert.equal(v.ok, true, JSON.stringify(v));
      assert.match(v.scope!, /^record-leaf-v2: the root commits to names/);
    }
    assert.match(checkProofBody(body(never), undefined, r).statement, /"never-registered" is not registered/);
    const u = proveNameUpdate(names, "insert", "fresh-name", "https://github.com/a/fresh");
    const after = Uint32Array.from(names.head().root);
    const uv = checkProofBody(body(u), undefined, r);
    assert.equal(uv.ok, true, JSON.stringify(uv));
    assert.deepEqual(u.statement.old, { absent: true });
    const wrong = Uint32Array.from(r);
    wrong[0] = (wrong[0]! + 1) % 2130706433;
    const flipped = m.proof.slice();
    flipped[flipped.length >> 1]! ^= 0x10;
    const claim = (p: NameProof<unknown>, over: Record<string, unknown> = {}) =>
      claimOf({ ...(p.statement as object), ...over }, r);
    const cases: [string, () => { ok: boolean; code?: string }][] = [
      ["ROOT_NOT_TRUSTED", () => verifyNameStatement(claimOf(m.statement, wrong), m.request, m.proof)],
      ["ROOT_NOT_TRUSTED", () => verifyNameStatement(claimOf(m.statement, after), m.request, m.proof)],
      ["KEY_MISMATCH", () => verifyNameStatement(claim(m, { name: RECORDS.scoped }), m.request, m.proof)],
      ["KEY_MISMATCH", () => verifyNameStatement(claim(never, { name: "another-never" }), never.request, never.proof)],
      [
        "VALUE_MISMATCH",
        () => verifyNameStatement(claim(m, { value: "https://github.com/evil/left-pad" }), m.request, m.proof),
      ],
      [
        "RECORD_PRESENT",
        () =>
          verifyNameStatement(claim(m, { kind: "nonmembership", absent: true, value: undefined }), m.request, m.proof),
      ],
      [
        "RECORD_ABSENT",
        () =>
          verifyNameStatement(
            claim(gone2, { kind: "membership", value: null, absent: undefined }),
            gone2.request,
            gone2.proof,
          ),
      ],
      ["CONFIG_MISMATCH", () => verifyNameStatement(claim(m, { depth: 48 }), m.request, m.proof)],
      [
        "NEW_ROOT_MISMATCH",
        () => verifyNameStatement(claimOf({ ...u.statement, new_root: Array.from(wrong) }, r), u.request, u.proof),
      ],
      [
        "STATEMENT_MISMATCH",
        () =>
          verifyNameStatement(
            claimOf({ ...u.statement, name: RECORDS.live, new_root: Array.from(r) }, r),
            m.request,
            m.proof,
          ),
      ],
      ["GKR_", () => verifyNameStatement(claimOf(m.statement, r), m.request, flipped)],
    ];
    for (const [want, run] of cases) {
      const c = code(run());
      assert.ok(c === want || (want.endsWith("_") && c!.startsWith(want)), `got ${c}, want ${want}`);
    }
  } finally {
    await names.close();
    removeDir(ndir);
  }
});
