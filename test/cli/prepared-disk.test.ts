import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  diskPreparedCache,
  loadOrPrepare,
  preparedCacheDir,
  preparedFileName,
  PREPARED_FILE_VERSION,
} from "../../src/cli/prepared-disk.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { syncConfig } from "../../src/smt/config.js";
import { prepare } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult } from "../../src/sync/encoded.js";
import { verifyRequestProof } from "../../src/sync/verify-request.js";
import { fromOpRequest } from "../../src/sync/request-convert.js";
import { requestToJson } from "../../src/sync/request.js";
import { OpKind } from "../../src/statement/types.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const DEPTH = 6;
const config = syncConfig({ depth: DEPTH });
const fixture = goldenFixture(OpKind.Membership, DEPTH);
const fresh = prepare(OpKind.Membership, config);
const proof = encodeSyncResult(fresh, provePrepared(fresh, fixture));
/** The proof with one byte of its GKR part changed (rejected by the verifier, not the decoder). */
const forged = (() => {
  const b = proof.slice();
  b[b.length - 40] = b[b.length - 40]! ^ 1;
  return b;
})();
const reference = {
  good: verifyRequestProof(fixture, proof, config),
  forged: verifyRequestProof(fixture, forged, config),
};

const newDir = (): string => mkdtempSync(join(tmpdir(), "ssgkr-cache-"));
const envOf = (dir: string) => ({ SSGKR_CACHE_DIR: dir });
const fileIn = (dir: string) => join(dir, preparedFileName(OpKind.Membership, config));

/** The verdicts of the good and the forged proof through a fresh disk-backed cache of `dir`. */
function verdicts(dir: string) {
  const cache = diskPreparedCache({ env: envOf(dir) });
  return {
    good: verifyRequestProof(fixture, proof, config, { cache }),
    forged: verifyRequestProof(fixture, forged, config, { cache }),
  };
}

test("reference verdicts: the proof is accepted, the forged one rejected by the GKR check", () => {
  assert.deepEqual(reference.good, { ok: true });
  assert.equal(reference.forged.ok, false);
  assert.match((reference.forged as { code: string }).code, /^GKR_/);
});

test("a cold cache prepares and writes the file; a warm one reads it, with the same circuit and the same verdicts", () => {
  const dir = newDir();
  const cold = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(cold.source, "built");
  assert.equal(cold.problem, "no cache file");
  assert.ok(existsSync(fileIn(dir)));
  assert.equal(statSync(fileIn(dir)).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const warm = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(warm.source, "hit");
  assert.equal(warm.problem, undefined);
  assert.deepEqual(warm.prepared.compiled, fresh.compiled);
  assert.deepEqual(Array.from(warm.prepared.commitment), Array.from(fresh.commitment));
  assert.deepEqual(warm.prepared.identity, fresh.identity);
  assert.deepEqual(warm.prepared.shape, fresh.shape);
  assert.deepEqual(verdicts(dir), reference);
  assert.deepEqual(readdirSync(dir), [preparedFileName(OpKind.Membership, config)], "no temporary file is left");
});

/** A warm cache whose file `damage` changes: the next load prepares afresh, rewrites the file, and the verdicts stay right. */
function damaged(damage: (bytes: Buffer) => Buffer, problem: RegExp): void {
  const dir = newDir();
  loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  writeFileSync(fileIn(dir), damage(readFileSync(fileIn(dir))));
  const again = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(again.source, "built");
  assert.match(again.problem ?? "", problem);
  assert.deepEqual(again.prepared.compiled, fresh.compiled);
  assert.equal(
    loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) }).source,
    "hit",
    "the rewritten file is whole",
  );
  writeFileSync(fileIn(dir), damage(readFileSync(fileIn(dir))));
  assert.deepEqual(verdicts(dir), reference);
}

const flip = (at: (b: Buffer) => number) => (b: Buffer) => {
  const c = Buffer.from(b);
  const i = at(c);
  c[i] = c[i]! ^ 0x40;
  return c;
};

test("a corrupt file (one material byte changed) is rebuilt: wrong checksum", () => {
  damaged(
    flip((b) => b.length - 100),
    /checksum is wrong/,
  );
  damaged(
    flip(() => 200),
    /checksum is wrong/,
  );
});

test("a truncated file is rebuilt", () => {
  damaged((b) => b.subarray(0, b.length - 1000), /material bytes, the file holds/);
  damaged((b) => b.subarray(0, 50), /less than its header/);
  damaged(() => Buffer.alloc(0), /less than its header/);
});

test("a file of another format or material version is rebuilt", () => {
  damaged((b) => {
    const c = Buffer.from(b);
    c.writeUInt32LE(PREPARED_FILE_VERSION + 1, 8);
    return c;
  }, /file format version 2/);
  damaged((b) => {
    const c = Buffer.from(b);
    c.writeUInt32LE(99, 12);
    return c;
  }, /material version 99/);
  damaged((b) => {
    const c = Buffer.from(b);
    c.write("NOTACACH", 0);
    return c;
  }, /no SSGKR-PC header/);
});

