/**
 * `ssgkr registry prove-blocks` (docs/registry.md "Consistency between checkpoints"): every
 * committed batch without a block gets one, on a proving pool whose workers all prove blocks; the
 * command prints a line per stored block on stderr and a summary on stdout, and a second run finds
 * nothing to do. A bad --workers is a usage error.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { writeFileSync } from "node:fs";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { batchProofState } from "../../src/registry/consistency/block-prover.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/tmp.js";

test("registry prove-blocks proves every pending batch on two workers and exits; a second run has nothing to do", async () => {
  const db = join(tempDir(), "db");
  const store = NameStore.openOrCreate(db, { depth: 16 });
  for (let i = 0; i < 4; i++) planNameUpdate(store, "insert", `p-${i}`, `https://example.com/${i}`).commit();
  await store.close();
  const r = await runCli("registry", "prove-blocks", "--db", db, "--workers", "2");
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err.match(/^block: batch \d: 1 update proved in /gm)?.length, 4, r.err);
  assert.match(
    r.out,
    /^proved 4 blocks \(4 updates\) on 2 workers in [\d.]+ s \(\d+ updates\/s\); every batch is settled$/m,
  );
  const again = await runCli("registry", "prove-blocks", "--db", db, "--workers", "1");
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /^proved 0 blocks \(0 updates\) on 1 worker in /m);
  const check = NameStore.open(db, { readOnly: true });
  try {
    for (let b = 1; b <= 4; b++) assert.equal(batchProofState(check, b), "kept");
  } finally {
    await check.close();
  }
  const bad = await runCli("registry", "prove-blocks", "--db", db, "--workers", "0");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^error BAD_OPTION: --workers must be an integer in \[1, 64\]/m);
});

test("prove-block and prove-blocks refuse a slot registry at once with WRONG_MAPPING naming it", async () => {
  const db = join(tempDir(), "slot");
  await RegistryStore.openOrCreate(db, { depth: 12 }).close();
  const updates = join(tempDir(), "u.ndjson");
  writeFileSync(updates, '{"op":"insert","name":"a","value":"x"}\n');
  for (const args of [
    ["registry", "prove-blocks", "--db", db],
    ["registry", "prove-block", "--db", db, "--updates", updates, "--out", join(tempDir(), "o")],
  ]) {
    const r = await runCli(...args);
    assert.equal(r.code, 2, args[1]);
    assert.match(
      r.err,
      /^error WRONG_MAPPING: registry at .* has mapping record-leaf-v1; block proofs are made for name-keyed registries/m,
    );
  }
});
