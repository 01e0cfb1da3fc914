/**
 * `POST /v1/verify` with a block body: a real profile v3 block (`proveBlockToDir`, a depth-16
 * registry of npm records) is accepted against its roots, from block.json as an object or as its
 * text, pinned or unpinned; a tampered update, a wrong root and a truncated proof are rejected
 * with their codes (the same as `checkBlockBody` and `ssgkr registry verify-block`); an oversized
 * body, a block of another configuration, a block of more than 4,096 updates and mixed bodies are
 * refused before anything is prepared or verified.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { checkBlockBody } from "../../src/counterparty/block-body.js";
import { parseRoot } from "../../src/counterparty/claim.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import {
  freshDir,
  makeRegistry,
  makeV3Block,
  removeDir,
  startServer,
  V3_TEST_UPDATES,
  type V3BlockFiles,
  postVerify as verify,
} from "../web/support.js";

type Json = Record<string, any>;
let dir: string;
let block: V3BlockFiles;
let served: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  dir = freshDir("ssgkr-http-verify-block-");
  block = await makeV3Block(dir, { depth: 16, records: 40, updates: V3_TEST_UPDATES });
  // The server's own registry has the block's configuration (depth 16, leaf bound 31).
  served = makeRegistry(dir, 16);
  srv = await startServer({ store: served, webDir: join(dir, "no-page"), rateLimit: 0 });
});

after(async () => {
  await srv?.app.close();
  await served?.close();
  if (dir) removeDir(dir);
});

const blockObject = (): Json => JSON.parse(block.blockJson) as Json;
const bodyOf = (edit: (b: Json) => void = () => {}): Json => {
  const b: Json = {
    block: blockObject(),
    proof: bytesBase64(block.proof),
    from_root: block.fromRoot,
    to_root: block.toRoot,
  };
  edit(b);
  return b;
};

test("verify block: an honest v3 block is accepted against its roots (block.json as an object or as its text); unpinned, block.json's roots are used and the verdict says so", async () => {
  const ok = await verify(srv.base, bodyOf());
  assert.equal(ok.status, 200);
  assert.equal(ok.json.ok, true, JSON.stringify(ok.json));
  assert.equal(ok.json.kind, "block");
  assert.equal(ok.json.operations, 6);
  assert.equal(ok.json.root_source, "given");
  assert.equal(ok.json.to_root_source, "given");
  assert.deepEqual(
    [ok.json.trusted_root, ok.json.from_root, ok.json.to_root],
    [block.fromRoot, block.fromRoot, block.toRoot],
  );
  assert.match(
    ok.json.statement,
    new RegExp(
      `^block of 6 updates \\(2 insert, 2 replace, 1 delete, 1 restore; depth 16, leaf bound 31\\) takes root ${block.fromRoot} to root ${block.toRoot}$`,
    ),
  );
  assert.equal(ok.json.notice, undefined);
  assert.equal(typeof ok.json.prepare_ms, "number");
  assert.ok(ok.json.verify_ms > 0);

  const text = await verify(
    srv.base,
    bodyOf((b) => (b.block = block.blockJson)),
  );
  assert.equal(text.json.ok, true, JSON.stringify(text.json));
  assert.ok(text.json.prepare_ms < 50, `the v3 circuit is prepared once per process (${text.json.prepare_ms} ms)`);

  const listForm = await verify(
    srv.base,
    bodyOf((b) => {
      b.from_root = Array.from(parseRoot(block.fromRoot));
      delete b.to_root;
    }),
  );
  assert.equal(listForm.json.ok, true, JSON.stringify(listForm.json));
  assert.equal(listForm.json.to_root_source, "statement");

  const unpinned = await verify(
    srv.base,
    bodyOf((b) => {
      delete b.from_root;
      delete b.to_root;
    }),
  );
  assert.equal(unpinned.json.ok, true, JSON.stringify(unpinned.json));
  assert.equal(unpinned.json.root_source, "statement");
  assert.match(unpinned.json.notice, /^no trusted root was given/);
});

test("verify block: a tampered update, a wrong root and a truncated proof are rejected with their codes, as checkBlockBody rejects them", async () => {
  const cases: [string, Json, string, number | undefined][] = [
    [
      "tampered value",
      bodyOf((b) => (b.block.updates[1].value = "https://evil.example/one")),
      "PUBLIC_INPUTS_MISMATCH",
      1,
    ],
    ["tampered op", bodyOf((b) => (b.block.updates[0].op = "replace")), "PUBLIC_INPUTS_MISMATCH", 0],
    ["update left out", bodyOf((b) => b.block.updates.splice(2, 1)), "OPERATION_COUNT", undefined],
    ["wrong from root", bodyOf((b) => (b.from_root = block.toRoot)), "PUBLIC_INPUTS_MISMATCH", 0],
    ["wrong to root", bodyOf((b) => (b.to_root = block.fromRoot)), "PUBLIC_INPUTS_MISMATCH", 5],
    [
      "truncated proof",
      bodyOf((b) => (b.proof = bytesBase64(block.proof.subarray(0, block.proof.length - 7)))),
      "DECODE_DeclaredLengthMismatch",
      undefined,
    ],
    ["proof not base64", bodyOf((b) => (b.proof = "not base64!")), "BAD_CLAIM", undefined],
    ["profile v2", bodyOf((b) => (b.block.profile = "v2")), "BLOCK_JSON", undefined],
    ["no updates", bodyOf((b) => (b.block.updates = [])), "BLOCK_JSON", undefined],
  ];
  for (const [label, body, code, operation] of cases) {
    const r = await verify(srv.base, body);
    assert.equal(r.status, 200, `${label}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json.ok, false, label);
    assert.equal(r.json.code, code, `${label}: ${r.json.reason}`);
    assert.equal(r.json.operation, operation, `${label}: the update named`);
    assert.equal(typeof r.json.reason, "string");
    const roots = {
      ...(body.from_root ? { fromRoot: parseRoot(body.from_root) } : {}),
      ...(body.to_root ? { toRoot: parseRoot(body.to_root) } : {}),
    };
    const n = checkBlockBody(body, roots);
    assert.deepEqual([n.ok, n.code, n.operation], [false, code, operation], `${label}: the same verdict in one call`);
  }
});

test("verify block: refused before anything runs: an oversized body (413), a block of an unserved configuration (422, served with --verify-config), more than 4,096 updates, mixed or incomplete bodies (400)", async () => {
  const small = await startServer({ store: served, webDir: join(dir, "no-page"), rateLimit: 0, verifyBodyBytes: 4096 });
  try {
    const big = await verify(small.base, bodyOf());
    assert.equal(big.status, 413);
    assert.equal(big.json.code, "BODY_TOO_LARGE");
  } finally {
    await small.app.close();
  }
  const d20 = bodyOf((b) => (b.block.depth = 20));
  const refused = await verify(srv.base, d20);
  assert.equal(refused.status, 422, JSON.stringify(refused.json));
  assert.equal(refused.json.code, "CONFIG_NOT_SERVED");
  assert.match(
    refused.json.message,
    /^body\.block: depth 20 and leaf bound 31 are not verified by this server; it verifies depth 16 with leaf bound 31$/,
  );
  const b24 = await verify(
    srv.base,
    bodyOf((b) => (b.block.leaf_max_fields = 24)),
  );
  assert.equal(b24.status, 422);
  const wide = await startServer({
    store: served,
    webDir: join(dir, "no-page"),
    rateLimit: 0,
    verifyConfigs: [{ depth: 20, leafMaxFields: 31 }],
  });
  try {
    const checked = await verify(wide.base, d20);
    assert.equal(checked.status, 200, "a served configuration is checked");
    assert.equal(checked.json.ok, false);
    assert.match(checked.json.code, /^(IDENTITY_MISMATCH|PUBLIC_INPUTS_MISMATCH)$/, checked.json.reason);
  } finally {
    await wide.app.close();
  }
  const many = await verify(
    srv.base,
    bodyOf(
      (b) => (b.block.updates = Array.from({ length: 4097 }, (_, i) => ({ op: "insert", name: `n${i}`, value: "v" }))),
    ),
  );
  assert.equal(many.status, 200);
  assert.deepEqual([many.json.ok, many.json.code], [false, "BLOCK_JSON"]);
  assert.match(many.json.reason, /at most 4096 updates, got 4097/);
  assert.ok(many.json.verify_ms === 0 && many.json.prepare_ms === 0, "nothing prepared or verified");

  for (const [label, body, field] of [
    ["trusted_root in a block body", bodyOf((b) => (b.trusted_root = block.fromRoot)), "body.trusted_root"],
    ["statement in a block body", bodyOf((b) => (b.statement = {})), "body.statement"],
    ["no proof", bodyOf((b) => delete b.proof), "body.proof"],
  ] as const) {
    const r = await verify(srv.base, body);
    assert.equal(r.status, 400, label);
    assert.equal(r.json.code, "BAD_INPUT", label);
    assert.match(r.json.message, new RegExp(`^${field.replace(".", "\\.")}: `), label);
  }
  const badRoot = await verify(
    srv.base,
    bodyOf((b) => (b.from_root = "abc")),
  );
  assert.equal(badRoot.status, 400);
  assert.equal(badRoot.json.code, "BAD_ROOT");
  assert.match(badRoot.json.message, /^body\.from_root: /);
});

test("verify block: the OpenAPI document describes both bodies of POST /v1/verify", async () => {
  const doc = (await (await fetch(`${srv.base}/v1/openapi.json`)).json()) as Json;
  const schema = doc.paths["/v1/verify"].post.requestBody.content["application/json"].schema;
  const forms = schema.oneOf as Json[];
  assert.equal(forms.length, 2);
  assert.ok(
    forms.some((f) => f.properties.statement && f.properties.trusted_root),
    "the proof body",
  );
  const blockForm = forms.find((f) => f.properties.block)!;
  assert.deepEqual(Object.keys(blockForm.properties).sort(), ["block", "from_root", "proof", "to_root"]);
  assert.deepEqual(blockForm.required, ["block", "proof"]);
  assert.ok(doc.paths["/v1/verify"].post.responses["422"], "422 CONFIG_NOT_SERVED is documented");
});
