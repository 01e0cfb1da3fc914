/**
 * `GET /v1/blocks…`: the profile v3 block proofs a name-keyed registry committed are kept in its
 * database (in the batch's transaction) and served: a paged listing, each block as the body that
 * `POST /v1/verify` checks as it is, and its two files byte for byte as `prove-block` wrote them.
 * A v2 block is not kept (its auditor needs the witness); unknown batches are 404
 * `BLOCK_NOT_FOUND`, malformed ones 400 naming the field.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { proveBlockToDir } from "../../src/registry/block-dir.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { formatRoot } from "../../src/counterparty/claim.js";
import { freshDir, makeRegistry, makeSlotRegistry, removeDir, startServer } from "../web/support.js";
import type { RegistryStore } from "../../src/registry/store/store.js";

type Json = Record<string, any>;
let dir: string;
let store: NameStore;
let slots: RegistryStore;
const made: { batch: number; dir: string; from: string; to: string }[] = [];

before(() => {
  dir = freshDir("ssgkr-http-blocks-");
  store = makeRegistry(dir, 12);
  for (const [i, updates] of [
    [
      { op: "insert", name: "block-a", value: "https://github.com/a/a" },
      { op: "replace", name: "left-pad", value: "https://gitlab.com/lp/lp" },
    ],
    [{ op: "delete", name: "block-a" }],
  ].entries()) {
    const out = join(dir, `block-${i}`);
    const w = proveBlockToDir(store, updates as never, out, { profile: "v3" });
    made.push({
      batch: w.applied.entry.batch,
      dir: out,
      from: formatRoot(w.applied.fromRoot),
      to: formatRoot(w.applied.toRoot),
    });
  }
  // a v2 block: committed, not kept (its auditor needs requests.json, the witness)
  proveBlockToDir(store, [{ op: "insert", name: "block-v2", value: "https://github.com/v/2" }], join(dir, "block-v2"));
  slots = makeSlotRegistry(dir, 9);
});

after(async () => {
  await store?.close();
  await slots?.close();
  if (dir) removeDir(dir);
});

const get = async (base: string, path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", res };
};

test("GET /v1/blocks lists the v3 blocks, each served as a verifiable body and as its two files", async () => {
  const srv = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const list = (await (await fetch(`${srv.base}/v1/blocks`)).json()) as Json;
    assert.equal(list.more, false);
    assert.deepEqual(
      list.blocks.map((b: Json) => b.batch),
      made.map((m) => m.batch),
      "the v3 blocks, in batch order; the v2 block is not kept",
    );
    assert.deepEqual(
      list.blocks.map((b: Json) => [b.from_root, b.to_root, b.operations, b.profile]),
      made.map((m, i) => [m.from, m.to, [2, 1][i], "v3"]),
    );
    // paging
    const page1 = (await (await fetch(`${srv.base}/v1/blocks?limit=1`)).json()) as Json;
    assert.deepEqual([page1.blocks.length, page1.blocks[0].batch, page1.more], [1, made[0]!.batch, true]);
    const page2 = (await (await fetch(`${srv.base}/v1/blocks?limit=1&after=${page1.blocks[0].batch}`)).json()) as Json;
    assert.deepEqual([page2.blocks.length, page2.blocks[0].batch, page2.more], [1, made[1]!.batch, false]);
    for (const m of made) {
      const fileJson = readFileSync(join(m.dir, "block.json"), "utf8");
      const fileBin = new Uint8Array(readFileSync(join(m.dir, "block.bin")));
      const j = await get(srv.base, `/v1/blocks/${m.batch}/block.json`);
      assert.deepEqual([j.status, await j.res.text()], [200, fileJson], "block.json byte for byte");
      const b = await get(srv.base, `/v1/blocks/${m.batch}/block.bin`);
      assert.equal(b.type, "application/octet-stream");
      assert.deepEqual(new Uint8Array(await b.res.arrayBuffer()), fileBin, "block.bin byte for byte");
      assert.equal(b.res.headers.get("x-ssgkr-from-root"), m.from);
      // the body verifies as it is, and against the roots the auditor trusts
      const body = (await (await fetch(`${srv.base}/v1/blocks/${m.batch}`)).json()) as Json;
      assert.equal(body.batch, m.batch);
      const v = await fetch(`${srv.base}/v1/verify`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, from_root: m.from, to_root: m.to }),
      });
      const verdict = (await v.json()) as Json;
      assert.deepEqual([v.status, verdict.ok, verdict.kind], [200, true, "block"], JSON.stringify(verdict));
      const wrong = await fetch(`${srv.base}/v1/verify`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ block: body.block, proof: body.proof, from_root: m.to, to_root: m.from }),
      });
      assert.equal(((await wrong.json()) as Json).ok, false, "the same block against swapped roots is rejected");
    }
    const none = await get(srv.base, `/v1/blocks/${made[1]!.batch + 1}`);
    assert.equal(none.status, 404);
    assert.equal(((await none.res.json()) as Json).code, "BLOCK_NOT_FOUND", "the v2 block's batch has no kept proof");
    for (const bad of ["x", "-1", "12345678901"]) {
      const r = await get(srv.base, `/v1/blocks/${bad}/block.bin`);
      assert.equal(r.status, 400, bad);
      assert.match(((await r.res.json()) as Json).message, /path batch/);
    }
    const badLimit = await get(srv.base, "/v1/blocks?limit=5000");
    assert.equal(badLimit.status, 400);
  } finally {
    await srv.app.close();
  }
});

test("the kept blocks survive a reopen; a slot registry lists none", async () => {
  await store.close();
  store = NameStore.open(join(dir, "db"));
  assert.deepEqual(
    store.blockProofs().map((b) => b.batch),
    made.map((m) => m.batch),
  );
  assert.equal(store.blockProof(made[0]!.batch)!.proof.length, readFileSync(join(made[0]!.dir, "block.bin")).length);
  assert.equal(store.blockProof(1), undefined, "an ordinary batch has no block proof");
  const srv = await startServer({ store: slots, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    assert.deepEqual((await (await fetch(`${srv.base}/v1/blocks`)).json()) as Json, { blocks: [], more: false });
    assert.equal((await fetch(`${srv.base}/v1/blocks/1`)).status, 404);
  } finally {
    await srv.app.close();
  }
});
