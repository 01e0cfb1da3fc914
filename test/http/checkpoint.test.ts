/**
 * Signed checkpoints end to end: `ssgkr registry keygen` (mode 0600, never overwriting, the
 * verifier key alone on one line), `GET /v1/checkpoint` serving byte for byte what `ssgkr registry
 * checkpoint` prints, proof bodies and writes carrying the checkpoint they are about, `POST
 * /v1/verify` and `ssgkr registry verify --checkpoint --key` taking the trusted root from a
 * checkpoint and refusing a tampered or wrongly keyed one.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { readTokenFile } from "../../src/http/auth.js";
import { formatRoot } from "../../src/registry/root.js";
import { verifyCheckpoint } from "../../src/registry/checkpoint/checkpoint.js";
import { readSigningKey } from "../../src/registry/checkpoint/signing-key.js";
import { freshDir, makeRegistry, RECORDS, removeDir, ROOT, startServer, TOKEN, tokenFile } from "../web/support.js";

const BIN = join(ROOT, "bin", "ssgkr.js");
const DEPTH = 16;
let dir: string;
let store: NameStore;
let keyFile: string;
let verifierKey: string;
let signed: Awaited<ReturnType<typeof startServer>>;
let plain: Awaited<ReturnType<typeof startServer>>;
type Json = Record<string, any>;

const ssgkr = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8", timeout: 120_000 });

before(async () => {
  dir = freshDir("ssgkr-checkpoint-http-");
  store = makeRegistry(dir, DEPTH);
  keyFile = join(dir, "registry.key");
  const k = ssgkr("registry", "keygen", "--out", keyFile, "--origin", "example.com/registry");
  assert.equal(k.status, 0, k.stderr);
  verifierKey = k.stdout.trimEnd();
  signed = await startServer({
    store,
    token: readTokenFile(tokenFile(dir)),
    rateLimit: 0,
    signingKey: readSigningKey(keyFile),
  });
  plain = await startServer({ store, rateLimit: 0 });
});

after(async () => {
  await signed?.app.close();
  await plain?.app.close();
  await store?.close();
  if (dir) removeDir(dir);
});

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json; text: string; headers: Headers }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = {};
  }
  return { status: res.status, json, text, headers: res.headers };
}

test("keygen: the key file has mode 0600, the verifier key is printed alone on one line, an existing file is never overwritten", () => {
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.match(verifierKey, /^example\.com\/registry\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
  const original = readFileSync(keyFile, "utf8");
  const again = ssgkr("registry", "keygen", "--out", keyFile);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /^error KEY_FILE_EXISTS: /);
  assert.equal(readFileSync(keyFile, "utf8"), original, "the key file is unchanged");
  const badOrigin = ssgkr("registry", "keygen", "--out", join(dir, "x.key"), "--origin", "has space");
  assert.equal(badOrigin.status, 2);
  assert.match(badOrigin.stderr, /^error BAD_ORIGIN: /);
});

test("GET /v1/checkpoint is text/plain and byte for byte what `ssgkr registry checkpoint` prints; without a key 404", async () => {
  const served = await call(signed.base, "GET", "/v1/checkpoint");
  assert.equal(served.status, 200);
  assert.equal(served.headers.get("content-type"), "text/plain; charset=utf-8");
  const printed = ssgkr("registry", "checkpoint", "--db", join(dir, "db"), "--signing-key", keyFile);
  assert.equal(printed.status, 0, printed.stderr);
  assert.equal(served.text, printed.stdout);
  const v = verifyCheckpoint(served.text, verifierKey);
  assert.ok(v.ok, JSON.stringify(v));
  assert.deepEqual(
    [v.origin, v.size, formatRoot(v.root)],
    ["example.com/registry", store.head().batch, formatRoot(store.head().root)],
  );
  const none = await call(plain.base, "GET", "/v1/checkpoint");
  assert.equal(none.status, 404);
  assert.equal(none.json.code, "CHECKPOINT_NOT_SERVED");
  const cli = ssgkr("registry", "checkpoint", "--db", join(dir, "db"), "--signing-key", join(dir, "missing.key"));
  assert.equal(cli.status, 2);
  assert.match(cli.stderr, /^error BAD_SIGNING_KEY: /);
});

test("proofs carry the checkpoint of their root; POST /v1/verify and the CLI take the trusted root from it", async () => {
  const p = await call(signed.base, "GET", `/v1/records/${RECORDS.live}/proof`);
  assert.equal(p.status, 200);
  assert.equal(
    p.json.checkpoint,
    (await call(signed.base, "GET", "/v1/checkpoint")).text,
    "a proof at the head carries the head's checkpoint",
  );
  assert.equal(
    (await call(plain.base, "GET", `/v1/records/${RECORDS.live}/proof`)).json.checkpoint,
    undefined,
    "no key, no checkpoint",
  );
  const bin = await fetch(`${signed.base}/v1/records/${RECORDS.live}/proof.bin`);
  assert.equal(decodeURIComponent(bin.headers.get("x-ssgkr-checkpoint")!), p.json.checkpoint);

  const ok = await call(signed.base, "POST", "/v1/verify", { ...p.json, verifier_key: verifierKey });
  assert.deepEqual(
    [ok.json.ok, ok.json.root_source, ok.json.trusted_root, ok.json.checkpoint],
    [true, "checkpoint", p.json.statement.root, { origin: "example.com/registry", size: store.head().batch }],
  );
  const tampered = p.json.checkpoint.replace(`\n${store.head().batch}\n`, `\n${store.head().batch + 1}\n`);
  const bad = await call(signed.base, "POST", "/v1/verify", {
    ...p.json,
    checkpoint: tampered,
    verifier_key: verifierKey,
  });
  assert.deepEqual([bad.status, bad.json.ok, bad.json.code], [200, false, "CHECKPOINT_BAD_SIGNATURE"]);
  const otherKey = ssgkr(
    "registry",
    "keygen",
    "--out",
    join(dir, "other.key"),
    "--origin",
    "example.com/registry",
  ).stdout.trimEnd();
  const wrong = await call(signed.base, "POST", "/v1/verify", { ...p.json, verifier_key: otherKey });
  assert.deepEqual([wrong.json.ok, wrong.json.code], [false, "CHECKPOINT_WRONG_KEY"]);
  const malformedKey = await call(signed.base, "POST", "/v1/verify", { ...p.json, verifier_key: "nope" });
  assert.deepEqual([malformedKey.status, malformedKey.json.code], [400, "BAD_VERIFIER_KEY"]);
  assert.match(malformedKey.json.message, /^body\.verifier_key: /);
  const noCheckpoint = await call(signed.base, "POST", "/v1/verify", {
    statement: p.json.statement,
    request: p.json.request,
    proof: p.json.proof,
    verifier_key: verifierKey,
  });
  assert.deepEqual([noCheckpoint.status, noCheckpoint.json.code], [400, "BAD_INPUT"]);

  writeFileSync(join(dir, "request.json"), JSON.stringify(p.json.request));
  writeFileSync(join(dir, "proof.bin"), Buffer.from(p.json.proof, "base64"));
  writeFileSync(join(dir, "checkpoint.txt"), p.json.checkpoint);
  writeFileSync(join(dir, "tampered.txt"), tampered);
  const claim = [
    "registry",
    "verify",
    "--name",
    RECORDS.live,
    "--value",
    "https://github.com/left-pad/left-pad",
    "--depth",
    String(DEPTH),
    "--request",
    "request.json",
    "--proof",
    "proof.bin",
  ];
  const accepted = ssgkr(...claim, "--checkpoint", "checkpoint.txt", "--key", verifierKey);
  assert.equal(accepted.status, 0, accepted.stdout + accepted.stderr);
  assert.equal(
    accepted.stdout,
    `ACCEPT name="left-pad" value="https://github.com/left-pad/left-pad" root=${p.json.statement.root} checkpoint=example.com/registry size=${store.head().batch}\n`,
  );
  const refused = ssgkr(...claim, "--checkpoint", "tampered.txt", "--key", verifierKey);
  assert.equal(refused.status, 1);
  assert.match(refused.stdout, /^REJECT CHECKPOINT_BAD_SIGNATURE: /);
  const wrongCli = ssgkr(...claim, "--checkpoint", "checkpoint.txt", "--key", otherKey);
  assert.equal(wrongCli.status, 1);
  assert.match(wrongCli.stdout, /^REJECT CHECKPOINT_WRONG_KEY: /);
  const noKey = ssgkr(...claim, "--checkpoint", "checkpoint.txt");
  assert.equal(noKey.status, 2);
  assert.match(noKey.stderr, /^error MISSING_OPTION: /);
});

test("a proof at an earlier root (?root=, proved, not cached) carries that root's checkpoint, in the body and the proof.bin header", async () => {
  const history = (await call(signed.base, "GET", "/v1/history")).json.entries as { batch: number; root: string }[];
  const head = store.head();
  const earlier = history.find((e) => e.batch === head.batch - 2)!;
  assert.ok(earlier, JSON.stringify(history));
  for (const query of ["", "&profile=v3"]) {
    const path = `/v1/records/${RECORDS.live}/proof?root=${earlier.root}${query}`;
    const p = await call(signed.base, "GET", path);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.statement.root, earlier.root);
    assert.equal(typeof p.json.checkpoint, "string", `${path}: a checkpoint`);
    const c = verifyCheckpoint(p.json.checkpoint, verifierKey);
    assert.ok(c.ok, JSON.stringify(c));
    assert.deepEqual([c.size, formatRoot(c.root)], [earlier.batch, earlier.root], "the earlier root's checkpoint");
    const bin = await fetch(`${signed.base}${path.replace("/proof?", "/proof.bin?")}`);
    assert.equal(bin.status, 200);
    assert.equal(decodeURIComponent(bin.headers.get("x-ssgkr-checkpoint")!), p.json.checkpoint);
    const v = await call(signed.base, "POST", "/v1/verify", { ...p.json, verifier_key: verifierKey });
    assert.deepEqual(
      [v.json.ok, v.json.root_source, v.json.checkpoint],
      [true, "checkpoint", { origin: "example.com/registry", size: earlier.batch }],
    );
  }
  const unsigned = await call(plain.base, "GET", `/v1/records/${RECORDS.live}/proof?root=${earlier.root}`);
  assert.deepEqual([unsigned.status, unsigned.json.checkpoint], [200, undefined], "no key, no checkpoint");
});

test("a write returns the checkpoint of the new head; a proof of the old root keeps the old one", async () => {
  const earlier = await call(signed.base, "GET", `/v1/records/${encodeURIComponent(RECORDS.scoped)}/proof`);
  const w = await call(
    signed.base,
    "PUT",
    "/v1/records/ckpt-new",
    { value: "https://example.com/new" },
    { authorization: `Bearer ${TOKEN}` },
  );
  assert.equal(w.status, 200, JSON.stringify(w.json));
  const c = verifyCheckpoint(w.json.checkpoint, verifierKey);
  assert.ok(c.ok, JSON.stringify(c));
  assert.deepEqual([c.size, formatRoot(c.root)], [store.head().batch, w.json.root]);
  assert.equal(c.size, w.json.batch, "the checkpoint of the write's epoch");
  assert.equal(w.json.checkpoint, (await call(signed.base, "GET", "/v1/checkpoint")).text);
  const old = await call(
    signed.base,
    "GET",
    `/v1/records/${encodeURIComponent(RECORDS.scoped)}/proof?root=${earlier.json.statement.root}`,
  );
  assert.equal(old.status, 200, JSON.stringify(old.json));
  assert.equal(old.json.checkpoint, earlier.json.checkpoint, "the cached proof carries the checkpoint of its own root");
  const v = await call(signed.base, "POST", "/v1/verify", { ...old.json, verifier_key: verifierKey });
  assert.deepEqual([v.json.ok, v.json.root_source], [true, "checkpoint"]);
});
