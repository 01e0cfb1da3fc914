/**
 * A batch of more than 4,096 updates (an import) is proved in parts (docs/registry.md
 * "Consistency between checkpoints"): its change log's parts, each a block from the root the part
 * before left, stored part by part, so that a chain from size 0 crosses an import. Checked here:
 * the parts chain from the batch before to the batch's root; a prover stopped after one part is
 * resumed by a new one at the next; the chain of parts verifies, and one with a part dropped,
 * swapped, repeated, relabelled or cut short is rejected with its code; the HTTP route serves the
 * parts in a row and `GET /v1/blocks/:batch?part=N` each part.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { BlockProver, batchProofState } from "../../src/registry/consistency/block-prover.js";
import { batchBlockParts } from "../../src/registry/consistency/replay.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import { formatRoot } from "../../src/registry/root.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { CHANGE_PART_UPDATES } from "../../src/registry/store/change-log.js";
import { createRegistryApp } from "../../src/http/server.js";
import { fetchChain } from "../../src/cli/registry-client.js";
import { nameKey } from "../../src/registry/name-key.js";
import { freshDir, removeDir } from "../web/support.js";

let dir: string;
let store: NameStore;
const NAMES = CHANGE_PART_UPDATES + 5;
const DEPTH = 13;

/** The links of batches from+1..to as the route serves them (a batch proved in parts: a link per part). */
function chainOf(s: NameStore, from: number, to: number): ConsistencyLink[] {
  const out: ConsistencyLink[] = [];
  for (let b = from + 1; b <= to; b++) {
    const parts = batchBlockParts(s, b);
    for (let p = 0; p < parts; p++) {
      const k = s.blockProof(b, parts > 1 ? p : undefined)!;
      out.push({
        batch: b,
        ...(parts > 1 ? { part: p, parts } : {}),
        from_root: k.summary.from_root,
        to_root: k.summary.to_root,
        block: JSON.parse(k.blockJson) as object,
        proof: bytesBase64(k.proof),
      });
    }
  }
  return out;
}
const end = (s: NameStore, size: number) => ({ size, root: formatRoot(s.batchEntry(size).root) });

before(async () => {
  dir = freshDir("ssgkr-consistency-parts-");
  // depth 13: 8,192 keys, the names chosen so that no two share one (the proofs' cost grows with the depth)
  store = NameStore.openOrCreate(join(dir, "db"), { depth: DEPTH });
  const lines: string[] = [];
  const keys = new Set<number>();
  for (let i = 0; lines.length < NAMES; i++) {
    const name = `pkg-${i}`;
    const key = nameKey(name, DEPTH);
    if (keys.has(key)) continue;
    keys.add(key);
    lines.push(JSON.stringify({ name, value: `https://example.com/${i}` }));
  }
  await importNames(store, () => new NdjsonSource(Buffer.from(lines.join("\n") + "\n"), "test records"), {
    threads: 0,
  }); // 1: an import of 4,101 records, two parts
  planNameUpdate(store, "replace", "pkg-7", "https://example.com/seven").commit(); // 2
});

after(async () => {
  await store?.close();
  if (dir) removeDir(dir);
});

