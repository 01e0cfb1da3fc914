/**
 * The registry HTTP API over real sockets on 127.0.0.1: every route, the auth rules, bad input,
 * the proof cache, proofs for earlier roots, CORS, rate limiting, size limits, concurrent writes
 * and the OpenAPI document against the routes.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { base64Bytes, bytesBase64 } from "../../src/counterparty/body.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { openRegistry } from "../../src/registry/store/open-any.js";
import { verifyNameStatement } from "../../src/counterparty/verify.js";
import { claimOf, formatRoot } from "../../src/counterparty/claim.js";
import { readTokenFile } from "../../src/http/auth.js";
import {
  buildPage,
  freshDir,
  makeRegistry,
  makeSlotRegistry,
  RECORDS,
  removeDir,
  startServer,
  TOKEN,
  tokenFile,
} from "../web/support.js";

const DEPTH = 16;
let dir: string;
let store: NameStore;
let rw: Awaited<ReturnType<typeof startServer>>;
let ro: Awaited<ReturnType<typeof startServer>>;
let webDir: string;

before(async () => {
  dir = freshDir("ssgkr-http-");
  store = makeRegistry(dir, DEPTH);
  webDir = await buildPage(dir);
  rw = await startServer({
    store,
    token: readTokenFile(tokenFile(dir)),
    webDir,
    rateLimit: 0,
    cors: "http://app.test",
    epochMs: 20,
  });
  ro = await startServer({ store, webDir, rateLimit: 0 });
});

after(async () => {
  await rw?.app.close();
  await ro?.app.close();
  await store?.close();
  if (dir) removeDir(dir);
});

type Json = Record<string, any>;
const enc = encodeURIComponent;
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { text };
  }
  return { status: res.status, json, headers: res.headers };
}

function assertError(r: { status: number; json: Json }, status: number, code: string, field?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.code, code, JSON.stringify(r.json));
  assert.equal(typeof r.json.message, "string");
  if (field) assert.match(r.json.message, field);
}

/** The current root as the API writes it (64 hex characters), and its 8 elements (the list form it also reads). */
const rootNow = () => formatRoot(store.head().root);
const rootElems = () => Array.from(store.head().root);

test("http: GET /v1/root and /v1/history", async () => {
  const r = await call(rw.base, "GET", "/v1/root");
  assert.equal(r.status, 200);
  assert.equal(r.json.root, rootNow());
  assert.match(r.json.root, /^[0-9a-f]{64}$/);
  assert.equal(r.json.records, store.head().live);
  assert.equal(r.json.depth, DEPTH);
  assert.equal(r.json.registry_mapping, "record-leaf-v2");
  assert.equal(r.json.next_slot, undefined, "a name-keyed registry has no slots");
  const h = await call(rw.base, "GET", "/v1/history");
  assert.equal(h.status, 200);
  assert.deepEqual(h.json.entries.at(-1).root, rootNow());
  assert.equal(h.json.entries[0].kind, "create");
  const two = await call(rw.base, "GET", "/v1/history?limit=2");
  assert.equal(two.json.entries.length, 2);
  assertError(await call(rw.base, "GET", "/v1/history?limit=-1"), 400, "BAD_INPUT", /query\.limit/);
});

test("http: GET /v1/records/{name}: live (scoped name URL-encoded), deleted, never registered; bad names", async () => {
  const live = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.scoped)}`);
  assert.equal(live.status, 200);
  assert.equal(live.json.name, RECORDS.scoped);
  assert.equal(live.json.status, "live");
  assert.equal(live.json.value, "https://gitlab.com/scope/pkg");
  const del = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.deleted)}`);
  assert.deepEqual([del.json.status, del.json.absent], ["deleted", true]);
  const never = await call(rw.base, "GET", "/v1/records/never-registered");
  assert.deepEqual([never.status, never.json.status, never.json.absent], [200, "never registered", true]);
  assertError(await call(rw.base, "GET", `/v1/records/${"a".repeat(1025)}`), 400, "BAD_NAME", /1,?024/);
  assertError(await call(rw.base, "GET", `/v1/records/${"a".repeat(5000)}`), 414, "URL_TOO_LONG");
  assertError(await call(rw.base, "GET", "/v1/nothing"), 404, "NOT_FOUND");
});

