/**
 * A mirror applies a verified block with what its proof was checked against (apply.ts
 * `verifiedWrites`: each update's key and new leaf from its statement, the leaf hashed from the
 * leaf itself): differential against the plain path (the updates read from block.json, the names
 * hashed to keys and the records hashed to leaf digests by the epoch) on blocks of every op, text,
 * null and field values, and one name written several times in a block.
 * A block whose proof does not verify hands nothing on.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { applyNameBlock, type BlockUpdate } from "../../src/registry/name-block.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import type { VerifiedV3Block } from "../../src/registry/verify-block.js";
import { nameKey } from "../../src/registry/name-key.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { hashLeaf } from "../../src/smt/leaf.js";
import { formatRoot } from "../../src/registry/root.js";
import {
  applyVerifiedBatch,
  decodedLinks,
  linkBlocks,
  MIRROR_TABLE,
  MirrorRows,
  verifiedWrites,
} from "../../src/mirror/apply.js";
import type { KeyIndex } from "../../src/registry/sequencer/epoch.js";
import { npmInserts, startServer } from "../web/support.js";
import { startPrimary, stopPrimary, testKey } from "./support.js";

const DEPTH = 24;
const key = testKey("example.com/apply-known");
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

const blocks: BlockUpdate[][] = [
  npmInserts(0, 40),
  [
    { op: "insert", name: "k-text", value: "https://example.com/k" },
    { op: "insert", name: "k-null", value: null },
    { op: "insert", name: "k-fields", value: { fields: [1, 2, 3, 2130706432] } },
    { op: "replace", name: "k-text", value: "https://example.com/k2" },
    { op: "delete", name: "k-null" },
    { op: "restore", name: "k-null", value: null },
    { op: "replace", name: "k-null", value: "now text" },
    { op: "delete", name: "k-fields" },
  ],
  [
    { op: "restore", name: "k-fields", value: { fields: [7] } },
    { op: "replace", name: npmInserts(3, 1)[0]!.name, value: null },
    { op: "delete", name: npmInserts(4, 1)[0]!.name },
    { op: "insert", name: "k-last", value: "ü-ñ-✓" },
  ],
];

before(async () => {
  ({ dir, primary, srv } = await startPrimary("ssgkr-apply-known-", key, (d) => {
    const store = NameStore.openOrCreate(join(d, "primary"), { depth: DEPTH });
    for (const b of blocks) applyNameBlock(store, b);
    return store;
  }));
});

after(() => stopPrimary({ dir, primary, srv }));

async function linksOf(batch: number): Promise<ConsistencyLink[]> {
  const r = await fetch(`${srv.base}/v1/consistency?from=${batch - 1}&to=${batch}`);
  assert.equal(r.status, 200);
  return ((await r.json()) as { links: ConsistencyLink[] }).links;
}

function verified(batch: number, links: ConsistencyLink[]): (VerifiedV3Block | undefined)[] {
  const out: (VerifiedV3Block | undefined)[] = links.map(() => undefined);
  const v = verifyConsistency(
    {
      from: { size: batch - 1, root: primary.batchEntry(batch - 1).root },
      to: { size: batch, root: primary.batchEntry(batch).root },
    },
    links,
    { onBlock: (i, b) => (out[i] = b) },
  );
  assert.ok(v.ok, JSON.stringify(v));
  return out;
}

function mirrorStore(name: string): { rows: MirrorRows; index: KeyIndex } {
  const store = NameStore.openOrCreate(join(dir, name), { depth: DEPTH });
  assert.ok(store.sideTable(MIRROR_TABLE));
  return { rows: new MirrorRows(store), index: { batch: -1, keys: new Float64Array(0) } };
}

test("verifiedWrites: each key is the name's, each digest the record's leaf digest (none for a delete)", async () => {
  for (let batch = 1; batch <= blocks.length; batch++) {
    const links = decodedLinks(await linksOf(batch));
    const known = verifiedWrites(links, verified(batch, links), 31)!;
    assert.deepEqual(known.updates, blocks[batch - 1]);
    known.updates.forEach((u, i) => {
      assert.equal(known.keys[i], nameKey(u.name, DEPTH), u.name);
      if (u.op === "delete") assert.equal(known.digests[i], undefined);
      else
        assert.deepEqual(
          Array.from(known.digests[i]!),
          Array.from(hashLeaf(recordLeaf(u.name, u.value as RecordValue, 31), 31)),
          `${u.op} ${u.name}`,
        );
    });
  }
});

test("a batch applied with its verified statements equals the plain apply: roots, rows, history", async () => {
  const fast = mirrorStore("fast");
  const plain = mirrorStore("plain");
  try {
    for (let batch = 1; batch <= primary.head().batch; batch++) {
      const links = decodedLinks(await linksOf(batch));
      const ver = verified(batch, links);
      const root = primary.batchEntry(batch).root;
      const checkpoint = signCheckpoint(key, { size: batch, root });
      const common = { batch, links, blocks: linkBlocks(links), checkpoint, root };
      const n1 = applyVerifiedBatch(fast.rows, { ...common, verified: ver }, fast.index);
      const n2 = applyVerifiedBatch(plain.rows, common, plain.index);
      assert.equal(n1, n2);
    }
    const a = fast.rows.store,
      b = plain.rows.store;
    assert.equal(formatRoot(a.head().root), formatRoot(primary.head().root));
    assert.deepEqual(a.head(), b.head());
    const keys = Array.from(b.keys());
    assert.deepEqual(Array.from(a.keys()), keys);
    const src = a.source();
    for (const k of keys) {
      assert.deepEqual(a.leafRow(k), b.leafRow(k), `leaf row ${k}`);
      // the tree's read of a leaf digest (no record decoded) is the row's digest
      assert.deepEqual(src.leafDigest(k), a.leafRow(k)!.digest, `leaf digest ${k}`);
    }
    for (let batch = 1; batch <= primary.head().batch; batch++) {
      const { committedAt: _a, ...ea } = a.batchEntry(batch);
      const { committedAt: _b, ...eb } = b.batchEntry(batch);
      assert.deepEqual(ea, eb);
      assert.deepEqual(a.changePart(batch, 0), b.changePart(batch, 0));
    }
  } finally {
    fast.rows.store.closeSync();
    plain.rows.store.closeSync();
  }
});

test("a block whose proof does not verify hands nothing on", async () => {
  const links = decodedLinks(await linksOf(2));
  const proof = (links[0]!.proof as Uint8Array).slice();
  proof[proof.length - 40]! ^= 1;
  const got: number[] = [];
  const v = verifyConsistency(
    {
      from: { size: 1, root: primary.batchEntry(1).root },
      to: { size: 2, root: primary.batchEntry(2).root },
    },
    [{ ...links[0]!, proof }],
    { onBlock: (i) => got.push(i) },
  );
  assert.equal(v.ok, false);
  assert.deepEqual(got, []);
});