test("an import of more than 4,096 records is proved in two parts that chain from size 0; a stopped prover resumes at the next part", () => {
  assert.deepEqual(store.changeHeader(1), { updates: NAMES, parts: 2, created: true });
  assert.equal(batchProofState(store, 1), "pending");
  const proved: string[] = [];
  const first = new BlockProver(store, { onProved: (s) => proved.push(`${s.batch}.${s.part}/${s.parts}`) });
  assert.equal(first.step(), true);
  assert.deepEqual(proved, ["1.0/2"]);
  assert.equal(batchProofState(store, 1), "pending", "one part of two kept: still pending");
  // a restart: a new prover goes on with part 1, then batch 2
  const again = new BlockProver(store, {
    onProved: (s) => proved.push(`${s.batch}.${s.part ?? "-"}/${s.parts ?? "-"}`),
  });
  again.drain();
  assert.deepEqual(proved, ["1.0/2", "1.1/2", "2.-/-"]);
  assert.equal(batchProofState(store, 1), "kept");
  const [p0, p1] = [store.blockProof(1, 0)!, store.blockProof(1, 1)!];
  assert.equal(store.blockProof(1), undefined, "a batch in parts has no whole-batch row");
  assert.equal(p0.summary.from_root, formatRoot(store.batchEntry(0).root));
  assert.equal(p0.summary.to_root, p1.summary.from_root, "part 1 starts where part 0 ended");
  assert.equal(p1.summary.to_root, formatRoot(store.batchEntry(1).root));
  assert.deepEqual([p0.summary.operations, p1.summary.operations], [CHANGE_PART_UPDATES, NAMES - CHANGE_PART_UPDATES]);
  const json = JSON.parse(p1.blockJson) as { part: number; parts: number; batch: number };
  assert.deepEqual([json.batch, json.part, json.parts], [1, 1, 2]);
  assert.deepEqual(verifyConsistency({ from: end(store, 0), to: end(store, 2) }, chainOf(store, 0, 2)), {
    ok: true,
    blocks: 3,
    unchanged: 0,
  });
  assert.deepEqual(verifyConsistency({ from: end(store, 0), to: end(store, 1) }, chainOf(store, 0, 1)), {
    ok: true,
    blocks: 2,
    unchanged: 0,
  });
});

test("a chain of parts with a part dropped, swapped, repeated, relabelled or cut short is rejected with its code", () => {
  const chain = chainOf(store, 0, 2);
  const [a, b, c] = chain as [ConsistencyLink, ConsistencyLink, ConsistencyLink];
  const ends = { from: end(store, 0), to: end(store, 2) };
  const code = (links: ConsistencyLink[], to = ends.to) => {
    const v = verifyConsistency({ from: ends.from, to }, links);
    return v.ok ? "ok" : v.code;
  };
  assert.equal(code([b, c]), "CHAIN_GAP", "part 0 dropped");
  assert.equal(code([a, c]), "CHAIN_GAP", "part 1 dropped");
  assert.equal(code([b, a, c]), "CHAIN_ORDER", "parts swapped");
  assert.equal(code([a, a, b, c]), "CHAIN_ORDER", "a part repeated");
  assert.equal(code([a], end(store, 1)), "CHAIN_END", "the chain stops inside the batch");
  assert.equal(code([{ ...a, part: undefined, parts: undefined }, b, c]), "CHAIN_MALFORMED", "a part without part");
  assert.equal(code([{ ...a, parts: 3 }, b, c]), "CHAIN_MALFORMED", "parts relabelled against block.json");
  assert.equal(code([{ ...a, part: 2, parts: 2 }, b, c]), "CHAIN_MALFORMED", "part out of range");
  assert.equal(code([a, { ...b, from_root: a.from_root }, c]), "CHAIN_ROOT", "part 1 not from part 0's root");
  // a forged part: part 1's proof under part 0's block.json
  assert.equal(code([{ ...a, proof: b.proof }, b, c]) !== "ok", true);
});

