/**
 * Profile v3 over HTTP: `GET /v1/records/:name/proof?profile=v3` (and `proof.bin`) serve a proof
 * that `POST /v1/verify` checks from the statement alone, with no request in the body; the
 * default stays compat-v1 with its request; a v3 body of a configuration the server does not
 * serve is refused before anything is prepared; a bad `profile` is a 400 naming `query.profile`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { hasV3Encoding } from "../../src/codec/v3/message.js";
import { base64Bytes } from "../../src/counterparty/body.js";
import { formatRoot } from "../../src/counterparty/claim.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import type { RegistryStore } from "../../src/registry/store/store.js";
import {
  freshDir,
  makeRegistry,
  makeSlotRegistry,
  RECORDS,
  removeDir,
  startServer,
  postVerify as verify,
} from "../web/support.js";

type Json = Record<string, any>;
let dir: string;
let store: NameStore;
let slots: RegistryStore;

before(() => {
  dir = freshDir("ssgkr-http-v3-");
  store = makeRegistry(dir, 12);
  slots = makeSlotRegistry(dir, 9);
});

after(async () => {
  await store?.close();
  await slots?.close();
  if (dir) removeDir(dir);
});

test("GET …/proof?profile=v3 serves a request-free proof that POST /v1/verify checks from the statement alone; lies are rejected; the default stays compat-v1", async () => {
  const srv = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const trusted = formatRoot(store.head().root);
    for (const name of [RECORDS.live, RECORDS.deleted, "never-registered"]) {
      const res = await fetch(`${srv.base}/v1/records/${encodeURIComponent(name)}/proof?profile=v3`);
      assert.equal(res.status, 200, name);
      const body = (await res.json()) as Json;
      assert.equal(body.profile, "v3", name);
      assert.equal(body.request, undefined, `${name}: a v3 proof body carries no request (no witness)`);
      assert.ok(hasV3Encoding(base64Bytes(body.proof, "proof")), `${name}: inner-proof-v3 bytes`);
      assert.equal(body.cached, false);
      const v = await verify(srv.base, { ...body, trusted_root: trusted });
      assert.deepEqual([v.status, v.json.ok], [200, true], JSON.stringify(v.json));
      assert.match(v.json.scope, /profile v3/, "the verdict's scope says the statement alone was checked");
      const again = (await (
        await fetch(`${srv.base}/v1/records/${encodeURIComponent(name)}/proof?profile=v3`)
      ).json()) as Json;
      assert.equal(again.cached, true, `${name}: the second read is served from the proof cache`);
      assert.equal(again.proof, body.proof);
    }
    const live = (await (await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof?profile=v3`)).json()) as Json;
    // the statement says another value: the statement digest no longer matches
    const lied = await verify(srv.base, {
      ...live,
      statement: { ...live.statement, value: "https://evil.example/left-pad" },
      trusted_root: trusted,
    });
    assert.deepEqual([lied.status, lied.json.ok, lied.json.code], [200, false, "PUBLIC_INPUTS_MISMATCH"]);
    // a present name claimed absent
    const absent = { ...live.statement, absent: true, kind: "nonmembership" };
    delete absent.value;
    const claimedAbsent = await verify(srv.base, { ...live, statement: absent, trusted_root: trusted });
    assert.equal(claimedAbsent.json.ok, false);
    assert.equal(claimedAbsent.json.code, "RECORD_PRESENT");
    // another configuration named by the statement: refused before anything is prepared
    const other = await verify(srv.base, {
      ...live,
      statement: { ...live.statement, depth: 20 },
      trusted_root: trusted,
    });
    assert.deepEqual([other.status, other.json.code], [422, "CONFIG_NOT_SERVED"]);
    assert.match(other.json.message, /body\.statement: depth 20/);
    // proof.bin: the same v3 bytes, the statement in the header
    const bin = await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof.bin?profile=v3`);
    assert.equal(bin.status, 200);
    const bytes = new Uint8Array(await bin.arrayBuffer());
    assert.ok(hasV3Encoding(bytes));
    assert.deepEqual(bytes, base64Bytes(live.proof, "proof"));
    assert.equal(JSON.parse(decodeURIComponent(bin.headers.get("x-ssgkr-statement")!)).name, RECORDS.live);
    // the default profile is compat-v1: a request beside the proof, which a v1 check needs
    const v1 = (await (await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof`)).json()) as Json;
    assert.equal(v1.profile, "v1");
    assert.equal(typeof v1.request, "object");
    assert.ok(!hasV3Encoding(base64Bytes(v1.proof, "proof")));
    assert.equal((await verify(srv.base, { ...v1, trusted_root: trusted })).json.ok, true);
    const noRequest = await verify(srv.base, { statement: v1.statement, proof: v1.proof, trusted_root: trusted });
    assert.deepEqual([noRequest.json.ok, noRequest.json.code], [false, "BAD_CLAIM"]);
    // a profile the server does not know
    const bad = await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof?profile=v2`);
    assert.equal(bad.status, 400);
    const badJson = (await bad.json()) as Json;
    assert.equal(badJson.code, "BAD_INPUT");
    assert.match(badJson.message, /query\.profile/);
  } finally {
    await srv.app.close();
  }
});

test("a slot registry refuses ?profile=v3 with a 400 naming query.profile", async () => {
  const srv = await startServer({ store: slots, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const res = await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof?profile=v3`);
    assert.equal(res.status, 400);
    const json = (await res.json()) as Json;
    assert.equal(json.code, "BAD_INPUT");
    assert.match(json.message, /query\.profile: .*compat-v1 only/);
    assert.equal((await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof?profile=v1`)).status, 200);
  } finally {
    await srv.app.close();
  }
});
