/**
 * One writable server per registry: a second `registry http --token-file` on a `--db` another one
 * serves is refused at once (`DB_IN_USE`, exit 2) — two sequencers would each apply a write
 * retried under one Idempotency-Key —, read-only servers beside it start, and the hold ends with
 * its process, SIGKILL included.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { freshDir, makeRegistry, removeDir, runSsgkr, spawnServer, tokenFile } from "../web/support.js";

test("a second writable registry http on one --db is DB_IN_USE; a read-only one starts; a killed server's hold is gone", async () => {
  const dir = freshDir("ssgkr-one-server-");
  const store = makeRegistry(dir, 16);
  const db = store.dir;
  await store.close();
  const token = tokenFile(dir);
  const args = ["--db", db, "--listen", "127.0.0.1:0", "--workers", "0", "--no-prove-blocks"];
  const first = await spawnServer([...args, "--token-file", token], dir);
  try {
    const second = await runSsgkr(dir, "registry", "http", ...args, "--token-file", token);
    assert.equal(second.status, 2);
    assert.equal(
      second.stderr,
      `error DB_IN_USE: --db ${db}: another registry http with --token-file serves this registry (one writable server per registry); stop it first, or start this one without --token-file (read-only)\n`,
    );
    const reader = await spawnServer(args, dir);
    const root = (await (await fetch(`${reader.base}/v1/root`)).json()) as { root: string };
    assert.equal(root.root, ((await (await fetch(`${first.base}/v1/root`)).json()) as { root: string }).root);
    await reader.stop();
  } finally {
    first.proc.kill("SIGKILL");
    await new Promise((r) => first.proc.once("exit", r));
  }
  const next = await spawnServer([...args, "--token-file", token], dir);
  await next.stop();
  removeDir(dir);
});
