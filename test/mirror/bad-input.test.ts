/**
 * A mirror given bad input (docs/errors.md `MirrorErrorCode`): a wrong or malformed key, an
 * unreachable or non-registry URL, a checkpoint of another origin, a primary that answers
 * garbage, a huge body or a response that never ends — each one error with its code, within
 * bounded time and memory, and no change to the mirror's registry (a new one is not even
 * created). `ssgkr registry mirror` prints it as one line `error CODE: message`, exit 2.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { formatRoot } from "../../src/registry/root.js";
import { SsgkrError } from "../../src/errors.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { freshDir, makeRegistry, removeDir, runSsgkr, startServer } from "../web/support.js";
import { checkpointOfOrigin, fakeServer, proveAll, testKey } from "./support.js";

const key = testKey();
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;
const servers: { close: () => Promise<void> }[] = [];

before(async () => {
  dir = freshDir("ssgkr-mirror-bad-");
  primary = makeRegistry(dir, 16);
  proveAll(primary);
  srv = await startServer({ store: primary, signingKey: key, rateLimit: 0 });
  // an existing mirror, caught up
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  await m.sync();
  m.close();
});

after(async () => {
  for (const s of servers) await s.close();
  await srv?.app.close();
  await primary?.close();
  if (dir) removeDir(dir);
});

const headCheckpoint = () => signCheckpoint(key, { size: primary.head().batch, root: primary.head().root });

/** A fake primary answering `/v1/checkpoint` with `checkpoint` and everything else with `rest`. */
async function fake(answer: (url: string, res: import("node:http").ServerResponse) => void): Promise<string> {
  const s = await fakeServer((req, res) => {
    answer(req.url!, res);
    return true;
  });
  servers.push(s);
  return s.base;
}