test("a file written by other code (stale code digest) is rebuilt", () => {
  damaged(
    flip(() => 30),
    /code digest differs/,
  );
});

test("a file of another configuration under this name is rebuilt", () => {
  const dir = newDir();
  const other = syncConfig({ depth: DEPTH + 1 });
  loadOrPrepare(OpKind.Membership, other, { env: envOf(dir) });
  writeFileSync(fileIn(dir), readFileSync(join(dir, preparedFileName(OpKind.Membership, other))));
  const again = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(again.source, "built");
  assert.match(again.problem ?? "", /prepared for membership at .*"depth":7/);
  assert.deepEqual(verdicts(dir), reference);
});

test("SSGKR_CACHE=off reads and writes nothing", () => {
  const dir = join(newDir(), "cache");
  for (const off of ["off", "OFF", "0"]) {
    const env = { SSGKR_CACHE_DIR: dir, SSGKR_CACHE: off };
    assert.equal(preparedCacheDir(env), undefined);
    const r = loadOrPrepare(OpKind.Membership, config, { env });
    assert.equal(r.source, "uncached");
    assert.equal(existsSync(dir), false);
    const cache = diskPreparedCache({ env });
    assert.deepEqual(verifyRequestProof(fixture, proof, config, { cache }), { ok: true });
    assert.equal(existsSync(dir), false);
  }
});

test("the cache location: SSGKR_CACHE_DIR, else XDG_CACHE_HOME/statesync-gkr, else ~/.cache/statesync-gkr", () => {
  assert.equal(preparedCacheDir({ SSGKR_CACHE_DIR: "/a/b", XDG_CACHE_HOME: "/x" }), "/a/b");
  assert.equal(preparedCacheDir({ XDG_CACHE_HOME: "/x" }), join("/x", "statesync-gkr"));
  assert.match(preparedCacheDir({}) ?? "", /[/\\]\.cache[/\\]statesync-gkr$/);
});

test("a failed write leaves no file behind (the rename target is a directory) and the verdicts are right", () => {
  const dir = newDir();
  mkdirSync(join(fileIn(dir), "occupied"), { recursive: true });
  const r = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(r.source, "built");
  assert.match(r.problem ?? "", /cannot write the cache file/);
  assert.deepEqual(
    readdirSync(dir),
    [preparedFileName(OpKind.Membership, config)],
    "only the directory that was there: no temporary file",
  );
  assert.deepEqual(verdicts(dir), reference);
});

test("a folder that its group or others may write is not used", { skip: process.platform === "win32" }, () => {
  const dir = newDir();
  chmodSync(dir, 0o777);
  const r = loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  assert.equal(r.source, "uncached");
  assert.match(r.problem ?? "", /may be written by its group or others/);
  assert.deepEqual(readdirSync(dir), []);
});

test("concurrent processes on a cold cache: every verdict is ACCEPT, one whole file, no temporary file", async () => {
  const dir = newDir();
  const work = newDir();
  const request = join(work, "request.json");
  const proofFile = join(work, "proof.bin");
  writeFileSync(request, JSON.stringify(requestToJson(fromOpRequest(fixture, DEPTH, config.leafMaxFields))));
  writeFileSync(proofFile, proof);
  const one = () =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [bin, "verify", "--request", request, "--proof", proofFile], {
        env: { ...process.env, SSGKR_CACHE_DIR: dir },
      });
      let stdout = "",
        stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
  const runs = await Promise.all([one(), one(), one()]);
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ACCEPT/);
  }
  assert.deepEqual(readdirSync(dir), [preparedFileName(OpKind.Membership, config)]);
  assert.equal(loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) }).source, "hit");
  const warm = spawnSync(process.execPath, [bin, "verify", "--request", request, "--proof", proofFile], {
    encoding: "utf8",
    env: { ...process.env, SSGKR_CACHE_DIR: dir },
  });
  assert.equal(warm.status, 0, warm.stderr);
  assert.match(warm.stdout, /^ACCEPT/);
  rmSync(work, { recursive: true, force: true });
});

test("ssgkr verify rejects a forged proof the same way with a warm, a damaged and no cache", () => {
  const dir = newDir();
  const work = newDir();
  const request = join(work, "request.json");
  const forgedFile = join(work, "forged.bin");
  writeFileSync(request, JSON.stringify(requestToJson(fromOpRequest(fixture, DEPTH, config.leafMaxFields))));
  writeFileSync(forgedFile, forged);
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [bin, "verify", "--request", request, "--proof", forgedFile], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
  const off = run({ SSGKR_CACHE: "off" });
  loadOrPrepare(OpKind.Membership, config, { env: envOf(dir) });
  const warm = run({ SSGKR_CACHE_DIR: dir });
  writeFileSync(fileIn(dir), flip((b) => b.length - 7)(readFileSync(fileIn(dir))));
  const damagedRun = run({ SSGKR_CACHE_DIR: dir });
  for (const r of [off, warm, damagedRun]) {
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, off.stdout);
    assert.match(r.stdout, /^REJECT GKR_/);
  }
  rmSync(work, { recursive: true, force: true });
});
