/**
 * Profile v3's zero-knowledge mode over HTTP: `GET /v1/records/:name/proof?zk=1` (and
 * `proof.bin`) serve a v3-zk proof (profile v3 implied, `"zk": true` in the body, no request),
 * cached apart from the v3 proof of the same root and name; `POST /v1/verify` checks it from the
 * statement alone and its scope says it is zero-knowledge; `zk=1` with another profile than v3,
 * or a `zk` other than 0 or 1, is a 400 naming `query.zk`; a slot registry refuses it. A v3-zk
 * block body (`prove-block --profile v3 --zk`) is checked by `POST /v1/verify` as a v3 block.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { hasV3Encoding, hasV3ZkEncoding } from "../../src/codec/v3/message.js";
import { base64Bytes } from "../../src/counterparty/body.js";
import { formatRoot } from "../../src/counterparty/claim.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import type { RegistryStore } from "../../src/registry/store/store.js";
import {
  freshDir,
  makeRegistry,
  makeSlotRegistry,
  makeV3Block,
  RECORDS,
  removeDir,
  startServer,
  postVerify as verify,
  V3_TEST_UPDATES,
} from "../web/support.js";
import { bytesBase64 } from "../../src/counterparty/body.js";

type Json = Record<string, any>;
let dir: string;
let store: NameStore;
let slots: RegistryStore;

before(() => {
  dir = freshDir("ssgkr-http-v3zk-");
  store = makeRegistry(dir, 16); // a depth whose non-membership circuit leaves room for the zero-knowledge lanes
  slots = makeSlotRegistry(dir, 9);
});

after(async () => {
  await store?.close();
  await slots?.close();
  if (dir) removeDir(dir);
});

test("GET …/proof?zk=1 serves a v3-zk proof that POST /v1/verify checks from the statement alone and calls zero-knowledge; cached apart from v3; zk=1 with profile v1 or v2 is a 400 naming query.zk", async () => {
  const srv = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const trusted = formatRoot(store.head().root);
    const url = (name: string, query: string) => `${srv.base}/v1/records/${encodeURIComponent(name)}/proof?${query}`;
    for (const query of ["zk=1", "profile=v3&zk=1"]) {
      const res = await fetch(url("never-registered", query));
      assert.equal(res.status, 200, query);
      const body = (await res.json()) as Json;
      assert.deepEqual([body.profile, body.zk, body.request], ["v3", true, undefined], query);
      assert.ok(hasV3ZkEncoding(base64Bytes(body.proof, "proof")), `${query}: inner-proof-v3zk bytes`);
      const v = await verify(srv.base, { ...body, trusted_root: trusted });
      assert.deepEqual([v.status, v.json.ok], [200, true], JSON.stringify(v.json));
      assert.match(v.json.scope, /profile v3-zk: .*zero-knowledge/);
    }
    const first = (await (await fetch(url(RECORDS.live, "zk=1"))).json()) as Json;
    const again = (await (await fetch(url(RECORDS.live, "zk=1"))).json()) as Json;
    assert.deepEqual([first.cached, again.cached, again.proof === first.proof], [false, true, true]);
    // the v3 proof of the same root and name is another cache entry, of the other mode
    const plain = (await (await fetch(url(RECORDS.live, "profile=v3"))).json()) as Json;
    assert.equal(plain.cached, false, "a v3 read does not take the cached v3-zk proof");
    assert.equal(plain.zk, undefined);
    const plainBytes = base64Bytes(plain.proof, "proof");
    assert.ok(hasV3Encoding(plainBytes) && !hasV3ZkEncoding(plainBytes));
    const zk0 = (await (await fetch(url(RECORDS.live, "profile=v3&zk=0"))).json()) as Json;
    assert.deepEqual([zk0.cached, zk0.proof === plain.proof], [true, true], "zk=0 is the profile's proof");
    const pv = await verify(srv.base, { ...plain, trusted_root: trusted });
    assert.ok(pv.json.ok && !/zero-knowledge/.test(pv.json.scope), pv.json.scope);

    // a lie about the value is rejected by the statement digest
    const lied = await verify(srv.base, {
      ...first,
      statement: { ...first.statement, value: "https://evil.example/left-pad" },
      trusted_root: trusted,
    });
    assert.deepEqual([lied.json.ok, lied.json.code], [false, "PUBLIC_INPUTS_MISMATCH"]);
    const absent = { ...first.statement, absent: true, kind: "nonmembership" };
    delete absent.value;
    const claimedAbsent = await verify(srv.base, { ...first, statement: absent, trusted_root: trusted });
    assert.deepEqual([claimedAbsent.json.ok, claimedAbsent.json.code], [false, "RECORD_PRESENT"]);

    // proof.bin: the same bytes, the statement in the header
    const bin = await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof.bin?zk=1`);
    assert.equal(bin.status, 200);
    const bytes = new Uint8Array(await bin.arrayBuffer());
    assert.deepEqual(bytes, base64Bytes(first.proof, "proof"));
    assert.equal(JSON.parse(decodeURIComponent(bin.headers.get("x-ssgkr-statement")!)).name, RECORDS.live);

    for (const [query, field] of [
      ["profile=v1&zk=1", "query.zk"],
      ["profile=v2&zk=1", "query.zk"],
      ["zk=2", "query.zk"],
      ["zk=true", "query.zk"],
      ["zk=1&zk=1", "query.zk"],
      ["profile=v2&zk=0", "query.profile"],
    ] as const) {
      for (const route of ["proof", "proof.bin"]) {
        const res = await fetch(`${srv.base}/v1/records/${RECORDS.live}/${route}?${query}`);
        assert.equal(res.status, 400, `${route}?${query}`);
        const json = (await res.json()) as Json;
        assert.equal(json.code, "BAD_INPUT");
        assert.ok(json.message.startsWith(`${field}: `), `${route}?${query}: ${json.message}`);
      }
    }
  } finally {
    await srv.app.close();
  }
});

test("a slot registry refuses ?zk=1 with a 400 naming query.zk", async () => {
  const srv = await startServer({ store: slots, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const res = await fetch(`${srv.base}/v1/records/${RECORDS.live}/proof?zk=1`);
    assert.equal(res.status, 400);
    const json = (await res.json()) as Json;
    assert.equal(json.code, "BAD_INPUT");
    assert.match(json.message, /^query\.zk: .*compat-v1 only/);
  } finally {
    await srv.app.close();
  }
});

test("POST /v1/verify checks a v3-zk block body (block.json and a zero-knowledge block.bin) from its roots; a changed update is rejected", async () => {
  const block = await makeV3Block(dir, {
    depth: 16,
    records: 40,
    updates: V3_TEST_UPDATES,
    sub: "zk-block-db",
    zk: true,
  });
  assert.ok(hasV3ZkEncoding(block.proof), "block.bin is inner-proof-v3zk");
  const srv = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const body = {
      block: block.blockJson,
      proof: bytesBase64(block.proof),
      from_root: block.fromRoot,
      to_root: block.toRoot,
    };
    const ok = await verify(srv.base, body);
    assert.deepEqual([ok.status, ok.json.ok, ok.json.kind], [200, true, "block"], JSON.stringify(ok.json));
    const json = JSON.parse(block.blockJson) as { updates: { op: string; value?: unknown }[] };
    const i = json.updates.findIndex((u) => typeof u.value === "string");
    json.updates[i]!.value = "https://evil.example/x";
    const changed = await verify(srv.base, { ...body, block: JSON.stringify(json) });
    assert.deepEqual([changed.json.ok, changed.json.code], [false, "PUBLIC_INPUTS_MISMATCH"]);
  } finally {
    await srv.app.close();
  }
});
