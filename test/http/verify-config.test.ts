/**
 * `POST /v1/verify` verifies only the configurations the server serves (its registry's depth and
 * leaf bound, and those enabled at start-up): honest proofs of other configurations posted
 * round-robin get 422 `CONFIG_NOT_SERVED` and prepare nothing; the served circuits are prepared
 * before the server listens, once per process, and never prepared again by a request. The
 * evidence is the process-wide prepared-circuit cache's counter, not wall time.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { proveNameRead, type AnyStore } from "../../src/counterparty/prove.js";
import { createRegistryApp } from "../../src/http/server.js";
import { parseVerifyConfig } from "../../src/cli/commands/http-run.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { defaultPreparedCache } from "../../src/sync/prepared-cache.js";
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
let served: NameStore;
const others: AnyStore[] = [];
/** Honest membership bodies of left-pad at other configurations, each with its own root. */
const foreign: { config: string; body: Json }[] = [];

function nameRegistry(sub: string, depth: number, leafMaxFields: number): NameStore {
  const store = NameStore.openOrCreate(join(dir, sub), { depth, leafMaxFields });
  planNameUpdate(store, "insert", RECORDS.live, "https://github.com/left-pad/left-pad").commit();
  return store;
}

function bodyOf(store: AnyStore): Json {
  const p = proveNameRead(store, RECORDS.live);
  return {
    statement: p.statement,
    request: p.request,
    proof: bytesBase64(p.proof),
    trusted_root: Array.from(store.head().root),
  };
}

before(() => {
  dir = freshDir("ssgkr-http-verify-config-");
  served = makeRegistry(dir, 12);
  others.push(
    nameRegistry("d8", 8, 31),
    nameRegistry("d10", 10, 31),
    nameRegistry("d12b24", 12, 24),
    makeSlotRegistry(dir, 9),
  );
  for (const s of others) foreign.push({ config: `${s.config.depth}:${s.config.leafMaxFields}`, body: bodyOf(s) });
});

after(async () => {
  for (const s of others) await s.close();
  await served?.close();
  if (dir) removeDir(dir);
});