test("http: GET …/proof (membership, absence), cached on repeat, proof.bin the same bytes, POST /v1/verify round-trips the body", async () => {
  const t0 = performance.now();
  const first = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.live)}/proof`);
  const t1 = performance.now();
  assert.equal(first.status, 200);
  assert.equal(first.json.cached, false);
  assert.equal(first.json.statement.kind, "membership");
  assert.equal(first.json.statement.value, "https://github.com/left-pad/left-pad");
  assert.deepEqual(first.json.statement.root, rootNow());
  const again = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.live)}/proof`);
  const t2 = performance.now();
  assert.equal(again.json.cached, true, "a repeated read of an unchanged record is not proved again");
  assert.equal(again.json.proof, first.json.proof);
  assert.ok(t2 - t1 < t1 - t0, `cached read ${(t2 - t1).toFixed(0)} ms < proving read ${(t1 - t0).toFixed(0)} ms`);

  const bin = await fetch(`${rw.base}/v1/records/${enc(RECORDS.live)}/proof.bin`);
  assert.equal(bin.status, 200);
  assert.equal(bin.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual(new Uint8Array(await bin.arrayBuffer()), base64Bytes(first.json.proof));
  assert.equal(JSON.parse(decodeURIComponent(bin.headers.get("x-ssgkr-statement")!)).name, RECORDS.live);
  assert.equal(bin.headers.get("x-ssgkr-root"), rootNow());

  const absent = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.deleted)}/proof`);
  assert.equal(absent.json.statement.kind, "nonmembership");
  assert.equal(absent.json.statement.absent, true);
  assert.equal(absent.json.statement.registry_mapping, "record-leaf-v2");
  // Name-keyed: absence is proved for a name that was never registered, too.
  const never = await call(rw.base, "GET", "/v1/records/never-registered/proof");
  assert.equal(never.status, 200, JSON.stringify(never.json));
  assert.deepEqual(
    [never.json.statement.kind, never.json.statement.absent, never.json.statement.key, never.json.statement.depth],
    ["nonmembership", true, store.keyOf("never-registered"), DEPTH],
  );
  const neverV = await call(rw.base, "POST", "/v1/verify", { ...never.json, trusted_root: rootNow() });
  assert.equal(neverV.json.ok, true, JSON.stringify(neverV.json));
  assert.match(neverV.json.scope, /^record-leaf-v2: the root commits to names/);

  // The body as it is: accepted, with the unpinned notice; with a trusted root: accepted, root given.
  const v = await call(rw.base, "POST", "/v1/verify", first.json);
  assert.equal(v.status, 200);
  assert.equal(v.json.ok, true, JSON.stringify(v.json));
  assert.equal(v.json.root_source, "statement");
  assert.match(v.json.notice, /no trusted root/);
  assert.match(v.json.statement, /"left-pad" is registered with value/);
  const pinned = await call(rw.base, "POST", "/v1/verify", { ...first.json, trusted_root: rootNow() });
  assert.equal(pinned.json.trusted_root, rootNow(), "the verdict names the trusted root in hex");
  // The array form of a root (statement and trusted_root) is read as well.
  const asArrays = await call(rw.base, "POST", "/v1/verify", {
    ...first.json,
    statement: { ...first.json.statement, root: rootElems() },
    trusted_root: rootElems(),
  });
  assert.deepEqual(
    [asArrays.json.ok, asArrays.json.root_source, asArrays.json.trusted_root],
    [true, "given", rootNow()],
  );
  assert.deepEqual([pinned.json.ok, pinned.json.root_source, pinned.json.notice], [true, "given", undefined]);
  const asText = await call(rw.base, "POST", "/v1/verify", { ...absent.json, trusted_root: rootElems().join(",") });
  assert.equal(asText.json.ok, true, JSON.stringify(asText.json));
  // Node's one call agrees.
  assert.equal(
    verifyNameStatement(claimOf(first.json.statement, rootNow()), first.json.request, base64Bytes(first.json.proof)).ok,
    true,
  );
});

test("http: POST /v1/verify rejects (200, ok false) a wrong root, a flipped byte, another name, another value; 400 for bad bodies; 413 over the limit", async () => {
  const body = (await call(rw.base, "GET", `/v1/records/${enc(RECORDS.live)}/proof`)).json;
  const wrongRoot = rootElems();
  wrongRoot[0] = (wrongRoot[0]! + 1) % 2130706433;
  const cases: [string, Json, string][] = [];
  cases.push(["wrong root", { ...body, trusted_root: wrongRoot }, "ROOT_NOT_TRUSTED"]);
  const bytes = base64Bytes(body.proof);
  bytes[1000]! ^= 4;
  cases.push(["flipped byte", { ...body, proof: bytesBase64(bytes) }, ""]);
  cases.push(["another name", { ...body, statement: { ...body.statement, name: RECORDS.scoped } }, "KEY_MISMATCH"]);
  cases.push([
    "another value",
    { ...body, statement: { ...body.statement, value: "https://github.com/evil/left-pad" } },
    "VALUE_MISMATCH",
  ]);
  cases.push([
    "claimed absent",
    { ...body, statement: { ...body.statement, kind: "nonmembership", absent: true, value: undefined } },
    "RECORD_PRESENT",
  ]);
  cases.push([
    "slot mapping claimed",
    { ...body, statement: { ...body.statement, registry_mapping: "record-leaf-v1" }, trusted_root: wrongRoot },
    "ROOT_NOT_TRUSTED",
  ]);
  cases.push(["no mapping", { ...body, statement: { ...body.statement, registry_mapping: undefined } }, "BAD_CLAIM"]);
  for (const [what, b, code] of cases) {
    const r = await call(rw.base, "POST", "/v1/verify", b);
    assert.equal(r.status, 200, what);
    assert.equal(r.json.ok, false, what);
    if (code) assert.equal(r.json.code, code, what);
    else assert.ok(typeof r.json.code === "string" && r.json.code.length > 0, what);
    assert.equal(typeof r.json.reason, "string");
  }
  assertError(
    await call(rw.base, "POST", "/v1/verify", { statement: body.statement, request: body.request }),
    400,
    "BAD_INPUT",
    /body\.proof/,
  );
  assertError(await call(rw.base, "POST", "/v1/verify", "{not json"), 400, "BAD_INPUT", /not valid JSON/);
  for (const type of ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded"])
    assertError(
      await call(rw.base, "POST", "/v1/verify", JSON.stringify(body), { "content-type": type }),
      415,
      "BAD_INPUT",
      /^content-type: send JSON \(application\/json\), got "/,
    );
  assertError(
    await call(rw.base, "POST", "/v1/verify", { ...body, trusted_root: [1, 2, 3] }),
    400,
    "BAD_ROOT",
    /body\.trusted_root/,
  );
  const badProof = await call(rw.base, "POST", "/v1/verify", { ...body, proof: "***" });
  assert.deepEqual([badProof.status, badProof.json.ok, badProof.json.code], [200, false, "BAD_CLAIM"]);
  assertError(
    await call(rw.base, "POST", "/v1/verify", { ...body, pad: "x".repeat(3 * 1024 * 1024) }),
    413,
    "BODY_TOO_LARGE",
  );
});

test("http: writes need the bearer token: 401 without or malformed, 403 wrong, 403 on a read-only server", async () => {
  const put = (headers: Record<string, string>, base = rw.base) =>
    call(base, "PUT", "/v1/records/auth-test", { value: "x" }, headers);
  const none = await put({});
  assertError(none, 401, "UNAUTHORIZED");
  assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
  assertError(await put({ authorization: "Basic dXNlcjpwYXNz" }), 401, "UNAUTHORIZED");
  assertError(await put({ authorization: "Bearer" }), 401, "UNAUTHORIZED");
  assertError(await put({ authorization: `Bearer ${TOKEN}x` }), 403, "FORBIDDEN");
  assertError(await put({ authorization: `Bearer ${TOKEN.slice(0, -1)}` }), 403, "FORBIDDEN");
  assertError(await put(auth, ro.base), 403, "READ_ONLY");
  assertError(await call(rw.base, "DELETE", `/v1/records/${enc(RECORDS.live)}`, undefined, {}), 401, "UNAUTHORIZED");
  assertError(
    await call(rw.base, "POST", `/v1/records/${enc(RECORDS.deleted)}/restore`, undefined, {
      authorization: "Bearer nope",
    }),
    403,
    "FORBIDDEN",
  );
  assert.equal(
    (await call(rw.base, "GET", "/v1/records/auth-test")).json.status,
    "never registered",
    "nothing was written",
  );
});

test("http: PUT insert and replace, DELETE, restore are answered once their epoch committed, with the batch, position, root and a proof path whose proof verifies; bad bodies 400; wrong states 409", async () => {
  const name = "@acme/widget";
  const steps: [string, string, unknown, string, Json][] = [
    [
      "PUT",
      `/v1/records/${enc(name)}`,
      { value: "https://github.com/acme/widget" },
      "insert",
      { value: "https://github.com/acme/widget" },
    ],
    ["PUT", `/v1/records/${enc(name)}`, { fields: [1, 2, 3] }, "replace", { value: { fields: [1, 2, 3] } }],
    ["DELETE", `/v1/records/${enc(name)}`, undefined, "delete", { absent: true }],
    ["POST", `/v1/records/${enc(name)}/restore`, undefined, "restore", { value: { fields: [1, 2, 3] } }],
    ["PUT", `/v1/records/${enc(name)}`, { value: null }, "replace", { value: null }],
  ];
  for (const [method, path, body, op, newSide] of steps) {
    const batch = store.head().batch;
    const r = await call(
      rw.base,
      method,
      path,
      body,
      body === undefined ? { authorization: auth.authorization } : auth,
    );
    assert.equal(r.status, 200, `${method} ${op}: ${JSON.stringify(r.json)}`);
    assert.deepEqual(
      [r.json.status, r.json.op, r.json.name, r.json.batch, r.json.position],
      ["committed", op, name, batch + 1, 0],
      op,
    );
    assert.equal(r.json.root, rootNow(), "committed");
    assert.equal(r.json.proof, `/v1/records/${enc(name)}/proof?root=${r.json.root}`);
    const p = await call(rw.base, "GET", r.json.proof);
    assert.equal(p.status, 200);
    assert.equal(p.json.statement.root, r.json.root);
    assert.deepEqual(
      "absent" in newSide ? p.json.statement.absent : p.json.statement.value,
      "absent" in newSide ? true : newSide.value,
    );
    const v = await call(rw.base, "POST", "/v1/verify", { ...p.json, trusted_root: r.json.root });
    assert.equal(v.json.ok, true, `the proof of the state after ${op} verifies: ${JSON.stringify(v.json)}`);
  }
  const restoreWithValue = async () => {
    await call(rw.base, "DELETE", `/v1/records/${enc(name)}`, undefined, { authorization: auth.authorization });
    return call(
      rw.base,
      "POST",
      `/v1/records/${enc(name)}/restore`,
      { value: "https://bitbucket.org/acme/widget" },
      auth,
    );
  };
  const rv = await restoreWithValue();
  assert.equal(rv.json.op, "restore");
  assert.equal(
    (await call(rw.base, "GET", `/v1/records/${enc(name)}`)).json.value,
    "https://bitbucket.org/acme/widget",
  );

  assertError(
    await call(rw.base, "PUT", `/v1/records/${enc(RECORDS.deleted)}`, { value: "x" }, auth),
    409,
    "NAME_DELETED",
  );
  assertError(
    await call(rw.base, "DELETE", `/v1/records/never-registered`, undefined, { authorization: auth.authorization }),
    409,
    "RECORD_ABSENT",
  );
  assertError(
    await call(rw.base, "POST", `/v1/records/never-registered/restore`, undefined, {
      authorization: auth.authorization,
    }),
    409,
    "NOT_DELETED",
  );
  assertError(
    await call(rw.base, "POST", `/v1/records/${enc(RECORDS.live)}/restore`, undefined, {
      authorization: auth.authorization,
    }),
    409,
    "RECORD_LIVE",
  );
  const before = rootNow();
  assertError(await call(rw.base, "PUT", "/v1/records/x", { value: 5 }, auth), 400, "BAD_INPUT", /body\.value/);
  assertError(
    await call(rw.base, "PUT", "/v1/records/x", { value: "a", fields: [] }, auth),
    400,
    "BAD_INPUT",
    /exactly one/,
  );
  assertError(await call(rw.base, "PUT", "/v1/records/x", { colour: "red" }, auth), 400, "BAD_INPUT", /body\.colour/);
  assertError(
    await call(rw.base, "PUT", "/v1/records/x", { fields: [1, 2.5] }, auth),
    400,
    "BAD_INPUT",
    /body\.fields\[1\]/,
  );
  assertError(await call(rw.base, "PUT", "/v1/records/x", { fields: [2130706433] }, auth), 400, "BAD_VALUE");
  assertError(await call(rw.base, "PUT", "/v1/records/x", { fields: Array(21).fill(1) }, auth), 400, "VALUE_TOO_LARGE");
  assertError(await call(rw.base, "PUT", "/v1/records/x", {}, auth), 400, "BAD_INPUT", /body/);
  assertError(await call(rw.base, "PUT", "/v1/records/x", "[1", auth), 400, "BAD_INPUT", /not valid JSON/);
  assertError(
    await call(rw.base, "PUT", "/v1/records/x", '{"value": "a"}', { ...auth, "content-type": "text/plain" }),
    415,
    "BAD_INPUT",
    /^content-type: /,
  );
  assertError(
    await call(rw.base, "PUT", "/v1/records/x", { value: "x".repeat(300 * 1024) }, auth),
    413,
    "BODY_TOO_LARGE",
  );
  assertError(
    await call(rw.base, "DELETE", `/v1/records/${enc(RECORDS.live)}`, { value: 1 }, auth),
    400,
    "BAD_INPUT",
    /DELETE takes no body/,
  );
  assert.deepEqual(rootNow(), before, "no bad write changed the registry");
});

test("http: GET …/proof?root= serves an earlier root's cached proof after a write, says 410 when it is not cached, 404 for an unknown root, 400 for a malformed one", async () => {
  const name = RECORDS.scoped;
  const old = rootNow();
  const oldElems = rootElems();
  const atOld = await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=${old}`);
  assert.equal(atOld.status, 200);
  await call(rw.base, "PUT", "/v1/records/root-test", { value: "r" }, auth);
  assert.notDeepEqual(rootNow(), old);
  const later = await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=${enc(`[${oldElems.join(", ")}]`)}`);
  assert.equal(later.status, 200);
  assert.equal(later.json.cached, true);
  assert.equal(later.json.statement.root, old, "the proof says which root it is for");
  const v = await call(rw.base, "POST", "/v1/verify", { ...later.json, trusted_root: old });
  assert.equal(v.json.ok, true, "a proof for an earlier root stays correct after later writes");
  const early = store.history()[1]!.root;
  const notCached = await call(rw.base, "GET", `/v1/records/${enc(RECORDS.live)}/proof?root=${early.join(",")}`);
  assert.equal(notCached.status, 200, "an earlier root of the retention window is proved from the stored rows");
  assert.equal(notCached.json.cached, false);
  assert.equal(notCached.json.statement.root, formatRoot(early));
  assert.equal(
    (await call(rw.base, "POST", "/v1/verify", { ...notCached.json, trusted_root: formatRoot(early) })).json.ok,
    true,
  );
  assertError(await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=1,2,3,4,5,6,7,8`), 404, "ROOT_UNKNOWN");
  assertError(await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=1,2,3`), 400, "BAD_ROOT", /query\.root/);
  assertError(
    await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=${old.slice(2)}`),
    400,
    "BAD_ROOT",
    /query\.root: a root in hex is 64 hex characters/,
  );
  assertError(
    await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=${"ff".repeat(32)}`),
    400,
    "BAD_ROOT",
    /query\.root: word 0 .* not a canonical field element/,
  );
  const now = await call(rw.base, "GET", `/v1/records/${enc(name)}/proof?root=${rootElems().join(",")}`);
  assert.deepEqual(now.json.statement.root, rootNow());
});

test("http: concurrent writes go through the sequencer: every one commits, each at its own position of its epoch's batch, the same name's in order, nothing is lost", async () => {
  const names = Array.from({ length: 6 }, (_, i) => `concurrent-${i}`);
  const same = "concurrent-same";
  const results = await Promise.all([
    ...names.map((n) => call(rw.base, "PUT", `/v1/records/${n}`, { value: `https://github.com/c/${n}` }, auth)),
    ...[1, 2, 3].map((i) => call(rw.base, "PUT", `/v1/records/${same}`, { value: `v${i}` }, auth)),
  ]);
  for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.json));
  const places = new Set(results.map((r) => `${r.json.batch}:${r.json.position}`));
  assert.equal(places.size, results.length, "each write has its own place in the change logs");
  for (const r of results) assert.equal(store.changePart(r.json.batch, 0)[r.json.position]!.name, r.json.name);
  const sameOps = results
    .slice(names.length)
    .sort((a, b) => a.json.batch - b.json.batch || a.json.position - b.json.position)
    .map((r) => r.json.op);
  assert.deepEqual(sameOps, ["insert", "replace", "replace"], "the same name: one insert, then replaces, in order");
  const last = results.reduce((a, b) => (b.json.batch > a.json.batch ? b : a));
  assert.equal(last.json.root, rootNow(), "the last epoch's root is the current root");
  for (const n of names) assert.equal((await call(rw.base, "GET", `/v1/records/${n}`)).json.status, "live");
});

