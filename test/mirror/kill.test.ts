/**
 * A mirror survives SIGKILL at any moment: `ssgkr registry mirror --once` is killed at random
 * moments while it applies the history of a primary (each request slowed a little so the kills
 * land mid-way), restarted each time from its own position, and in the end reaches the primary's
 * head with the same root, the same batches and the primary's checkpoint of every size.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { NameStore } from "../../src/registry/store/name-store.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { formatRoot } from "../../src/registry/root.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { freshDir, makeRegistry, removeDir, ROOT, startServer } from "../web/support.js";
import { fakeServer, proveAll, testKey } from "./support.js";

const key = testKey();
const BATCHES = 24;
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;
let slow: Awaited<ReturnType<typeof fakeServer>>;

before(async () => {
  dir = freshDir("ssgkr-mirror-kill-");
  primary = makeRegistry(dir, 16);
  for (let b = 0; b < BATCHES; b++)
    applyNameBlock(
      primary,
      Array.from({ length: 3 }, (_, i) => ({ op: "insert" as const, name: `k-${b}-${i}`, value: `v${b}.${i}` })),
    );
  proveAll(primary);
  srv = await startServer({ store: primary, signingKey: key, rateLimit: 0 });
  // every request answered 60 ms late: a catch-up takes a few seconds
  slow = await fakeServer(async () => {
    await new Promise((r) => setTimeout(r, 60));
    return false;
  }, srv.base);
});

after(async () => {
  await slow?.close();
  await srv?.app.close();
  await primary?.close();
  if (dir) removeDir(dir);
});

/** Runs the mirror once; kills it with SIGKILL after `killMs` unless it ended before: its exit code, or "killed". */
function runMirror(db: string, killMs: number | undefined): Promise<number | "killed"> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "bin", "ssgkr.js"),
      "registry",
      "mirror",
      "--from",
      slow.base,
      "--key",
      key.verifierKey,
      "--db",
      db,
      "--once",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = killMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killMs);
  return new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === "SIGKILL") resolve("killed");
      else {
        if (code !== 0) process.stderr.write(stderr);
        resolve(code ?? -1);
      }
    }),
  );
}

test("killed with SIGKILL at random moments while it applies, restarted, a mirror reaches the head with the same root", async (t) => {
  const db = join(dir, "mirror");
  let killed = 0;
  /** The mirror's size after each killed run. */
  const sizes: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await runMirror(db, 900 + Math.floor(Math.random() * 2500));
    if (r === "killed") {
      killed++;
      if (existsSync(join(db, "data.mdb"))) {
        const s = NameStore.open(db, { readOnly: true });
        sizes.push(s.head().batch);
        s.closeSync();
      }
    } else assert.equal(r, 0);
  }
  assert.ok(killed >= 1, "at least one run was killed mid-way");
  t.diagnostic(`sizes after the kills: ${sizes.join(", ")} of ${primary.head().batch}`);
  // each size a mirror was left at is one of its verified states: batch numbers only go forward
  for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! >= sizes[i - 1]!);
  assert.equal(await runMirror(db, undefined), 0);
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db });
  try {
    const head = primary.head();
    assert.equal(m.store.head().batch, head.batch);
    assert.equal(formatRoot(m.store.head().root), formatRoot(head.root));
    for (let b = 0; b <= head.batch; b++) {
      assert.equal(formatRoot(m.store.batchEntry(b).root), formatRoot(primary.batchEntry(b).root));
      assert.equal(m.checkpointText(b), signCheckpoint(key, { size: b, root: primary.batchEntry(b).root }));
    }
    assert.equal(m.store.head().live, head.live);
  } finally {
    m.close();
  }
});