test("HTTP: the consistency route serves the parts in a row; GET /v1/blocks/:batch needs ?part= for a batch in parts", async () => {
  const { app } = await createRegistryApp({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const res = await app.inject({ url: "/v1/consistency?from=0&to=2&limit=1" });
    assert.equal(res.statusCode, 200, res.body);
    const page = JSON.parse(res.body) as { links: ConsistencyLink[]; next: number | null };
    assert.deepEqual(
      page.links.map((l) => [l.batch, l.part, l.parts]),
      [
        [1, 0, 2],
        [1, 1, 2],
      ],
      "limit counts batches: the page holds the whole batch",
    );
    assert.equal(page.next, 1);
    const rest = JSON.parse((await app.inject({ url: "/v1/consistency?from=0&to=2&after=1" })).body) as {
      links: ConsistencyLink[];
    };
    assert.deepEqual(verifyConsistency({ from: end(store, 0), to: end(store, 2) }, [...page.links, ...rest.links]), {
      ok: true,
      blocks: 3,
      unchanged: 0,
    });
    const bare = await app.inject({ url: "/v1/blocks/1" });
    assert.equal(bare.statusCode, 400);
    assert.match(JSON.parse(bare.body).message, /^query\.part: batch 1 is proved in 2 parts/);
    const part1 = await app.inject({ url: "/v1/blocks/1/block.json?part=1" });
    assert.equal(part1.statusCode, 200);
    assert.equal(part1.body, store.blockProof(1, 1)!.blockJson);
    assert.equal((await app.inject({ url: "/v1/blocks/1?part=2" })).statusCode, 404);
    assert.equal(
      (await app.inject({ url: "/v1/blocks/2?part=0" })).statusCode,
      404,
      "a batch of one block has no parts",
    );
    const listing = JSON.parse((await app.inject({ url: "/v1/blocks" })).body) as {
      blocks: { batch: number; part?: number }[];
    };
    assert.deepEqual(
      listing.blocks.map((s) => [s.batch, s.part]),
      [
        [1, 0],
        [1, 1],
        [2, undefined],
      ],
    );
  } finally {
    await app.close();
  }
});

test("HTTP: with a small page bound a page ends inside a batch in parts (next_part), the next goes on after that part, and fetchChain assembles the chain", async () => {
  const { app } = await createRegistryApp({
    store,
    webDir: join(dir, "no-page"),
    rateLimit: 0,
    consistencyPageBytes: 1,
  });
  try {
    const pages: { links: ConsistencyLink[]; next: number | null; next_part?: number }[] = [];
    let query = "from=0&to=2";
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ url: `/v1/consistency?${query}` });
      assert.equal(res.statusCode, 200, res.body);
      const page = JSON.parse(res.body) as (typeof pages)[number];
      pages.push(page);
      if (page.next === null) break;
      query = `from=0&to=2&after=${page.next}${page.next_part !== undefined ? `&after_part=${page.next_part}` : ""}`;
    }
    assert.deepEqual(
      pages.map((p) => [p.links.map((l) => `${l.batch}.${l.part ?? "-"}`).join(","), p.next, p.next_part]),
      [
        ["1.0", 0, 0],
        ["1.1", 1, undefined],
        ["2.-", null, undefined],
      ],
      "one link a page: part 0, then part 1 after it, then batch 2",
    );
    const chain = pages.flatMap((p) => p.links);
    assert.deepEqual(verifyConsistency({ from: end(store, 0), to: end(store, 2) }, chain), {
      ok: true,
      blocks: 3,
      unchanged: 0,
    });
    for (const bad of ["after_part=0", "after=0&after_part=1", "after=1&after_part=0"]) {
      const res = await app.inject({ url: `/v1/consistency?from=0&to=2&${bad}` });
      assert.equal(res.statusCode, 400, bad);
      assert.match(JSON.parse(res.body).message, /^query\.after_part:/, bad);
    }
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const fetched = await fetchChain(`http://127.0.0.1:${port}`, 0, 2, 5_000);
    assert.deepEqual(fetched, chain, "the CLI's client follows next_part");
  } finally {
    await app.close();
  }
});

test("HTTP: GET /v1/blocks pages hold whole batches: a batch in parts cut by the limit goes to the next page, or alone is listed whole", async () => {
  const { app } = await createRegistryApp({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const list = async (q: string) =>
      JSON.parse((await app.inject({ url: `/v1/blocks?${q}` })).body) as {
        blocks: { batch: number; part?: number }[];
        more: boolean;
      };
    const show = (p: Awaited<ReturnType<typeof list>>) => [p.blocks.map((b) => `${b.batch}.${b.part ?? "-"}`), p.more];
    assert.deepEqual(show(await list("limit=1")), [["1.0", "1.1"], true], "alone on the page: the whole batch");
    assert.deepEqual(show(await list("limit=2")), [["1.0", "1.1"], true]);
    assert.deepEqual(show(await list("after=1&limit=1")), [["2.-"], false]);
    assert.deepEqual(show(await list("limit=0")), [[], true], "limit 0 lists nothing, and says more exist");
  } finally {
    await app.close();
  }
});
