/**
 * Where the CLI's help and the documentation quote each other, they agree: the `registry http`
 * options (docs/http.md's synopsis and table), `registry upgrade`'s formats (docs/registry.md),
 * the profiles `ssgkr --help` names, the error lines docs/cli.md shows (run as written), and the
 * browser test count docs/http.md gives.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const doc = (path: string) => readFileSync(join(root, path), "utf8");

function ssgkr(args: string[], cwd = root) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    cwd,
    env: { ...process.env, COLUMNS: "200" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The long options a help text lists (its Options section), without --help. */
function helpOptions(help: string): string[] {
  const options = help.slice(help.indexOf("Options:"));
  return [...options.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).filter((o) => o !== "--help");
}

test("`ssgkr registry http --help` and docs/http.md's synopsis and option table list the same options", () => {
  const help = ssgkr(["registry", "http", "--help"]);
  assert.equal(help.code, 0, help.stderr);
  const fromHelp = helpOptions(help.stdout).sort();
  const http = doc("docs/http.md");
  const synopsis = /```\n(ssgkr registry http [^`]*)```/.exec(http)?.[1];
  assert.ok(synopsis, "docs/http.md has the synopsis block");
  const fromSynopsis = [...new Set([...synopsis.matchAll(/(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!))].sort();
  const table = http.slice(http.indexOf("| option | default | meaning |"), http.indexOf("## Roots"));
  const fromTable = [...table.matchAll(/^\| `(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).sort();
  assert.deepEqual(fromSynopsis, fromHelp, "synopsis vs --help");
  assert.deepEqual(fromTable, fromHelp, "option table vs --help");
});

test("`ssgkr registry upgrade --help` names the formats docs/registry.md's upgrade converts (slot 1 → 2, name-keyed 2 or 3 → 4)", () => {
  const help = ssgkr(["registry", "upgrade", "--help"]).stdout.replace(/\s+/g, " ");
  const slot = /slot-v1: format (\d+) → (\d+)/.exec(help);
  const named = /name-keyed: format (\d+) or (\d+) → (\d+)/.exec(help);
  assert.ok(slot && named, help);
  const registry = doc("docs/registry.md").replace(/\s+/g, " ");
  const docSlot = /`upgrade` converts a slot registry of format (\d+) \(.*?\) to format (\d+)/.exec(registry);
  const docNamed = /converts a name-keyed registry of format (\d+) or (\d+) to format (\d+)/.exec(registry);
  assert.ok(docSlot && docNamed, "docs/registry.md describes upgrade");
  assert.deepEqual(slot.slice(1), docSlot.slice(1));
  assert.deepEqual(named.slice(1), docNamed.slice(1));
  const group = ssgkr(["registry", "--help"]).stdout.replace(/\s+/g, " ");
  assert.match(group, /name-keyed: format 2 or 3 → 4/, "`ssgkr registry --help` shows the same description");
  assert.doesNotMatch(group, /format 2 → 3/);
});

test("`ssgkr --help` names every proof profile of `ssgkr --version` and the docs, not compat-v1 only", () => {
  const help = ssgkr(["--help"]).stdout.replace(/\s+/g, " ");
  const version = ssgkr(["--version"]).stdout;
  const profiles = /profiles ([^;]+);/.exec(version)?.[1]?.split(/, /) ?? [];
  assert.deepEqual(profiles, ["compat-v1", "v2", "v3"], version);
  for (const p of [...profiles, "v3-zk"]) assert.match(help, new RegExp(`\\b${p}\\b`), `--help names ${p}`);
  assert.doesNotMatch(help, /\(compat-v1\)/);
});

test("the error lines docs/cli.md shows are what the commands it shows print", () => {
  const cli = doc("docs/cli.md");
  const block = /```\n((?:\$ ssgkr .*\n(?:error .*\n)?)+)```/.exec(cli)?.[1];
  assert.ok(block, "docs/cli.md has a block of `$ ssgkr …` lines with their error lines");
  const pairs = [...block.matchAll(/^\$ (ssgkr .*)\n(error .*)$/gm)];
  assert.ok(pairs.length >= 3, block);
  const work = mkdtempSync(join(tmpdir(), "ssgkr-help-docs-"));
  try {
    for (const [, command, expected] of pairs) {
      const args = command!.split(" ").slice(1);
      const r = ssgkr(args, work);
      assert.equal(r.code, 2, `${command}: ${r.stderr}`);
      assert.equal(r.stderr.trimEnd(), expected, command);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("docs/http.md gives the browser suite's test count as test/web/browser.test.ts holds it", () => {
  const tests = doc("test/web/browser.test.ts").match(/^test\(/gm)?.length ?? 0;
  const said = /`npm run test:browser` \((\d+) tests/.exec(doc("docs/http.md"))?.[1];
  assert.equal(Number(said), tests);
});
