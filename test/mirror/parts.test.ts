/**
 * A mirror of a primary whose import was proved in parts (more updates than one block proof holds
 * at its depth): the parts of the batch come as links in a row — here one link per page of the
 * chain, so pages end inside the batch (`next_part`) — are verified together between the two
 * checkpoints around the batch and applied as one batch; the mirror then serves the parts as the
 * primary does. The links decoded once (block.json as text, proofs as bytes, each block parsed
 * once) verify and apply as the links as served do: same verdicts on real forgeries, same
 * registry, same stored proofs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { nameKey } from "../../src/registry/name-key.js";
import { batchBlockParts } from "../../src/registry/consistency/replay.js";
import { CHANGE_PART_UPDATES } from "../../src/registry/store/change-log.js";
import { formatRoot } from "../../src/registry/root.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { applyVerifiedBatch, decodedLinks, linkBlocks, MirrorRows } from "../../src/mirror/apply.js";
import type { KeyIndex } from "../../src/registry/sequencer/epoch.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import { freshDir, removeDir, startServer } from "../web/support.js";
import { proveAll, testKey } from "./support.js";

const key = testKey("example.com/mirror-parts");
const DEPTH = 13;
const NAMES = CHANGE_PART_UPDATES + 5;
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  dir = freshDir("ssgkr-mirror-parts-");
  primary = NameStore.openOrCreate(join(dir, "primary"), { depth: DEPTH });
  const lines: string[] = [];
  const keys = new Set<number>();
  for (let i = 0; lines.length < NAMES; i++) {
    const name = `pkg-${i}`;
    const k = nameKey(name, DEPTH);
    if (keys.has(k)) continue;
    keys.add(k);
    lines.push(JSON.stringify({ name, value: `https://example.com/${i}` }));
  }
  await importNames(primary, () => new NdjsonSource(Buffer.from(lines.join("\n") + "\n"), "test records"), {
    threads: 0,
  }); // 1: two parts
  planNameUpdate(primary, "replace", "pkg-7", "https://example.com/seven").commit(); // 2
  proveAll(primary);
  assert.equal(batchBlockParts(primary, 1), 2);
  // a page holds one link: pages end inside batch 1
  srv = await startServer({ store: primary, signingKey: key, rateLimit: 0, consistencyPageBytes: 1 });
});

after(async () => {
  await srv?.app.close();
  await primary?.close();
  if (dir) removeDir(dir);
});

test("a batch proved in parts, its parts on separate pages, is verified and applied as one batch", async () => {
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  try {
    const r = await m.sync();
    assert.deepEqual([r.size, r.batches, r.updates], [2, 2, NAMES + 1]);
    assert.equal(formatRoot(m.store.batchEntry(1).root), formatRoot(primary.batchEntry(1).root));
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
    assert.equal(m.store.head().live, primary.head().live);
    // it keeps the parts as the primary does
    assert.equal(batchBlockParts(m.store, 1), 2);
    for (const p of [0, 1])
      assert.equal(m.store.blockProof(1, p)!.summary.to_root, primary.blockProof(1, p)!.summary.to_root);
  } finally {
    m.close();
  }
});

/** Every link of the chain from 0 to `to`, page after page, as the primary serves them. */
async function chainLinks(to: number): Promise<ConsistencyLink[]> {
  const links: ConsistencyLink[] = [];
  let q = "";
  for (;;) {
    const page = (await (await fetch(`${srv.base}/v1/consistency?from=0&to=${to}${q}`)).json()) as Record<string, any>;
    links.push(...(page.links as ConsistencyLink[]));
    if (page.next === null) return links;
    q = `&after=${page.next}${page.next_part !== undefined ? `&after_part=${page.next_part}` : ""}`;
  }
}

test("links decoded once verify and apply as the links as served: same verdicts on forgeries, same registry and stored proofs", async () => {
  const head = primary.head().batch;
  const served = await chainLinks(head);
  const ends = (b: number) => ({
    from: { size: b - 1, root: primary.batchEntry(b - 1).root },
    to: { size: b, root: primary.batchEntry(b).root },
  });
  // forgeries: a modified update, a flipped proof byte, a proof that is not canonical base64, a wrong depth
  const forged: [string, (l: any) => void][] = [
    ["value", (l) => (l.block.updates[0].value = "https://example.com/forged")],
    [
      "proof byte",
      (l) => {
        const proof = Buffer.from(l.proof, "base64");
        proof[40] = proof[40]! ^ 1;
        l.proof = proof.toString("base64");
      },
    ],
    ["base64", (l) => (l.proof = `${l.proof.slice(0, -2)}@=`)],
    ["depth", (l) => (l.block.depth = DEPTH + 1)],
  ];
  for (const b of [1, 2]) {
    const links = served.filter((l) => l.batch === b);
    assert.deepEqual(verifyConsistency(ends(b), decodedLinks(links)), verifyConsistency(ends(b), links));
    assert.equal(verifyConsistency(ends(b), links).ok, true);
    for (const [what, change] of forged) {
      const bad = structuredClone(links);
      change(bad[bad.length - 1]);
      const reference = verifyConsistency(ends(b), bad);
      assert.equal(reference.ok, false, what);
      assert.deepEqual(verifyConsistency(ends(b), decodedLinks(bad)), reference, what);
    }
  }
  // the same batches applied from the links as served and from the decoded links
  const stores = ["as-served", "decoded"].map((d) => NameStore.openOrCreate(join(dir, d), { depth: DEPTH }));
  try {
    const rows = stores.map((s) => new MirrorRows(s));
    const index: KeyIndex[] = [0, 1].map(() => ({ batch: -1, keys: new Float64Array(0) }));
    for (const r of rows) r.recordStart(0, signCheckpoint(key, { size: 0, root: primary.batchEntry(0).root }));
    for (let b = 1; b <= head; b++) {
      const links = served.filter((l) => l.batch === b);
      const checkpoint = signCheckpoint(key, { size: b, root: primary.batchEntry(b).root });
      const root = primary.batchEntry(b).root;
      const decoded = decodedLinks(links);
      assert.ok(decoded.every((l) => typeof l.block === "string" && l.proof instanceof Uint8Array));
      const n = [
        applyVerifiedBatch(rows[0]!, { batch: b, links, checkpoint, root }, index[0]!),
        applyVerifiedBatch(
          rows[1]!,
          { batch: b, links: decoded, blocks: linkBlocks(decoded), checkpoint, root },
          index[1]!,
        ),
      ];
      assert.equal(n[0], n[1]);
    }
    for (let b = 0; b <= head; b++) {
      assert.equal(formatRoot(stores[1]!.batchEntry(b).root), formatRoot(stores[0]!.batchEntry(b).root));
      assert.equal(rows[1]!.checkpoint(b), rows[0]!.checkpoint(b));
    }
    for (const [b, p] of [
      [1, 0],
      [1, 1],
      [2, undefined],
    ] as const) {
      const [x, y] = stores.map((s) => s.blockProof(b, p)!);
      assert.deepEqual(y!.summary, x!.summary);
      assert.equal(y!.blockJson, x!.blockJson);
      assert.deepEqual(Buffer.from(y!.proof), Buffer.from(x!.proof));
      assert.deepEqual(Buffer.from(x!.proof), Buffer.from(primary.blockProof(b, p)!.proof));
    }
  } finally {
    for (const s of stores) await s.close();
  }
});
