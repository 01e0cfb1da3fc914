/**
 * `registry http` listens with the backlog LISTEN_BACKLOG (capped by the kernel's
 * net.core.somaxconn), not Node's default of 511: a burst of thousands of new connections is
 * queued by the kernel instead of overflowing. The backlog of a listening socket is the Send-Q
 * that `ss -ltn` shows for it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { LISTEN_BACKLOG } from "../../src/http/server.js";
import { freshDir, makeRegistry, removeDir, spawnServer, tokenFile } from "../web/support.js";

const ss = spawnSync("ss", ["-V"]);
const somaxconn = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8").trim());
  } catch {
    return undefined;
  }
})();

test("registry http listens with a backlog of LISTEN_BACKLOG, capped by net.core.somaxconn", {
  skip: ss.status !== 0 || somaxconn === undefined ? "needs ss (iproute2) and /proc/sys/net/core/somaxconn" : false,
}, async () => {
  assert.equal(LISTEN_BACKLOG, 4096);
  const dir = freshDir("ssgkr-backlog-");
  const store = makeRegistry(dir, 16);
  const db = store.dir;
  await store.close();
  const srv = await spawnServer(
    ["--db", db, "--listen", "127.0.0.1:0", "--token-file", tokenFile(dir), "--workers", "1"],
    dir,
  );
  try {
    const port = new URL(srv.base).port;
    const out = spawnSync("ss", ["-Hltn", `sport = :${port}`], { encoding: "utf8" }).stdout.trim();
    // State Recv-Q Send-Q Local Peer: Send-Q of a listening socket is its backlog
    const fields = out.split(/\s+/);
    assert.equal(fields[0], "LISTEN", out);
    assert.equal(Number(fields[2]), Math.min(LISTEN_BACKLOG, somaxconn!), out);
  } finally {
    await srv.stop();
    removeDir(dir);
  }
});
