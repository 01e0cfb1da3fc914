/**
 * Blocks of any size at the registry's default depth 48 (docs/registry.md "Block proofs"): the
 * bound on one profile v3 block proof is a function of the depth and the WHIR set
 * (`maxBlockUpdates`: 2,048 at depth 48 with the default set), checked before any work; a larger
 * block is proved in parts of at most that size. Checked here: the bound is exactly the largest
 * size whose commitment fits the set; `registry prove-block --profile v3` of 2,100 npm records at
 * depth 48 writes part-0 and part-1, keeps both in the registry, and `verify-block` ACCEPTs the
 * directory; parts swapped, one missing or relabelled are REJECTed; the parts proved on two worker
 * threads are byte for byte those proved one after another on the calling thread; a K above the
 * documented maximum is refused at once, naming it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { NameStore } from "../../src/registry/store/name-store.js";
import { MAX_BLOCK_UPDATES } from "../../src/registry/block-limits.js";
import { blockParts, maxBlockUpdates } from "../../src/registry/block-size.js";
import { maxZkBlockUpdates } from "../../src/registry/block-v3.js";
import { batchProofState } from "../../src/registry/consistency/block-prover.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { formatRoot } from "../../src/registry/root.js";
import { maxVariables, whirParameterSet, whirSchedule } from "../../src/pcs/params.js";
import { v3Layout } from "../../src/smt/v3/layout.js";
import { OpKind } from "../../src/statement/types.js";
import { DEFAULT_LEAF_MAX_FIELDS } from "../../src/smt/leaf.js";
import { packageRoot } from "../../src/registry/import/dataset.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/tmp.js";

/** The first `n` npm records with a text value, as prove-block's NDJSON updates (inserts). */
function npmInserts(n: number): string {
  const text = gunzipSync(readFileSync(join(packageRoot(), "data", "npm-repos-100k.ndjson.gz"))).toString("utf8");
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (out.length === n) break;
    if (line === "") continue;
    const r = JSON.parse(line) as { name: string; value: unknown };
    if (typeof r.value === "string") out.push(JSON.stringify({ op: "insert", name: r.name, value: r.value }));
  }
  return out.join("\n") + "\n";
}

test("maxBlockUpdates is the largest K ≤ 4,096 whose commitment fits the set, at every depth; v3-zk's bound is its own", () => {
  for (const set of ["cb100-r4-s3", "cb100-r2-s3", "ud100-r4-s3"]) {
    const limit = maxVariables(whirParameterSet(set));
    for (let depth = 1; depth <= 64; depth++) {
      const k = maxBlockUpdates(depth, set);
      const s = v3Layout(OpKind.Update, depth, DEFAULT_LEAF_MAX_FIELDS).inputBits;
      const m = Math.log2(k) + s - 1;
      assert.ok(Number.isInteger(Math.log2(k)) && k >= 1 && k <= MAX_BLOCK_UPDATES, `${set} d${depth}: ${k}`);
      assert.ok(m <= limit, `${set} d${depth}: ${k} updates commit to ${m} variables`);
      assert.doesNotThrow(() => whirSchedule(whirParameterSet(set), m));
      if (k < MAX_BLOCK_UPDATES) assert.ok(m + 1 > limit, `${set} d${depth}: twice ${k} would fit too`);
    }
  }
  assert.deepEqual(
    [maxBlockUpdates(48), maxBlockUpdates(32), maxBlockUpdates(48, "cb100-r2-s3"), maxZkBlockUpdates(48)],
    [2048, 4096, 4096, 1024],
  );
  assert.deepEqual(
    [blockParts(0, 2048), blockParts(2048, 2048), blockParts(2049, 2048), blockParts(10_000, 2048)],
    [0, 1, 2, 5],
  );
  assert.throws(() => maxBlockUpdates(48, "no-such-set"), { code: "PCS_UNKNOWN_SET" });
});

