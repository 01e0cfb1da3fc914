import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const dir = mkdtempSync(join(tmpdir(), "ssgkr-cli-v2-"));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function fixtureFile(kind: string, key: number, depth = 4): string {
  const r = run("fixture", "--kind", kind, "--depth", String(depth), "--key", String(key));
  assert.equal(r.code, 0, r.stderr);
  const p = join(dir, `${kind}-${depth}-${key}.json`);
  writeFileSync(p, r.stdout);
  return p;
}

test("prove --profile v2 writes inner-proof-v2 bytes that verify (the profile is read from the proof); compat-v1 stays the default", () => {
  for (const kind of ["membership", "nonmembership", "update"]) {
    const req = fixtureFile(kind, 5);
    const out = join(dir, `${kind}.v2.bin`);
    const p = run("prove", "--profile", "v2", "--request", req, "--out", out);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, new RegExp(`^${kind} depth=4 profile=v2 bytes=\\d+ prove_ms=`));
    const bytes = readFileSync(out);
    assert.equal(bytes.readUInt16LE(8), 2);
    const v = run("verify", "--request", req, "--proof", out);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.equal(v.stdout, "ACCEPT\n");
    const other = fixtureFile(kind, 6);
    const r = run("verify", "--request", other, "--proof", out);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^REJECT /);
  }
  const req = fixtureFile("membership", 5);
  const v1 = run("prove", "--request", req, "--out", join(dir, "v1.bin"));
  assert.equal(v1.code, 0, v1.stderr);
  assert.equal(readFileSync(join(dir, "v1.bin")).readUInt16LE(8), 1);
});

test("prove --profile v2 --requests makes one aggregate; verify --requests checks it in order and names the failing operation", () => {
  const files = [1, 2, 3].map((k) => fixtureFile("update", k));
  const out = join(dir, "agg.bin");
  const p = run("prove", "--profile", "v2", "--requests", files.join(","), "--out", out);
  assert.equal(p.code, 0, p.stderr);
  assert.match(p.stdout, /^update depth=4 profile=v2 operations=3 bytes=\d+ prove_ms=/);
  const v = run("verify", "--requests", files.join(","), "--proof", out);
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal(v.stdout, "ACCEPT operations=3\n");
  const swapped = run("verify", "--requests", [files[0], files[2], files[1]].join(","), "--proof", out);
  assert.equal(swapped.code, 1);
  assert.match(swapped.stdout, /^REJECT PUBLIC_INPUTS_MISMATCH \(operation 1\)/);
});

test("profile options are validated with one error line and exit 2", () => {
  const req = fixtureFile("membership", 5);
  let r = run("prove", "--profile", "v4", "--request", req, "--out", join(dir, "x.bin"));
  assert.equal(r.code, 2);
  assert.match(r.stderr.trim(), /^error BAD_OPTION: --profile must be compat-v1 or v2 or v3, got "v4"$/);
  r = run("prove", "--requests", req, "--out", join(dir, "x.bin"));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--requests \(an aggregate\) needs --profile v2 or v3/);
  r = run("prove", "--profile", "v2", "--out", join(dir, "x.bin"));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--request/);
  r = run(
    "prove",
    "--profile",
    "v2",
    "--requests",
    [req, fixtureFile("update", 5)].join(","),
    "--out",
    join(dir, "x.bin"),
  );
  assert.equal(r.code, 2);
  assert.match(r.stderr, /one kind and configuration/);
});

test("prove --profile v3 makes an aggregate verify checks from the request files' statements alone (the profile is read from the proof)", () => {
  for (const kind of ["membership", "nonmembership", "update"]) {
    const files = [1, 2, 3].map((k) => fixtureFile(kind, k));
    const out = join(dir, `${kind}.v3.bin`);
    const p = run("prove", "--profile", "v3", "--requests", files.join(","), "--out", out);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, new RegExp(`^${kind} depth=4 profile=v3 operations=3 bytes=\\d+ prove_ms=`));
    assert.equal(readFileSync(out).readUInt16LE(8), 3);
    const v = run("verify", "--requests", files.join(","), "--proof", out);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.equal(v.stdout, "ACCEPT profile=v3 operations=3\n");
    const swapped = run("verify", "--requests", [files[0], files[2], files[1]].join(","), "--proof", out);
    assert.equal(swapped.code, 1);
    assert.match(swapped.stdout, /^REJECT PUBLIC_INPUTS_MISMATCH \(operation 1\)/);
  }
  const one = fixtureFile("membership", 7);
  const out = join(dir, "one.v3.bin");
  assert.equal(run("prove", "--profile", "v3", "--request", one, "--out", out).code, 0);
  const v = run("verify", "--request", one, "--proof", out);
  assert.equal(v.stdout, "ACCEPT profile=v3 operations=1\n", v.stderr);
  const cut = join(dir, "cut.v3.bin");
  writeFileSync(cut, readFileSync(out).subarray(0, 200));
  const c = run("verify", "--request", one, "--proof", cut);
  assert.equal(c.code, 1);
  assert.match(c.stdout, /^REJECT DECODE_DeclaredLengthMismatch: /);
});
