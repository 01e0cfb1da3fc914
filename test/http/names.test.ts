/**
 * Names over HTTP: a write under a name that is not in Unicode NFC is 400 `NAME_NOT_NFC` naming
 * the NFC form, and the NFC spelling is accepted; reads and proofs of the other spelling answer
 * for it (absent) with `nfc_name` and `name_notice`; `POST /v1/verify` accepts that absence with
 * the same fields.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { freshDir, makeRegistry, removeDir, startServer, TOKEN } from "../web/support.js";

const DECOMPOSED = "caf\u0065\u0301";
const COMPOSED = "caf\u00e9";
const enc = encodeURIComponent;
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

let dir: string;
let store: NameStore;
let server: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  dir = freshDir("ssgkr-http-names-");
  store = makeRegistry(dir, 16);
  server = await startServer({ store, token: TOKEN, rateLimit: 0 });
});

after(async () => {
  await server?.app.close();
  await store?.close();
  if (dir) removeDir(dir);
});

async function json(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(server.base + path, {
    method,
    headers: body === undefined ? (method === "GET" ? {} : { authorization: auth.authorization }) : auth,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

test("http names: PUT under a name not in NFC is 400 NAME_NOT_NFC with the NFC form; the NFC spelling is accepted", async () => {
  const before = (await json("GET", "/v1/root")).json.root;
  const refused = await json("PUT", `/v1/records/${enc(DECOMPOSED)}`, { value: "https://x.example/a" });
  assert.equal(refused.status, 400, JSON.stringify(refused.json));
  assert.equal(refused.json.code, "NAME_NOT_NFC");
  assert.ok(
    (refused.json.message as string).includes(`its NFC form ${JSON.stringify(COMPOSED)} (U+0063 U+0061 U+0066 U+00E9)`),
    refused.json.message,
  );
  const restore = await json("POST", `/v1/records/${enc(DECOMPOSED)}/restore`);
  assert.equal(restore.status, 400);
  assert.equal(restore.json.code, "NAME_NOT_NFC");
  assert.equal((await json("GET", "/v1/root")).json.root, before, "nothing was written");
  const ok = await json("PUT", `/v1/records/${enc(COMPOSED)}`, { value: "https://x.example/cafe" });
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  assert.equal(ok.json.op, "insert");
  assert.equal(ok.json.nfc_name, undefined);
});

test("http names: reads, proofs and verification of a name not in NFC answer for that exact spelling (absent) with nfc_name and name_notice", async () => {
  const rec = await json("GET", `/v1/records/${enc(DECOMPOSED)}`);
  assert.equal(rec.status, 200);
  assert.equal(rec.json.name, DECOMPOSED);
  assert.equal(rec.json.absent, true);
  assert.equal(rec.json.nfc_name, COMPOSED);
  assert.match(rec.json.name_notice, /is not in Unicode NFC: this answer is about that exact spelling/);
  const nfc = await json("GET", `/v1/records/${enc(COMPOSED)}`);
  assert.equal(nfc.json.status, "live");
  assert.equal(nfc.json.nfc_name, undefined);
  assert.equal(nfc.json.name_notice, undefined);

  const proof = await json("GET", `/v1/records/${enc(DECOMPOSED)}/proof`);
  assert.equal(proof.status, 200);
  assert.equal(proof.json.statement.kind, "nonmembership");
  assert.equal(proof.json.statement.name, DECOMPOSED);
  assert.equal(proof.json.nfc_name, COMPOSED);
  const cached = await json("GET", `/v1/records/${enc(DECOMPOSED)}/proof`);
  assert.equal(cached.json.cached, true);
  assert.equal(cached.json.nfc_name, COMPOSED, "a cached answer carries the notice too");

  const verdict = await json("POST", "/v1/verify", { ...proof.json, trusted_root: proof.json.root });
  assert.equal(verdict.json.ok, true, JSON.stringify(verdict.json));
  assert.equal(verdict.json.nfc_name, COMPOSED);
  assert.match(verdict.json.name_notice, /not in Unicode NFC/);
  // the same body claiming a live record under that spelling is refused by the rule
  const live = await json("POST", "/v1/verify", {
    ...proof.json,
    statement: { ...proof.json.statement, kind: "membership", absent: undefined, value: "https://x.example/cafe" },
  });
  assert.equal(live.json.ok, false);
  assert.equal(live.json.code, "NAME_NOT_NFC");
});
