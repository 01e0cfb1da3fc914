/**
 * A mirror at the default depth 48: a primary with a few hundred npm records (one block) and
 * writes after them; a new mirror verifies every block and reaches the head with the same root,
 * and a proof it serves is accepted by the primary's `POST /v1/verify`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { formatRoot } from "../../src/registry/root.js";
import { createRegistryApp } from "../../src/http/server.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { npmInserts, postVerify, startServer } from "../web/support.js";
import { startPrimary, stopPrimary, testKey } from "./support.js";

const key = testKey("example.com/mirror-d48");
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;
const records = npmInserts(0, 300);

before(async () => {
  ({ dir, primary, srv } = await startPrimary("ssgkr-mirror-d48-", key, (d) => {
    const store = NameStore.openOrCreate(join(d, "primary"));
    assert.equal(store.config.depth, 48);
    applyNameBlock(store, records); // 1
    for (let i = 0; i < 5; i++)
      planNameUpdate(store, "replace", records[i]!.name, `https://example.com/w${i}`).commit();
    return store;
  }));
});

after(() => stopPrimary({ dir, primary, srv }));

test("depth 48: a new mirror of 300 records and 5 writes reaches the head; its proofs verify at the primary", async () => {
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  try {
    const r = await m.sync();
    assert.equal(r.size, 6);
    assert.equal(r.updates, 305);
    assert.equal(m.store.config.depth, 48);
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
    const { app } = await createRegistryApp({
      store: m.store,
      checkpoints: (s) => m.checkpointText(s),
      mirrorStatus: () => m.status(),
      rateLimit: 0,
    });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const name = encodeURIComponent(records[7]!.name);
      const body = (await (await fetch(`${base}/v1/records/${name}/proof?profile=v3`)).json()) as Record<string, any>;
      const v = await postVerify(srv.base, body);
      assert.equal(v.json.ok, true, JSON.stringify(v.json));
    } finally {
      await app.close();
    }
  } finally {
    m.close();
  }
});
