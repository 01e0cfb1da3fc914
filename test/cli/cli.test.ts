import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { formatRoot } from "../../src/registry/root.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const dir = mkdtempSync(join(tmpdir(), "ssgkr-cli-"));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One clear line on stderr, never a stack trace. */
function oneLine(text: string): string {
  const lines = text.trim().split("\n");
  assert.equal(lines.length, 1, `expected one line, got:\n${text}`);
  assert.ok(!/\n\s+at /.test(text));
  return lines[0]!;
}

function fixture(kind: string, depth = 4, key = 5): Record<string, unknown> {
  const r = run("fixture", "--kind", kind, "--depth", String(depth), "--key", String(key));
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function write(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value));
  return p;
}

test("fixture → prove → verify accepts, for every kind (depth 4)", () => {
  for (const kind of ["membership", "nonmembership", "update"]) {
    const req = write(`${kind}.json`, fixture(kind));
    const p = run("prove", "--request", req, "--out", join(dir, `${kind}.bin`));
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, new RegExp(`^${kind} depth=4 bytes=\\d+ prove_ms=`));
    const v = run("verify", "--request", req, "--proof", join(dir, `${kind}.bin`));
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /^ACCEPT \(roots not pinned: .*--expect-old-root.*\)\n$/);
  }
});

test("verify: REJECT lines with stable codes and exit 1; expect-root pinning", () => {
  const req = write("m.json", fixture("membership"));
  assert.equal(run("prove", "--request", req, "--out", join(dir, "m.bin")).code, 0);
  const bytes = readFileSync(join(dir, "m.bin"));
  const trailing = write("trail.bin", "");
  writeFileSync(trailing, Buffer.concat([bytes, Buffer.from([0])]));
  let r = run("verify", "--request", req, "--proof", trailing);
  assert.equal(r.code, 1);
  assert.match(oneLine(r.stdout), /^REJECT DeclaredLengthMismatch: /);
  assert.equal(r.stderr, "");
  const other = write("n.json", fixture("nonmembership"));
  r = run("verify", "--request", other, "--proof", join(dir, "m.bin"));
  assert.equal(r.code, 1);
  assert.match(oneLine(r.stdout), /^REJECT IDENTITY_MISMATCH: /);
  assert.equal(r.stderr, "");
  const f = fixture("membership");
  const oldRoot = (f.old_root as number[]).join(",");
  assert.equal(
    run(
      "verify",
      "--request",
      req,
      "--proof",
      join(dir, "m.bin"),
      "--expect-old-root",
      oldRoot,
      "--expect-new-root",
      oldRoot,
    ).code,
    0,
  );
  r = run("verify", "--request", req, "--proof", join(dir, "m.bin"), "--expect-old-root", "1,2,3,4,5,6,7,8");
  assert.equal(r.code, 1);
  assert.match(oneLine(r.stdout), /^REJECT EXPECTED_OLD_ROOT/);
  assert.equal(r.stderr, "");
  assert.equal(
    run(
      "verify",
      "--request",
      req,
      "--proof",
      join(dir, "m.bin"),
      "--expect-old-root",
      `[${(f.old_root as number[]).join(", ")}]`,
    ).code,
    0,
  );
  assert.equal(
    run(
      "verify",
      "--request",
      req,
      "--proof",
      join(dir, "m.bin"),
      "--expect-old-root",
      formatRoot(f.old_root as number[]),
    ).code,
    0,
    "the hex form",
  );
  r = run("verify", "--request", req, "--proof", join(dir, "m.bin"), "--expect-old-root", "1,2");
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /^error BAD_ROOT: --expect-old-root: /);
  r = run("verify", "--request", req, "--proof", join(dir, "m.bin"), "--expect-new-root", "ff".repeat(32));
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /^error BAD_ROOT: --expect-new-root: word 0 .* not a canonical field element/);
  r = run("verify", "--request", req, "--proof", join(dir, "m.bin"), "--expect-old-root", "0".repeat(63));
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /^error BAD_ROOT: --expect-old-root: a root in hex is 64 hex characters/);
});

test("prove: a false statement exits 1 with INVALID unless --unchecked; its proof is rejected", () => {
  const f = fixture("membership");
  (f.siblings as number[][])[1]![0] = 12345;
  const req = write("forged.json", f);
  let r = run("prove", "--request", req, "--out", join(dir, "forged.bin"));
  assert.equal(r.code, 1);
  assert.match(oneLine(r.stdout), /^INVALID OLD_ROOT_MISMATCH: /);
  assert.equal(r.stderr, "");
  r = run("prove", "--request", req, "--out", join(dir, "forged.bin"), "--unchecked");
  assert.equal(r.code, 0, r.stderr);
  r = run("verify", "--request", req, "--proof", join(dir, "forged.bin"));
  assert.equal(r.code, 1);
  assert.match(oneLine(r.stdout), /^REJECT GKR_/);
  assert.equal(r.stderr, "");
});

test("bad input exits 2 with one line naming the field", () => {
  const cases: [unknown, RegExp][] = [
    ["{not json", /not valid JSON/],
    [{ ...fixture("membership"), depth: "four" }, /\$\.depth/],
    [{ ...fixture("membership"), old_root: [1, 2, 3, 4, 5, 6, 7, 2130706433] }, /\$\.old_root\[7\]/],
    [{ ...fixture("membership"), siblings: [[1, 1, 1, 1, 1, 1, 1, 1]] }, /\$\.siblings: must have depth = 4 entries/],
    [{ ...fixture("membership"), key: 2 ** 60 }, /\$\.key: .*decimal string/],
  ];
  cases.forEach(([value, pattern], i) => {
    const r = run("prove", "--request", write(`bad${i}.json`, value), "--out", join(dir, "x.bin"));
    assert.equal(r.code, 2, `case ${i}: ${r.stderr}`);
    assert.match(oneLine(r.stderr), pattern);
  });
  let r = run("verify", "--request", join(dir, "missing.json"), "--proof", join(dir, "x.bin"));
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /^error CANNOT_READ: cannot read --request .*missing\.json: no such file$/);
  r = run("fixture", "--kind", "bogus");
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /--kind/);
  r = run("fixture", "--kind", "membership", "--depth", "4", "--key", "16");
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /outside a tree of depth 4/);
  r = run("prove");
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /--request/);
});

test("selftest passes without the word FAIL; --help works on every command", () => {
  const r = run("selftest");
  assert.equal(r.code, 0, r.stdout);
  assert.ok(!r.stdout.includes("FAIL"));
  assert.match(r.stdout, /^ok /m);
  for (const cmd of [[], ["fixture"], ["prove"], ["verify"], ["selftest"]]) {
    const h = run(...cmd, "--help");
    assert.equal(h.code, 0);
    assert.match(h.stdout, /Usage: ssgkr/);
  }
});