test("http: CORS is off by default and answers only the configured origin", async () => {
  const plain = await fetch(`${ro.base}/v1/root`, { headers: { origin: "http://app.test" } });
  assert.equal(plain.headers.get("access-control-allow-origin"), null);
  assert.equal((await fetch(`${ro.base}/v1/root`, { method: "OPTIONS" })).status, 404);
  const ok = await fetch(`${rw.base}/v1/root`, { headers: { origin: "http://app.test" } });
  assert.equal(ok.headers.get("access-control-allow-origin"), "http://app.test");
  const other = await fetch(`${rw.base}/v1/root`, { headers: { origin: "http://evil.test" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  const pre = await fetch(`${rw.base}/v1/records/x`, {
    method: "OPTIONS",
    headers: { origin: "http://app.test", "access-control-request-method": "PUT" },
  });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get("access-control-allow-methods") ?? "", /PUT/);
  assert.match(pre.headers.get("access-control-allow-headers") ?? "", /authorization/);
});

test("http: rate limiting per client answers 429 RATE_LIMITED past the limit", async () => {
  const limited = await startServer({ store, webDir, rateLimit: 3 });
  try {
    const statuses: number[] = [];
    let last: Json = {};
    for (let i = 0; i < 5; i++) {
      const r = await call(limited.base, "GET", "/v1/root");
      statuses.push(r.status);
      last = r.json;
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.equal(last.code, "RATE_LIMITED");
  } finally {
    await limited.app.close();
  }
});

test("http: the OpenAPI document lists exactly the routes (methods and paths)", async () => {
  const r = await call(rw.base, "GET", "/v1/openapi.json");
  assert.equal(r.status, 200);
  assert.match(r.json.openapi, /^3\./);
  const documented = Object.entries(r.json.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
  const routes = rw.routes
    .filter((x) => !x.hidden)
    .map((x) => `${x.method} ${x.url.replace(/:([A-Za-z]+)/g, "{$1}")}`)
    .sort();
  assert.deepEqual(documented, routes);
  for (const want of [
    "GET /v1/checkpoint",
    "GET /v1/root",
    "GET /v1/history",
    "GET /v1/records/{name}",
    "GET /v1/records/{name}/proof",
    "GET /v1/records/{name}/proof.bin",
    "POST /v1/verify",
    "PUT /v1/records/{name}",
    "DELETE /v1/records/{name}",
    "POST /v1/records/{name}/restore",
    "GET /verify/",
  ]) {
    assert.ok(documented.includes(want), `${want} is documented`);
  }
  assert.ok(r.json.paths["/v1/records/{name}"].put.security, "writes say they need the bearer token");
});

test("http: /verify serves the page cross-origin isolated; a missing build answers 503 WEB_NOT_BUILT", async () => {
  const redirect = await fetch(`${rw.base}/verify`, { redirect: "manual" });
  assert.equal(redirect.status, 302);
  const page = await fetch(`${rw.base}/verify/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type")!, /text\/html/);
  assert.match(
    await page.clone().text(),
    /<link rel="icon" href="data:,">/,
    "an empty icon: no /favicon.ico request (404)",
  );
  assert.equal(page.headers.get("cross-origin-opener-policy"), "same-origin");
  assert.equal(page.headers.get("cross-origin-embedder-policy"), "require-corp");
  assert.match(await page.text(), /Verify a registry record/);
  const wasm = await fetch(`${rw.base}/verify/kernels.wasm`);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assertError(await call(rw.base, "GET", "/verify/secret.txt"), 404, "NOT_FOUND");
  const bare = await startServer({ store, webDir: join(dir, "no-such-dir"), rateLimit: 0 });
  try {
    assertError(await call(bare.base, "GET", "/verify/"), 503, "WEB_NOT_BUILT", /build:web/);
  } finally {
    await bare.app.close();
  }
});

test("http: malformed URLs and names never crash the server: bad percent-encoding, a lone surrogate, an empty name, unknown methods", async () => {
  for (const path of [
    "/v1/records/%E0%A4%A/proof",
    "/v1/records/%ED%A0%80",
    "/v1/records/%/proof.bin",
    "/v1/records/%ZZ",
  ]) {
    const r = await call(rw.base, "GET", path);
    assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
    assert.equal(typeof r.json.code, "string", path);
  }
  const empty = await call(rw.base, "GET", "/v1/records//proof");
  assert.ok(empty.status === 400 || empty.status === 404, `empty name: ${empty.status}`);
  assert.equal((await call(rw.base, "PATCH", "/v1/records/x", { value: "a" }, auth)).status, 404);
  const root = await call(rw.base, "GET", "/v1/root");
  assert.equal(root.status, 200, "the server still answers");
});

test("http: a slot registry (record-leaf-v1) is served too: slot statements, membership and update proofs verify, a never-registered name has no proof", async () => {
  const slot = makeSlotRegistry(dir, 10);
  const srv = await startServer({ store: slot, token: TOKEN, webDir, rateLimit: 0 });
  try {
    const root = await call(srv.base, "GET", "/v1/root");
    assert.deepEqual(
      [root.json.registry_mapping, root.json.depth, typeof root.json.next_slot],
      ["record-leaf-v1", 10, "number"],
    );
    const rec = await call(srv.base, "GET", `/v1/records/${enc(RECORDS.live)}`);
    assert.deepEqual([rec.json.status, typeof rec.json.slot, rec.json.key], ["live", "number", undefined]);
    const p = await call(srv.base, "GET", `/v1/records/${enc(RECORDS.live)}/proof`);
    assert.deepEqual(
      [p.status, p.json.statement.registry_mapping, p.json.statement.kind, typeof p.json.statement.slot],
      [200, "record-leaf-v1", "membership", "number"],
    );
    const v = await call(srv.base, "POST", "/v1/verify", { ...p.json, trusted_root: Array.from(slot.head().root) });
    assert.equal(v.json.ok, true, JSON.stringify(v.json));
    assert.match(v.json.scope, /^record-leaf-v1/);
    const asNameKeyed = await call(srv.base, "POST", "/v1/verify", {
      ...p.json,
      statement: { ...p.json.statement, registry_mapping: "record-leaf-v2" },
      trusted_root: Array.from(slot.head().root),
    });
    assert.deepEqual([asNameKeyed.json.ok, asNameKeyed.json.code], [false, "SLOT_MAPPED_PROOF"]);
    assertError(await call(srv.base, "GET", "/v1/records/never-registered/proof"), 404, "NAME_NOT_FOUND");
    const before = Array.from(slot.head().root);
    const put = await call(srv.base, "PUT", "/v1/records/slot-new", { value: "https://github.com/s/new" }, auth);
    assert.deepEqual(
      [put.status, put.json.statement.op, put.json.statement.registry_mapping],
      [200, "insert", "record-leaf-v1"],
    );
    assert.equal((await call(srv.base, "POST", "/v1/verify", { ...put.json, trusted_root: before })).json.ok, true);
    assertError(
      await call(srv.base, "DELETE", "/v1/records/never-registered", undefined, { authorization: auth.authorization }),
      404,
      "NAME_NOT_FOUND",
    );
  } finally {
    await srv.app.close();
    await slot.close();
  }
});

test("registry: each store refuses a registry of the other mapping with WRONG_MAPPING naming it; openRegistry opens either", async () => {
  const slotDir = join(dir, "slot-db");
  const nameDir = join(dir, "db");
  assert.throws(
    () => RegistryStore.open(nameDir, { readOnly: true }),
    (e: Error & { code?: string; details?: Record<string, unknown> }) => {
      assert.equal(e.code, "WRONG_MAPPING");
      assert.match(e.message, /name-keyed \(mapping record-leaf-v2\)/);
      assert.equal(e.details?.mapping, "record-leaf-v2");
      return true;
    },
  );
  assert.throws(() => RegistryStore.openOrCreate(nameDir), { code: "WRONG_MAPPING" });
  assert.throws(
    () => NameStore.open(slotDir, { readOnly: true }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, "WRONG_MAPPING");
      assert.match(e.message, /mapping record-leaf-v1, not the name-keyed record-leaf-v2: it is a slot registry/);
      return true;
    },
  );
  assert.throws(() => NameStore.openOrCreate(slotDir), { code: "WRONG_MAPPING" });
  const any = openRegistry(slotDir, { readOnly: true });
  try {
    assert.equal(any.mapping, "record-leaf-v1");
    assert.ok(any.store instanceof RegistryStore);
  } finally {
    await any.store.close();
  }
});