test("followed with --listen: it serves its copy and its status, follows new writes, and SIGTERM stops it (exit 0)", async () => {
  const db = join(dir, "listening");
  const child = spawn(
    process.execPath,
    [
      ...[join(ROOT, "bin", "ssgkr.js"), "registry", "mirror", "--from", srv.base, "--key", key.verifierKey],
      ...["--db", db, "--listen", "127.0.0.1:0", "--interval", "1"],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  try {
    const deadline = Date.now() + 60_000;
    let base: string | undefined;
    while (base === undefined && Date.now() < deadline) {
      base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (base === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(base, `no listening line: ${out}`);
    const statusAt = async (size: number) => {
      for (;;) {
        assert.ok(Date.now() < deadline, "the mirror caught up in time");
        const s = (await (await fetch(`${base}/v1/status`)).json()) as Record<string, any>;
        if (s.mirror.verified.size === size) return s;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const s = await statusAt(primary.head().batch);
    assert.equal(s.mirror.state, "following");
    assert.equal(s.mirror.lag_batches, 0);
    assert.equal(
      await (await fetch(`${base}/v1/checkpoint`)).text(),
      await (await fetch(`${srv.base}/v1/checkpoint`)).text(),
    );
    // a new write on the primary, proved: the mirror follows it
    applyNameBlock(primary, [{ op: "insert", name: "followed", value: "yes" }]);
    proveAll(primary);
    await statusAt(primary.head().batch);
    const rec = (await (await fetch(`${base}/v1/records/followed`)).json()) as Record<string, any>;
    assert.equal(rec.value, "yes");
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0);
});

/** Spawns `ssgkr registry mirror` with `args` after `--key`; its stdout so far, its exit. */
function spawnMirror(from: string, args: readonly string[]) {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin", "ssgkr.js"), "registry", "mirror", "--from", from, "--key", key.verifierKey, ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const io = { out: "", err: "" };
  child.stdout.on("data", (d: Buffer) => (io.out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (io.err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const waitFor = async (re: RegExp, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!re.test(io.out)) {
      assert.ok(Date.now() < deadline, `no ${re} within ${ms} ms: ${io.out} ${io.err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, io, exited, waitFor };
}

test("without --listen a mirror keeps following (round after round) until SIGTERM, then says stopped (exit 0)", async () => {
  const m = spawnMirror(srv.base, ["--db", join(dir, "quiet"), "--interval", "1"]);
  try {
    await m.waitFor(new RegExp(`mirror at size ${primary.head().batch} `));
    // two intervals later it is still there, and follows a new proved write
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(m.child.exitCode, null, `the mirror exited: ${m.io.out} ${m.io.err}`);
    applyNameBlock(primary, [{ op: "insert", name: "followed-quietly", value: "yes" }]);
    proveAll(primary);
    await m.waitFor(new RegExp(`mirror at size ${primary.head().batch} `));
  } finally {
    m.child.kill("SIGTERM");
  }
  assert.equal(await m.exited, 0);
  assert.match(m.io.out, / stopped\n$/);
});

test("SIGTERM ends a wait for blocks still being proved (202 PROOF_PENDING) at once, not after --wait", async () => {
  // a primary whose consistency pages are always still being proved
  const pending = await fakeServer((req, res) => {
    if (!req.url!.startsWith("/v1/consistency")) return false;
    res.writeHead(202, { "retry-after": "5", "content-type": "application/json" });
    res.end(JSON.stringify({ code: "PROOF_PENDING", message: "the block is being proved" }));
    return true;
  }, srv.base);
  const m = spawnMirror(pending.base, ["--db", join(dir, "pending"), "--listen", "127.0.0.1:0", "--wait", "120"]);
  try {
    await m.waitFor(/listening on /);
    await new Promise((r) => setTimeout(r, 1500)); // inside the first pause of 5 s
    const t0 = performance.now();
    m.child.kill("SIGTERM");
    assert.equal(await m.exited, 0);
    const ms = performance.now() - t0;
    assert.ok(ms < 4000, `stopped ${ms.toFixed(0)} ms after SIGTERM`);
    assert.match(m.io.out, /stopping \(SIGTERM\)/);
    assert.match(m.io.out, / stopped\n$/);
  } finally {
    m.child.kill("SIGKILL");
    await pending.close();
  }
});

test("one process per --db: a second mirror on a folder in use is refused (MIRROR_DB_IN_USE, exit 2) until the first ends, SIGKILL included", async () => {
  const db = join(dir, "held");
  const first = spawnMirror(srv.base, ["--db", db, "--listen", "127.0.0.1:0", "--interval", "1"]);
  try {
    await first.waitFor(/listening on /);
    const second = spawnMirror(srv.base, ["--db", db, "--once"]);
    assert.equal(await second.exited, 2);
    assert.equal(
      second.io.err,
      `error MIRROR_DB_IN_USE: --db ${db}: another process mirrors into this folder (a registry mirror or registry worker); stop it first, or give another --db\n`,
    );
    assert.equal(second.io.out, "");
  } finally {
    first.child.kill("SIGKILL");
  }
  await first.exited;
  const third = spawnMirror(srv.base, ["--db", db, "--once"]);
  assert.equal(await third.exited, 0, third.io.err);
  // in one process: the folder is held while a Mirror is open, and free once it is closed
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db });
  try {
    await assert.rejects(Mirror.open({ from: srv.base, key: key.verifierKey, db }), { code: "MIRROR_DB_IN_USE" });
  } finally {
    m.close();
  }
  (await Mirror.open({ from: srv.base, key: key.verifierKey, db })).close();
});
