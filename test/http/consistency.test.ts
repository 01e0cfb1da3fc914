/**
 * `GET /v1/consistency` and `ssgkr registry verify-consistency`: the chain of kept block proofs
 * between two sizes, paged (bounded by `limit`, `next` to go on), `202 PROOF_PENDING` with
 * `Retry-After` while a block is still to be proved, 404/400/410 for sizes and batches it cannot
 * serve; the CLI checks both signed checkpoints and the chain (ACCEPT exit 0, REJECT exit 1,
 * `error CODE:` exit 2). Network only to 127.0.0.1.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { BlockProver } from "../../src/registry/consistency/block-prover.js";
import { verifyConsistency } from "../../src/registry/consistency/verify-consistency.js";
import { readSigningKey, signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { formatRoot } from "../../src/registry/root.js";
import { freshDir, makeRegistry, removeDir, ROOT, startServer, runSsgkr } from "../web/support.js";

type Json = Record<string, any>;
const BIN = join(ROOT, "bin", "ssgkr.js");
let dir: string;
let store: NameStore;
let other: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;
let keyFile: string;
let verifierKey: string;

const ssgkr = (...args: string[]) => runSsgkr(dir, ...args);
const get = async (path: string) => {
  const res = await fetch(`${srv.base}${path}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};

before(async () => {
  dir = freshDir("ssgkr-http-consistency-");
  store = makeRegistry(dir, 12); // batches 1..4
  planNameUpdate(store, "replace", "left-pad", "https://gitlab.com/lp/lp").commit(); // 5
  applyNameBlock(store, [
    { op: "insert", name: "c-a", value: "a" },
    { op: "insert", name: "c-b", value: null },
  ]); // 6
  other = makeRegistry(dir, 12, { sub: "other", liveValue: "elsewhere" });
  keyFile = join(dir, "registry.key");
  const k = spawnSync(
    process.execPath,
    [BIN, "registry", "keygen", "--out", keyFile, "--origin", "example.com/consistency"],
    { encoding: "utf8" },
  );
  assert.equal(k.status, 0, k.stderr);
  verifierKey = k.stdout.trimEnd();
  srv = await startServer({ store, rateLimit: 0 });
});

after(async () => {
  await srv?.app.close();
  await store?.close();
  await other?.close();
  if (dir) removeDir(dir);
});

test("a block not yet proved answers 202 PROOF_PENDING with Retry-After; proved, the chain verifies", async () => {
  const pending = await get("/v1/consistency?from=2&to=6");
  assert.equal(pending.status, 202);
  assert.equal(pending.body.code, "PROOF_PENDING");
  assert.equal(pending.headers.get("retry-after"), "2");
  new BlockProver(store).drain();
  const page = await get("/v1/consistency?from=2&to=6");
  assert.equal(page.status, 200);
  assert.deepEqual(
    page.body.links.map((l: Json) => l.batch),
    [3, 4, 5, 6],
  );
  assert.equal(page.body.next, null);
  assert.equal(page.body.from.root, formatRoot(store.batchEntry(2).root));
  assert.deepEqual(verifyConsistency({ from: page.body.from, to: page.body.to }, page.body.links), {
    ok: true,
    blocks: 4,
    unchanged: 0,
  });
  const same = await get("/v1/consistency?from=4&to=4");
  assert.deepEqual([same.status, same.body.links, same.body.next], [200, [], null]);
});

test("pages are bounded by limit and chain through next; sizes it cannot serve are 400, 404 and 410", async () => {
  const links: Json[] = [];
  let after: number | null = 0;
  let pages = 0;
  while (after !== null) {
    const p = await get(`/v1/consistency?from=0&to=6&limit=2${after > 0 ? `&after=${after}` : ""}`);
    assert.equal(p.status, 200);
    assert.ok(p.body.links.length <= 2);
    links.push(...p.body.links);
    after = p.body.next;
    pages++;
  }
  assert.equal(pages, 3);
  assert.deepEqual(
    links.map((l) => l.batch),
    [1, 2, 3, 4, 5, 6],
  );
  assert.equal(
    verifyConsistency(
      {
        from: { size: 0, root: formatRoot(store.batchEntry(0).root) },
        to: { size: 6, root: formatRoot(store.batchEntry(6).root) },
      },
      links as never,
    ).ok,
    true,
  );
  assert.equal((await get("/v1/consistency?from=0&to=7")).status, 404);
  assert.equal((await get("/v1/consistency?from=0&to=7")).body.code, "SIZE_UNKNOWN");
  for (const q of ["from=5&to=2", "from=0", "from=0&to=6&limit=65", "from=0&to=6&after=7", "from=x&to=6"]) {
    const r = await get(`/v1/consistency?${q}`);
    assert.deepEqual([r.status, r.body.code], [400, "BAD_INPUT"], q);
  }
  // a registry that keeps block proofs: the retention window waits for the pending block
  store.setRetention({ commits: 0 });
  planNameUpdate(store, "insert", "late", "x").commit(); // 7
  planNameUpdate(store, "insert", "later", "y").commit(); // 8
  const waiting = await get("/v1/consistency?from=6&to=8");
  assert.deepEqual([waiting.status, waiting.body.code], [202, "PROOF_PENDING"], "still provable");
  new BlockProver(store).drain();
  assert.equal((await get("/v1/consistency?from=6&to=8")).status, 200, "both proved after a lag past the retention");
  store.setRetention({ commits: 1000 });
  // a registry that never kept a block proof: a batch whose tree left the window before it was proved
  const bare = makeRegistry(dir, 12, { sub: "no-blocks" });
  const bareSrv = await startServer({ store: bare, rateLimit: 0 });
  try {
    bare.setRetention({ commits: 0 });
    planNameUpdate(bare, "insert", "late", "x").commit(); // 5
    planNameUpdate(bare, "insert", "later", "y").commit(); // 6
    const res = await fetch(`${bareSrv.base}/v1/consistency?from=4&to=6`);
    const gone = (await res.json()) as Json;
    assert.deepEqual([res.status, gone.code], [410, "CHAIN_NOT_PROVABLE"]);
  } finally {
    await bareSrv.app.close();
    await bare.close();
  }
});

test("ssgkr registry verify-consistency: ACCEPT for two checkpoints of one history, REJECT for a forged one, error for a bad URL", async () => {
  const key = readSigningKey(keyFile);
  const write = (name: string, size: number, root: ArrayLike<number>) => {
    const p = join(dir, name);
    writeFileSync(p, signCheckpoint(key, { size, root }));
    return p;
  };
  const c2 = write("c2.txt", 2, store.batchEntry(2).root);
  const c6 = write("c6.txt", 6, store.batchEntry(6).root);
  const ok = await ssgkr(
    "registry",
    "verify-consistency",
    "--url",
    srv.base,
    "--key",
    verifierKey,
    "--from",
    c2,
    "--to",
    c6,
  );
  assert.equal(ok.status, 0, ok.stderr + ok.stdout);
  assert.match(ok.stdout, /^ACCEPT example\.com\/consistency: size 2 .* size 6 .* 4 blocks/);
  // a signed checkpoint of size 4 with another registry's root: no chain of this registry reaches it
  const forged = write("forged.txt", 4, other.batchEntry(4).root);
  const bad = await ssgkr(
    "registry",
    "verify-consistency",
    "--url",
    srv.base,
    "--key",
    verifierKey,
    "--from",
    c2,
    "--to",
    forged,
  );
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stdout, /^REJECT CHAIN_END: /);
  // a checkpoint not signed by the key
  const unsigned = join(dir, "unsigned.txt");
  writeFileSync(
    unsigned,
    signCheckpoint(key, { size: 6, root: store.batchEntry(6).root }).replace(
      /— (\S+) (\S+)\n$/,
      (_m, n: string, s: string) => `— ${n} ${s.slice(0, 8)}${s[8] === "A" ? "B" : "A"}${s.slice(9)}\n`,
    ),
  );
  const sig = await ssgkr(
    "registry",
    "verify-consistency",
    "--url",
    srv.base,
    "--key",
    verifierKey,
    "--from",
    c2,
    "--to",
    unsigned,
  );
  assert.equal(sig.status, 1, sig.stderr);
  assert.match(sig.stdout, /^REJECT CHECKPOINT_/);
  const net = await ssgkr(
    "registry",
    "verify-consistency",
    "--url",
    "http://127.0.0.1:9",
    "--key",
    verifierKey,
    "--from",
    c2,
    "--to",
    c6,
  );
  assert.equal(net.status, 2);
  assert.match(net.stderr, /^error NETWORK_ERROR: /);
  const usage = await ssgkr(
    "registry",
    "verify-consistency",
    "--url",
    srv.base,
    "--key",
    verifierKey,
    "--from",
    c6,
    "--to",
    c2,
  );
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /^error BAD_OPTION: /);
});

test("a server started with the block prover proves new commits in the background and stops it on close", async () => {
  const own = makeRegistry(dir, 12, { sub: "background" });
  const s = await startServer({ store: own, rateLimit: 0, proveBlocks: true });
  try {
    planNameUpdate(own, "insert", "bg", "after the start").commit(); // 5
    // follow the pages as a client does: a 202 is waited out, a page that ends early goes on at next
    const links: Json[] = [];
    let after = 0;
    let last = "";
    let ends: Json | undefined;
    for (let i = 0; i < 240; i++) {
      const res = await fetch(`${s.base}/v1/consistency?from=0&to=5${after > 0 ? `&after=${after}` : ""}`);
      last = await res.text();
      if (res.status === 202) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      assert.equal(res.status, 200, last.slice(0, 300));
      const page = JSON.parse(last) as Json;
      links.push(...page.links);
      ends = page;
      if (page.next === null) break;
      after = page.next;
    }
    assert.equal(links.length, 5, `the last answer: ${last.slice(0, 300)}`);
    assert.deepEqual(verifyConsistency({ from: ends!.from, to: ends!.to }, links as never), {
      ok: true,
      blocks: 5,
      unchanged: 0,
    });
    assert.equal(
      ((await (await fetch(`${s.base}/v1/blocks`)).json()) as Json).blocks.length,
      5,
      "GET /v1/blocks serves the prover's blocks",
    );
  } finally {
    await s.app.close();
    await own.close();
  }
});
