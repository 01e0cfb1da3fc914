import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const examples = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples");

function runExample(name: string): { code: number | null; lines: string[]; stderr: string } {
  const path = join(examples, name);
  assert.ok(existsSync(path), `${path} is missing (build with tsc first)`);
  const r = spawnSync(process.execPath, [path], { encoding: "utf8", cwd: tmpdir() });
  return { code: r.status, lines: r.stdout.trimEnd().split("\n"), stderr: r.stderr };
}

test("every compiled example is covered by a test below", () => {
  const compiled = readdirSync(examples)
    .filter((f) => f.endsWith(".js"))
    .sort();
  assert.deepEqual(compiled, ["quickstart.js", "registry-proof.js"]);
});

test("examples/quickstart: golden fixture proof identical to the reference engine's, accepted; another root rejected", () => {
  const r = runExample("quickstart.js");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, [
    "proof: 176948 bytes, sha256 35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587",
    "reference engine's golden proof: identical",
    "verify: ACCEPT",
    "verify against another root: REJECT PUBLIC_INPUTS_MISMATCH",
  ]);
});

test("examples/registry-proof: inserted record's membership proof is accepted", () => {
  const r = runExample("registry-proof.js");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.lines.length, 2, r.lines.join("\n"));
  assert.match(r.lines[0]!, /^membership of "left-pad" at slot 0, root [0-9a-f]{64}$/);
  assert.equal(r.lines[1], "proof: 176948 bytes; verify: ACCEPT");
});
