/**
 * The test runner's own parts: the progress reporter of `npm test` (node's output plus a running
 * count after each file, node's summary lines last, as CI reads them) and the file rule of
 * `npm run test:quick`.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const reporter = join(root, "scripts", "test-progress.mjs");
const work = mkdtempSync(join(tmpdir(), "ssgkr-test-runner-"));
after(() => rmSync(work, { recursive: true, force: true }));

const PASS = `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("a", () => assert.equal(1, 1));\ntest("b", () => assert.equal(2, 2));\n`;
const FAIL = `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("c", () => assert.equal(1, 2));\n`;

/** The environment of a run of its own: without NODE_TEST_CONTEXT, which would make it report to this run. */
function ownRunEnv(mode: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SSGKR_TEST_REPORTER: mode };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

function runSuite(mode: "tap" | "spec") {
  const dir = join(work, mode);
  mkdirSync(join(dir, "sub"), { recursive: true });
  writeFileSync(join(dir, "one.test.mjs"), PASS);
  writeFileSync(join(dir, "sub", "two.test.mjs"), FAIL);
  writeFileSync(join(dir, "three.test.mjs"), PASS);
  const r = spawnSync(
    process.execPath,
    [
      "--test",
      "--test-concurrency=1",
      `--test-reporter=${reporter}`,
      "--test-reporter-destination=stdout",
      "one.test.mjs",
      "sub/two.test.mjs",
      "three.test.mjs",
    ],
    { cwd: dir, encoding: "utf8", env: ownRunEnv(mode) },
  );
  return { code: r.status, lines: r.stdout.split("\n") };
}

test("npm test's reporter: TAP as node writes it, a progress line after each file, node's summary last", () => {
  const { code, lines } = runSuite("tap");
  assert.equal(code, 1, "a failing test fails the run");
  const progress = lines.filter((l) => l.startsWith("# progress: "));
  assert.equal(progress.length, 3, lines.join("\n"));
  assert.match(progress[0]!, /^# progress: 1\/3 files done, no failures so far \(\d+ s\)$/);
  assert.match(progress[2]!, /^# progress: 3\/3 files done, 1 failed test in 1 file so far \(\d+ s\)$/);
  assert.ok(lines.includes("not ok 3 - c"), "node's TAP lines are kept");
  const summary = lines.slice(lines.lastIndexOf(progress[2]!) + 1);
  assert.ok(summary.includes("# pass 4") && summary.includes("# fail 1"), summary.join("\n"));
  assert.ok(lines.indexOf("# pass 4") > lines.indexOf(progress[2]!), "the summary comes after the last progress line");
  const recap = lines.indexOf("# failed tests (1):");
  assert.ok(recap > lines.indexOf("# fail 1"), `the recap follows node's summary:\n${lines.join("\n")}`);
  assert.match(lines[recap + 1]!, /^# {3}\S*sub\/two\.test\.mjs:3 c: /, "the failed test's file, line, name and error");
  assert.match(lines[recap + 1]!, /Expected values to be strictly equal/);
  assert.deepEqual(
    lines.slice(recap + 2).filter((l) => l !== ""),
    [],
    "the recap is last",
  );
});

test("a run without failures has no recap", () => {
  const dir = join(work, "clean");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "one.test.mjs"), PASS);
  const r = spawnSync(
    process.execPath,
    ["--test", `--test-reporter=${reporter}`, "--test-reporter-destination=stdout", "one.test.mjs"],
    { cwd: dir, encoding: "utf8", env: ownRunEnv("tap") },
  );
  assert.equal(r.status, 0, r.stdout);
  assert.ok(r.stdout.includes("# pass 2"), r.stdout);
  assert.ok(!r.stdout.includes("failed tests"), r.stdout);
});

test("on a terminal (spec) the progress lines come between node's own lines, the summary still last", () => {
  const { code, lines } = runSuite("spec");
  assert.equal(code, 1);
  const progress = lines.filter((l) => l.startsWith("\u2139 progress: "));
  assert.equal(progress.length, 3, lines.join("\n"));
  const last = lines.indexOf(progress[2]!);
  assert.ok(lines.indexOf("\u2139 pass 4") > last && lines.indexOf("\u2139 fail 1") > last, lines.join("\n"));
  const recap = lines.indexOf("\u2716 failed tests (1):");
  assert.ok(recap > lines.indexOf("\u2139 fail 1"), lines.join("\n"));
  assert.match(lines[recap + 1]!, /sub\/two\.test\.mjs:3 c: /);
});

test("npm run test:quick's rule: unit and known-answer files, no end-to-end folder, no crash or process suite", () => {
  const r = spawnSync(process.execPath, [join(root, "scripts", "test-quick.mjs"), "--list"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  const files = r.stdout.trim().split("\n");
  assert.ok(files.length > 50, `${files.length} files`);
  for (const f of files) {
    assert.match(f, /^dist\/test\/.*\.test\.js$/);
    assert.doesNotMatch(f, /^dist\/test\/(http|serve|cli|web|package|examples|bench)\//, f);
    assert.doesNotMatch(f, /crash|-cli\.|consistency-parts|hiding-uniformity/, f);
  }
  for (const known of ["dist/test/sync/golden.test.js", "dist/test/field/koalabear.test.js"])
    assert.ok(files.includes(known), `${known} is quick`);
  assert.match(r.stderr, /^test:quick: \d+ files \(\d+ left to npm test\)$/m);
});