test("verify configs: honest proofs of other configurations, round-robin, get 422 CONFIG_NOT_SERVED and prepare nothing; served ones verify without preparing", async () => {
  const srv = await startServer({ store: served, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    assert.deepEqual(srv.verifyConfigs, [{ depth: 12, leafMaxFields: 31 }], "the registry's own configuration only");
    for (const kind of ["membership", "nonmembership", "update"] as const)
      assert.ok(defaultPreparedCache.has(kind, { depth: 12, leafMaxFields: 31 }), `${kind} prepared before listening`);
    const prepares = defaultPreparedCache.stats.prepares;
    for (let round = 0; round < 3; round++) {
      for (const { config, body } of foreign) {
        const r = await verify(srv.base, body);
        assert.equal(r.status, 422, `${config}: ${JSON.stringify(r.json).slice(0, 200)}`);
        assert.equal(r.json.code, "CONFIG_NOT_SERVED", config);
        assert.match(r.json.message, /depth 12 with leaf bound 31/, "the message names what is served");
      }
    }
    assert.equal(
      defaultPreparedCache.stats.prepares,
      prepares,
      "no request of another configuration prepared a circuit",
    );
    // The served configuration: reads prove and verify with the circuits prepared at start-up.
    for (const name of [RECORDS.live, RECORDS.deleted]) {
      const proof = (await (await fetch(`${srv.base}/v1/records/${encodeURIComponent(name)}/proof`)).json()) as Json;
      const v = await verify(srv.base, { ...proof, trusted_root: Array.from(served.head().root) });
      assert.equal(v.status, 200);
      assert.equal(v.json.ok, true, JSON.stringify(v.json));
      assert.equal(typeof v.json.prepare_ms, "number");
      assert.equal(typeof v.json.verify_ms, "number");
    }
    assert.equal(defaultPreparedCache.stats.prepares, prepares, "no request prepared a circuit");
    // A request that does not parse is rejected by the check itself (200, ok false), nothing prepared.
    const broken = await verify(srv.base, { ...foreign[0]!.body, request: { depth: 40 } });
    assert.deepEqual([broken.status, broken.json.ok, broken.json.code], [200, false, "REQUEST_SCHEMA"]);
    assert.equal(defaultPreparedCache.stats.prepares, prepares);
  } finally {
    await srv.app.close();
  }
});

test("verify configs: an extra configuration enabled at start-up is prepared there, once per process, and verified without preparing", async () => {
  const extra = [
    { depth: 8, leafMaxFields: 31 },
    { depth: 12, leafMaxFields: 31 },
    { depth: 8, leafMaxFields: 31 },
  ];
  const srv = await startServer({ store: served, webDir: join(dir, "no-page"), rateLimit: 0, verifyConfigs: extra });
  const prepares = defaultPreparedCache.stats.prepares;
  const again = await startServer({ store: served, webDir: join(dir, "no-page"), rateLimit: 0, verifyConfigs: extra });
  try {
    assert.deepEqual(
      srv.verifyConfigs,
      [
        { depth: 12, leafMaxFields: 31 },
        { depth: 8, leafMaxFields: 31 },
      ],
      "the registry's first, duplicates merged",
    );
    assert.equal(
      defaultPreparedCache.stats.prepares,
      prepares,
      "a second server in the process prepares nothing again",
    );
    const d8 = foreign.find((f) => f.config === "8:31")!;
    for (let round = 0; round < 2; round++) {
      for (const { config, body } of foreign) {
        const r = await verify(srv.base, body);
        if (config === "8:31") assert.deepEqual([r.status, r.json.ok], [200, true], JSON.stringify(r.json));
        else assert.deepEqual([r.status, r.json.code], [422, "CONFIG_NOT_SERVED"], config);
      }
    }
    const own = await verify(again.base, {
      ...((await (await fetch(`${again.base}/v1/records/${RECORDS.live}/proof`)).json()) as Json),
      trusted_root: Array.from(served.head().root),
    });
    assert.equal(own.json.ok, true);
    assert.equal((await verify(again.base, d8.body)).json.ok, true);
    assert.equal(
      defaultPreparedCache.stats.prepares,
      prepares,
      "requests of served configurations prepared nothing, alternating between them",
    );
  } finally {
    await srv.app.close();
    await again.app.close();
  }
});

test("verify configs: an extra configuration outside the engine's limits is refused at start-up", async () => {
  await assert.rejects(
    createRegistryApp({
      store: served,
      webDir: join(dir, "no-page"),
      verifyConfigs: [{ depth: 65, leafMaxFields: 31 }],
    }),
    { code: "UNSUPPORTED_CONFIG" },
  );
  await assert.rejects(
    createRegistryApp({
      store: served,
      webDir: join(dir, "no-page"),
      verifyConfigs: [{ depth: 12, leafMaxFields: 2000 }],
    }),
    { code: "UNSUPPORTED_CONFIG" },
  );
});

test("verify configs: --verify-config DEPTH:LEAF_MAX_FIELDS is parsed and checked against the engine's limits (BAD_OPTION)", () => {
  assert.deepEqual(parseVerifyConfig("24:31"), { depth: 24, leafMaxFields: 31 });
  assert.deepEqual(parseVerifyConfig(" 64:63 "), { depth: 64, leafMaxFields: 63 });
  for (const bad of [
    "24",
    "24:",
    ":31",
    "24:31:1",
    "a:31",
    "24:x",
    "-1:31",
    "0:31",
    "65:31",
    "24:9",
    "24:2000",
    "24.5:31",
  ]) {
    assert.throws(() => parseVerifyConfig(bad), { code: "BAD_OPTION" }, bad);
  }
});
