import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BenchOptionError,
  checkOptions,
  choices,
  flag,
  int,
  ints,
  num,
  resolveOptions,
  text,
} from "../../bench/lib/options.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const runner = join(root, "bench", "run.mjs");
const bench = (...args: string[]) =>
  spawnSync(process.execPath, [runner, ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });

const SPEC = {
  depths: ints(1, 64),
  repeats: int(1, 100),
  kinds: choices(["membership", "update"]),
  "min-ms": num(0, 10),
  "no-verify": flag,
  dir: text(),
};
const fails = (argv: string[], message: RegExp) =>
  assert.throws(
    () => checkOptions(SPEC, argv),
    (e: unknown) => e instanceof BenchOptionError && message.test(e.message),
  );

test("bench options: valid forms are accepted and returned by name", () => {
  const m = checkOptions(SPEC, [
    "--depths",
    "24,28",
    "--repeats=3",
    "--no-verify",
    "--kinds",
    "update",
    "--min-ms",
    "0.5",
    "--dir",
    "/tmp/x",
  ]);
  assert.deepEqual(
    [...m],
    [
      ["depths", "24,28"],
      ["repeats", "3"],
      ["no-verify", "true"],
      ["kinds", "update"],
      ["min-ms", "0.5"],
      ["dir", "/tmp/x"],
    ],
  );
  assert.deepEqual([...checkOptions(SPEC, [])], []);
});

test("bench options: unknown options, stray arguments and values outside their rule are one-line errors naming the option", () => {
  fails(["--depth", "24"], /^unknown option '--depth' \(did you mean --depths\?\); known: --depths, /);
  fails(["--frobnicate"], /^unknown option '--frobnicate'; known: /);
  fails(["24"], /^unexpected argument "24"/);
  fails(["--depths", "99"], /^--depths "99": 99 is out of range; must be comma-separated integers in 1\.\.64$/);
  fails(["--depths", "24,x"], /"x" is not an integer/);
  fails(["--repeats", "2.5"], /^--repeats "2\.5": not an integer/);
  fails(["--repeats", "0"], /out of range/);
  fails(["--repeats"], /^--repeats needs a value/);
  fails(["--repeats", "--no-verify"], /^--repeats needs a value/);
  fails(["--kinds", "membership,nope"], /unknown item "nope"/);
  fails(["--min-ms", "abc"], /not a number/);
  fails(["--no-verify=1"], /is a flag and takes no value/);
  fails(["--repeats", "2", "--repeats", "3"], /given twice/);
});

test("bench options: --smoke fills the options the command line leaves out with the smoke values, each checked against its rule", () => {
  const smoke = { depths: "4", repeats: "1", "no-verify": "true" };
  assert.deepEqual([...resolveOptions(SPEC, [], smoke)], []);
  assert.deepEqual(
    [...resolveOptions(SPEC, ["--smoke", "--depths", "8"], smoke)],
    [
      ["smoke", "true"],
      ["depths", "8"],
      ["repeats", "1"],
      ["no-verify", "true"],
    ],
  );
  assert.throws(
    () => resolveOptions(SPEC, ["--smoke"], { depths: "99" }),
    (e: unknown) => e instanceof BenchOptionError && /--depths "99": 99 is out of range/.test(e.message),
  );
  assert.throws(
    () => resolveOptions(SPEC, ["--smoke"], { nope: "1" }),
    (e: unknown) => e instanceof BenchOptionError && /unknown option '--nope'/.test(e.message),
  );
  assert.throws(
    () => resolveOptions(SPEC, ["--smoke=1"]),
    (e: unknown) => e instanceof BenchOptionError && /is a flag/.test(e.message),
  );
});

test("npm run bench -- list prints the benchmarks only, one a line", () => {
  const r = bench("list");
  assert.equal(r.status, 0, r.stderr);
  const names = r.stdout.trim().split("\n");
  assert.ok(names.includes("prove") && names.includes("verify"), r.stdout);
  assert.ok(!names.includes("report"), "the HTML report is not a benchmark");
  for (const n of names) assert.match(n, /^[a-z0-9-]+$/);
});

test("every benchmark rejects an unknown option and an out-of-range value before any work, with one line and exit 2", () => {
  const names = bench("list").stdout.trim().split("\n");
  for (const n of names) {
    const r = bench(n, "--no-such-option");
    assert.equal(r.status, 2, `${n}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "", `${n} printed nothing on stdout`);
    assert.match(r.stderr, new RegExp(`^bench ${n}: unknown option '--no-such-option'; known: [^\\n]*\\n$`), n);
  }
  const depths = bench("verify", "--depths", "99");
  assert.equal(depths.status, 2);
  assert.equal(
    depths.stderr,
    'bench verify: --depths "99": 99 is out of range; must be comma-separated integers in 1..64\n',
  );
  const unknown = bench("nope");
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^bench: unknown benchmark "nope"; known: /);
});
