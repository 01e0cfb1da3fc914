/**
 * README.md as a front page: at most 10 KB, the two set-up commands first (the test command being
 * the one .ci/run runs), an example per role, and links that lead to files that exist. The
 * measurements live in docs/benchmarks.md and the generated Layout section in docs/layout.md.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

test("README.md is at most 10 KB and opens with the two commands: the main job and the tests CI runs", () => {
  assert.ok(Buffer.byteLength(readme) <= 10_000, `README.md has ${Buffer.byteLength(readme)} bytes`);
  const first = /```sh\n([^`]*)```/.exec(readme)?.[1] ?? "";
  const commands = first
    .trim()
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, ""));
  assert.deepEqual(commands, ["npm ci && npm run demo", "npm ci && npm test"]);
  assert.ok(readme.indexOf("```sh") < readme.indexOf("## "), "the commands come before the first section");
  assert.match(
    readFileSync(join(root, ".ci", "run"), "utf8"),
    /npm ci && npm test'/,
    ".ci/run runs the README's test command",
  );
});

test("README.md has an example per role and no measurement tables (they are in docs/benchmarks.md)", () => {
  for (const role of ["**Counterparty**", "**Auditor**", "**Operator**", "**Web page**"])
    assert.ok(readme.includes(role), `README.md has the ${role} example`);
  assert.doesNotMatch(readme, /^\| *Figure/im);
  assert.doesNotMatch(readme, /<!-- layout:begin -->/, "the Layout section is in docs/layout.md");
  assert.match(readFileSync(join(root, "docs", "benchmarks.md"), "utf8"), /^## Headline figures$/m);
});

test("every relative link of README.md and of the new docs pages leads to a file that exists", () => {
  for (const file of ["README.md", "docs/cli.md", "docs/layout.md", "docs/examples.md"]) {
    const text = readFileSync(join(root, file), "utf8");
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      assert.ok(existsSync(join(root, dirname(file), target)), `${file} links to ${target}, which does not exist`);
    }
  }
});