test("prove-block --profile v3 of 2,100 records at depth 48: two parts on two workers, kept in the registry, ACCEPTed chained; byte for byte the parts proved on one thread; tampered directories REJECTed", async () => {
  const base = tempDir();
  const updates = join(base, "u.ndjson");
  writeFileSync(updates, npmInserts(2100));
  const dbs = [join(base, "db2"), join(base, "db1")];
  for (const db of dbs) await NameStore.openOrCreate(db).close(); // the defaults: depth 48, name-keyed
  const out2 = join(base, "w2"),
    out1 = join(base, "w1");
  const two = await runCli(
    "registry",
    "prove-block",
    "--db",
    dbs[0]!,
    "--updates",
    updates,
    "--profile",
    "v3",
    "--out",
    out2,
    "--workers",
    "2",
  );
  assert.equal(two.code, 0, two.err);
  assert.match(two.err, /^block: part [12] of 2 proved in /m, "progress per part");
  assert.match(two.out, /^block profile=v3 batch=1 operations=2100 /m);
  const one = await runCli(
    "registry",
    "prove-block",
    "--db",
    dbs[1]!,
    "--updates",
    updates,
    "--profile",
    "v3",
    "--out",
    out1,
    "--workers",
    "1",
  );
  assert.equal(one.code, 0, one.err);
  assert.deepEqual(readdirSync(out2).sort(), ["part-0", "part-1"]);
  for (const p of ["part-0", "part-1"]) {
    assert.deepEqual(
      readFileSync(join(out2, p, "block.bin")),
      readFileSync(join(out1, p, "block.bin")),
      `${p}: the same proof`,
    );
    const json = JSON.parse(readFileSync(join(out2, p, "block.json"), "utf8")) as {
      part: number;
      parts: number;
      operations: number;
    };
    assert.deepEqual([json.part, json.parts, json.operations], p === "part-0" ? [0, 2, 2048] : [1, 2, 52]);
  }

  const store = NameStore.open(dbs[0]!, { readOnly: true });
  let from: string, to: string;
  try {
    assert.equal(batchProofState(store, 1), "kept", "both parts kept with the batch");
    from = formatRoot(store.batchEntry(0).root);
    to = formatRoot(store.head().root);
    const links: ConsistencyLink[] = [0, 1].map((p) => {
      const k = store.blockProof(1, p)!;
      return {
        batch: 1,
        part: p,
        parts: 2,
        from_root: k.summary.from_root,
        to_root: k.summary.to_root,
        block: JSON.parse(k.blockJson) as object,
        proof: bytesBase64(k.proof),
      };
    });
    assert.deepEqual(verifyConsistency({ from: { size: 0, root: from }, to: { size: 1, root: to } }, links), {
      ok: true,
      blocks: 2,
      unchanged: 0,
    });
  } finally {
    await store.close();
  }
  assert.match(
    two.out,
    new RegExp(`^check: ssgkr registry verify-block --from-root ${from} --to-root ${to} --dir `, "m"),
  );
  const verify = (dir: string, a = from, b = to) =>
    runCli("registry", "verify-block", "--from-root", a, "--to-root", b, "--dir", dir);
  const ok = await verify(out2);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT block profile=v3 operations=2100 parts=2 /m);
  const wrongEnd = await verify(out2, from, from);
  assert.equal(wrongEnd.code, 1);
  assert.match(wrongEnd.out, /^REJECT [A-Z_]+: part 1 of 2: /m);

  // parts swapped: part-0's proof is not a block from the first root
  const swapped = join(base, "swapped");
  cpSync(out2, swapped, { recursive: true });
  renameSync(join(swapped, "part-0"), join(swapped, "tmp"));
  renameSync(join(swapped, "part-1"), join(swapped, "part-0"));
  renameSync(join(swapped, "tmp"), join(swapped, "part-1"));
  const s = await verify(swapped);
  assert.notEqual(s.code, 0, s.out);
  // a part missing
  const missing = join(base, "missing");
  cpSync(out2, missing, { recursive: true });
  rmSync(join(missing, "part-1"), { recursive: true });
  const m = await verify(missing);
  assert.equal(m.code, 2, m.out + m.err);
  assert.match(m.err, /^error [A-Z_]+: .*part-1/m);
  // a part relabelled
  const relabelled = join(base, "relabelled");
  cpSync(out2, relabelled, { recursive: true });
  const f = join(relabelled, "part-0", "block.json");
  writeFileSync(f, readFileSync(f, "utf8").replace('"part": 0', '"part": 1'));
  const r = await verify(relabelled);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /^REJECT BAD_BLOCK: .* names part 1 of 2, not part 0 of 2/m);
});

test("prove-block refuses a K above the documented maximum at once, naming it, and a bad --workers", async () => {
  const base = tempDir();
  const db = join(base, "db");
  await NameStore.openOrCreate(db).close();
  const updates = join(base, "u.ndjson");
  writeFileSync(updates, npmInserts(MAX_BLOCK_UPDATES + 1));
  const t0 = performance.now();
  const big = await runCli(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--profile",
    "v3",
    "--out",
    join(base, "o"),
  );
  assert.equal(big.code, 2);
  assert.match(big.err, /^error BAD_BLOCK: .*a block holds at most 4096 updates, got 4097/m);
  assert.ok(performance.now() - t0 < 10_000, "refused before any proving");
  const count = await runCli(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--count",
    "4097",
    "--out",
    join(base, "o"),
  );
  assert.equal(count.code, 2);
  assert.match(count.err, /^error BAD_OPTION: --count must be an integer in \[1, 4096\]/m);
  for (const w of ["0", "x", "65"]) {
    const bad = await runCli(
      "registry",
      "prove-block",
      "--db",
      db,
      "--updates",
      updates,
      "--workers",
      w,
      "--out",
      join(base, "o"),
    );
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^error BAD_OPTION: --workers must be an integer in \[1, 64\]/m);
  }
  assert.equal(existsSync(join(base, "o")), false, "nothing written");
});
