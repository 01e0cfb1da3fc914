/**
 * `ssgkr registry monitor` against a registry served on 127.0.0.1: the first run saves the signed
 * checkpoint; an honest registry followed through writes is accepted (exit 0, the state moves on);
 * a registry that shows two histories is caught with both signed notes printed (exit 1): a
 * checkpoint of the accepted size with another root (fork), an older size (rollback), a root the
 * served chain does not reach; a checkpoint signed by another key is a REJECT; an unreachable
 * server is exit 2 with --once, and a follower retries until the server is back.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { BlockProver } from "../../src/registry/consistency/block-prover.js";
import { readSigningKey, signCheckpoint, type SigningKey } from "../../src/registry/checkpoint/signing-key.js";
import { freshDir, makeRegistry, removeDir, ROOT, startServer, runSsgkr } from "../web/support.js";

const BIN = join(ROOT, "bin", "ssgkr.js");
let dir: string;
let store: NameStore;
let other: NameStore;
let key: SigningKey;
let verifierKey: string;
let otherKey: string;
let srv: Awaited<ReturnType<typeof startServer>>;

const ssgkr = (...args: string[]) => runSsgkr(dir, ...args);

const keygen = (file: string, origin: string): string => {
  const k = spawnSync(process.execPath, [BIN, "registry", "keygen", "--out", file, "--origin", origin], {
    encoding: "utf8",
  });
  assert.equal(k.status, 0, k.stderr);
  return k.stdout.trimEnd();
};

/** A state file holding `note` as the accepted checkpoint. */
const stateWith = (name: string, note: string): string => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify({ format: "ssgkr-monitor-state-1", url: "x", checkpoint: note }));
  return p;
};

before(async () => {
  dir = freshDir("ssgkr-http-monitor-");
  store = makeRegistry(dir, 12);
  other = makeRegistry(dir, 12, { sub: "other", liveValue: "elsewhere" });
  verifierKey = keygen(join(dir, "registry.key"), "example.com/monitor");
  otherKey = keygen(join(dir, "other.key"), "example.com/monitor");
  key = readSigningKey(join(dir, "registry.key"));
  srv = await startServer({ store, rateLimit: 0, signingKey: key });
});

after(async () => {
  await srv?.app.close();
  await store?.close();
  await other?.close();
  if (dir) removeDir(dir);
});

test("monitor --once: the first run saves the checkpoint; writes followed are accepted and the state moves on", async () => {
  const state = join(dir, "honest.json");
  const first = await ssgkr("registry", "monitor", "--url", srv.base, "--key", verifierKey, "--state", state, "--once");
  assert.equal(first.status, 0, first.stdout + first.stderr);
  assert.match(first.stdout, /ACCEPT first checkpoint of example\.com\/monitor: size \d+/);
  const saved = JSON.parse(readFileSync(state, "utf8"));
  assert.equal(saved.format, "ssgkr-monitor-state-1");
  const again = await ssgkr("registry", "monitor", "--url", srv.base, "--key", verifierKey, "--state", state, "--once");
  assert.equal(again.status, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /ACCEPT no new checkpoint/);
  const before = store.head().batch;
  planNameUpdate(store, "insert", "monitor-new", "https://github.com/m/new").commit();
  planNameUpdate(store, "replace", "monitor-new", "https://gitlab.com/m/new").commit();
  new BlockProver(store).drain();
  const next = await ssgkr("registry", "monitor", "--url", srv.base, "--key", verifierKey, "--state", state, "--once");
  assert.equal(next.status, 0, next.stdout + next.stderr);
  assert.match(next.stdout, new RegExp(`ACCEPT size ${before} → ${before + 2} .*: 2 blocks, each checked`));
  assert.notEqual(
    JSON.parse(readFileSync(state, "utf8")).checkpoint,
    saved.checkpoint,
    "the state holds the newer checkpoint",
  );
});

test("monitor --once: a fork, a rollback and an unreachable root are proven inconsistencies (exit 1, both notes printed); another key's checkpoint is a REJECT", async () => {
  new BlockProver(store).drain();
  const head = store.head();
  const foreignRoot = other.head().root;
  const cases: [string, string, RegExp][] = [
    ["fork", signCheckpoint(key, { size: head.batch, root: foreignRoot }), /^REJECT CHECKPOINT_FORK: /],
    ["rollback", signCheckpoint(key, { size: head.batch + 3, root: head.root }), /^REJECT CHECKPOINT_ROLLBACK: /],
    ["unreachable", signCheckpoint(key, { size: head.batch - 1, root: foreignRoot }), /^REJECT CHAIN_START: /],
  ];
  for (const [what, note, code] of cases) {
    const state = stateWith(`${what}.json`, note);
    const r = await ssgkr("registry", "monitor", "--url", srv.base, "--key", verifierKey, "--state", state, "--once");
    assert.equal(r.status, 1, `${what}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, code, what);
    assert.match(
      r.stdout,
      /--- the checkpoint accepted before:\nexample\.com\/monitor\n/,
      `${what}: the accepted note is printed`,
    );
    assert.match(
      r.stdout,
      /--- the checkpoint the registry signs now:\nexample\.com\/monitor\n/,
      `${what}: the current note is printed`,
    );
    assert.equal(JSON.parse(readFileSync(state, "utf8")).checkpoint, note, `${what}: the state is left as it was`);
  }
  const wrongKey = await ssgkr(
    "registry",
    "monitor",
    "--url",
    srv.base,
    "--key",
    otherKey,
    "--state",
    join(dir, "wrong-key.json"),
    "--once",
  );
  assert.equal(wrongKey.status, 1, wrongKey.stdout + wrongKey.stderr);
  assert.match(wrongKey.stdout, /^REJECT CHECKPOINT_\w+: the checkpoint of http:\/\/127\.0\.0\.1:/);
  assert.equal(
    existsSync(join(dir, "wrong-key.json")),
    false,
    "nothing is saved from a checkpoint that does not verify",
  );
});

test("monitor: an unreachable server is exit 2 with --once; a follower retries until the server is back", async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const down = await ssgkr(
    "registry",
    "monitor",
    "--url",
    url,
    "--key",
    verifierKey,
    "--state",
    join(dir, "down.json"),
    "--once",
  );
  assert.equal(down.status, 2, down.stdout + down.stderr);
  assert.match(down.stderr, /^error NETWORK_ERROR: /m);
  const state = join(dir, "follow.json");
  const child = spawn(
    process.execPath,
    [BIN, "registry", "monitor", "--url", url, "--key", verifierKey, "--state", state, "--interval", "1"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  let late: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const deadline = Date.now() + 60_000;
    while (!err.includes("retrying") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(err, /monitor: .*retrying in 1 s/, "the follower reports the fault and retries");
    const r = await (await import("../../src/http/server.js")).createRegistryApp({
      store,
      rateLimit: 0,
      signingKey: key,
    });
    await r.app.listen({ host: "127.0.0.1", port });
    late = { ...r, base: url };
    while (!existsSync(state) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(existsSync(state), "once the server is back the follower accepts and saves its checkpoint");
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await late?.app.close();
  }
});