/** Opens and syncs a mirror at `db` from `from`: the error's code (or "ok"), and the seconds it took. */
async function attempt(from: string, db: string, k = key.verifierKey, timeoutMs = 1500): Promise<[string, number]> {
  const t0 = Date.now();
  try {
    const m = await Mirror.open({ from, key: k, db: join(dir, db), timeoutMs });
    try {
      await m.sync();
    } finally {
      m.close();
    }
    return ["ok", (Date.now() - t0) / 1000];
  } catch (e) {
    assert.ok(e instanceof SsgkrError, String(e));
    assert.ok(e.message.length > 0 && e.message.length <= 600 && !e.message.includes("\n"), e.message);
    return [e.code, (Date.now() - t0) / 1000];
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const garbage: [string, (url: string, res: import("node:http").ServerResponse) => void][] = [
  ["MIRROR_NOT_REGISTRY", (_u, res) => res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>")],
  ["MIRROR_NOT_REGISTRY", (_u, res) => res.writeHead(200, { "content-type": "text/plain" }).end("hello\nworld\n")],
  [
    "MIRROR_WRONG_ORIGIN",
    (_u, res) => res.writeHead(200).end(checkpointOfOrigin(key, "evil.example/other", 4, primary.head().root)),
  ],
  [
    "MIRROR_BAD_SIGNATURE",
    (_u, res) =>
      res
        .writeHead(200)
        .end(
          signCheckpoint(testKey("example.com/mirror", 9), { size: primary.head().batch, root: primary.head().root }),
        ),
  ],
  [
    "MIRROR_NOT_REGISTRY",
    (u, res) =>
      u.startsWith("/v1/checkpoint")
        ? res.writeHead(200).end(headCheckpoint())
        : res.writeHead(200, { "content-type": "application/json" }).end('{"root": 5, "depth": "deep"}'),
  ],
  [
    "MIRROR_NOT_REGISTRY",
    (u, res) =>
      u.startsWith("/v1/checkpoint")
        ? res.writeHead(200).end(headCheckpoint())
        : res.writeHead(200, { "content-type": "application/json" }).end("{not json"),
  ],
  [
    "MIRROR_SERVER_ERROR",
    (u, res) =>
      u.startsWith("/v1/checkpoint")
        ? res.writeHead(200).end(headCheckpoint())
        : res.writeHead(500, { "content-type": "application/json" }).end('{"code":"INTERNAL","message":"boom"}'),
  ],
  [
    "MIRROR_TOO_LARGE",
    (_u, res) => {
      // chunked, no length: cut as it arrives
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(1 << 20, 0x41);
      let sent = 0;
      const more = () => {
        while (sent < 512 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("error", () => {});
      more();
    },
  ],
  ["MIRROR_TOO_LARGE", (_u, res) => res.writeHead(200, { "content-length": String(1 << 30) }).write("x")],
  [
    "MIRROR_TIMEOUT",
    (_u, res) => {
      // headers, then a byte every 100 ms for ever
      res.writeHead(200, { "content-type": "text/plain" });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write("a")), 100);
      res.on("close", () => clearInterval(t));
    },
  ],
  ["MIRROR_TIMEOUT", () => {}],
];

test("bad primaries: one error each, with its code, in bounded time and memory; a new mirror is not created", async () => {
  let i = 0;
  const rss0 = process.memoryUsage().rss;
  for (const [code, answer] of garbage) {
    const base = await fake(answer);
    const db = `new-${i++}`;
    const [got, seconds] = await attempt(base, db);
    assert.equal(got, code, `case ${i}`);
    assert.ok(seconds < 10, `case ${i} took ${seconds} s`);
    assert.equal(existsSync(join(dir, db)), false, `case ${i}: no registry is created`);
  }
  assert.ok(process.memoryUsage().rss - rss0 < 200 * 1024 * 1024, "memory stays bounded");
  // unreachable, and not an http URL
  const [c1] = await attempt(`http://127.0.0.1:${await closedPort()}`, "new-unreachable");
  assert.equal(c1, "MIRROR_UNREACHABLE");
  const [c2] = await attempt("ftp://127.0.0.1/", "new-ftp");
  assert.equal(c2, "MIRROR_UNREACHABLE");
  // a key that is not one; a valid key of another registry
  const [c3] = await attempt(srv.base, "new-badkey", "not a key");
  assert.equal(c3, "BAD_VERIFIER_KEY");
  const [c4] = await attempt(srv.base, "new-otherkey", testKey("example.com/mirror", 9).verifierKey);
  assert.equal(c4, "MIRROR_BAD_SIGNATURE");
  // a primary that does not serve ?size=N (it answers the head's checkpoint to every size)
  const old = await fakeServer((req, res) => {
    if (!req.url!.startsWith("/v1/checkpoint")) return false;
    res.writeHead(200).end(headCheckpoint());
    return true;
  }, srv.base);
  servers.push(old);
  const [c5] = await attempt(old.base, "new-old-primary");
  assert.equal(c5, "MIRROR_NOT_REGISTRY");
  for (const db of ["new-unreachable", "new-ftp", "new-badkey", "new-otherkey"])
    assert.equal(existsSync(join(dir, db)), false);
});

test("bad primaries leave an existing mirror as it was", async () => {
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  const head = { batch: m.store.head().batch, root: formatRoot(m.store.head().root) };
  m.close();
  for (const [code, answer] of garbage.slice(0, 4)) {
    const base = await fake(answer);
    const [got] = await attempt(base, "mirror");
    assert.equal(got, code);
  }
  const [c] = await attempt(srv.base, "mirror", testKey("example.com/mirror", 9).verifierKey);
  assert.equal(c, "MIRROR_DB_MISMATCH", "a mirror of another key's registry");
  const again = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  try {
    assert.deepEqual({ batch: again.store.head().batch, root: formatRoot(again.store.head().root) }, head);
    assert.equal(again.checkpointText(head.batch), headCheckpoint());
  } finally {
    again.close();
  }
});

test("ssgkr registry mirror: one line `error CODE: message`, exit 2; --once catches up, exit 0", async () => {
  const garbageBase = await fake((_u, res) => res.writeHead(200).end("garbage\n"));
  const bad = await runSsgkr(
    dir,
    ...["registry", "mirror", "--from", garbageBase, "--key", key.verifierKey, "--db", join(dir, "cli-bad"), "--once"],
  );
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /^error MIRROR_NOT_REGISTRY: .+\n$/);
  assert.equal(existsSync(join(dir, "cli-bad")), false);
  // an address without its scheme is an option's mistake, named as such (not "unreachable")
  const bare = await runSsgkr(
    dir,
    ...[
      "registry",
      "mirror",
      "--from",
      new URL(srv.base).host,
      "--key",
      key.verifierKey,
      "--db",
      join(dir, "cli-bad"),
      "--once",
    ],
  );
  assert.equal(bare.status, 2, bare.stderr);
  assert.match(bare.stderr, /^error BAD_OPTION: --from [^ ]+: give the primary's http or https URL .+\n$/);
  assert.equal(existsSync(join(dir, "cli-bad")), false);
  const wrong = await runSsgkr(
    dir,
    ...["registry", "mirror", "--from", srv.base, "--key", testKey("example.com/mirror", 9).verifierKey],
    ...["--db", join(dir, "cli-bad"), "--once"],
  );
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /^error MIRROR_BAD_SIGNATURE: .+\n$/);
  const ok = await runSsgkr(
    dir,
    ...["registry", "mirror", "--from", srv.base, "--key", key.verifierKey, "--db", join(dir, "cli-ok"), "--once"],
  );
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(
    ok.stdout,
    new RegExp(`mirror at size ${primary.head().batch} \\(primary's head ${primary.head().batch}\\)`),
  );
});
