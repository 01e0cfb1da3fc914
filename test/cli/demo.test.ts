import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { demoSucceeded, otherRepositoryUrl, verdictMismatches } from "../../src/demo/registry-demo.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const work = mkdtempSync(join(tmpdir(), "ssgkr-demo-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: work });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const HONEST: [string, string, string][] = [
  ["1", "membership", "2048"],
  ["2", "non-membership", "ssgkr-demo-never-registered"],
  ["3", "delete", "0-logger"],
  ["4", "non-membership", "0-logger"],
  ["5", "restore", "0-logger"],
  ["6", "replace", "0.css"],
  ["7", "insert", "ssgkr-demo-inserted"],
];
const CONTROLS: [string, string, string, string][] = [
  ["C1", "membership", "2048", "VALUE_MISMATCH"],
  ["C2", "membership", "0-logger", "GKR_"],
  ["C3", "non-membership", "0-logger", "RECORD_ABSENT"],
  ["C4", "membership", "0.css", "KEY_MISMATCH"],
  ["C5", "membership", "2048", "ROOT_NOT_TRUSTED"],
  ["C6", "replace", "0.css", "GKR_"],
];

/** Runs a printed `npx ssgkr registry verify …` line with this checkout's bin. */
function rerun(commandLine: string) {
  const words = [...commandLine.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!,
  );
  assert.deepEqual(words.slice(0, 2), ["npx", "ssgkr"]);
  return run(...words.slice(2));
}

/** Runs a printed line as printed, through a shell in the repository (where `npm ci` linked `npx ssgkr`). */
function rerunAsPrinted(commandLine: string) {
  const r = spawnSync("bash", ["-c", commandLine], {
    encoding: "utf8",
    cwd: root,
    env: { ...process.env, npm_config_yes: "false", npm_config_offline: "true" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("ssgkr demo --limit 2000: every honest step ACCEPT, every control REJECT with its code, each printed verify line reruns the check, exit 0", () => {
  const dir = join(work, "run");
  const r = run("demo", "--limit", "2000", "--dir", dir);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rows = new Map<string, string>();
  for (const line of r.stdout.split("\n")) {
    const m = /^(C?\d)\s{2,}/.exec(line);
    if (m && /\s(ok|MISMATCH)$/.test(line)) rows.set(m[1]!, line);
  }
  assert.equal(rows.size, HONEST.length + CONTROLS.length, r.stdout);
  for (const [id, op, name] of HONEST) {
    const line = rows.get(id)!;
    assert.match(line, new RegExp(`^${id}\\s+${op}\\s+${name.replace(/[().]/g, "\\$&")}\\s`));
    assert.match(line, /\s[0-9,]+\s+[0-9.,]+\s+[0-9.,]+\s+R\d(→R\d)?\s+ACCEPT\s+ACCEPT\s+ok$/, line);
  }
  for (const [id, op, name, code] of CONTROLS) {
    const line = rows.get(id)!;
    assert.match(line, new RegExp(`^${id}\\s+${op}\\s+${name.replace(/[().]/g, "\\$&")}\\s`));
    assert.match(line, new RegExp(`\\sREJECT\\s+REJECT ${code}[A-Z_]*\\s+ok$`), line);
  }
  assert.match(rows.get("5")!, /R1→R0/);
  assert.match(r.stdout, /^PASS: 15\/15 verdicts as expected \(8 ACCEPT, 7 REJECT\)/m);
  assert.match(r.stdout, /name-keyed \(record-leaf-v2\): key = first 48 bits of Keccak-256\(name\)/);
  assert.match(r.stdout, /prepared once and derived wiring/);
  assert.match(r.stdout, /^ {2}R0 {2}[0-9a-f]{64} {2}after import of 2000 records$/m);
  assert.match(r.stderr, /^demo: importing 2000 records/m);
  assert.doesNotMatch(r.stdout, /^demo:/m);

  // every step prints its check; rerunning it gives the same verdict
  const commands = [...r.stdout.matchAll(/^ {6}\$ (npx ssgkr registry verify .*)$/gm)].map((m) => m[1]!);
  assert.equal(commands.length, 15);
  assert.match(r.stdout, /^each `\$` line repeats its step's check: run it in the repository after `npm ci`/m);
  assert.match(
    r.stdout,
    new RegExp(`^the files it reads are kept in ${dir.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")} \\(without --keep`, "m"),
  );
  const asPrinted = rerunAsPrinted(commands[0]!);
  assert.equal(asPrinted.code, 0, `${commands[0]}: ${asPrinted.stdout}${asPrinted.stderr}`);
  assert.match(asPrinted.stdout, /^ACCEPT name=/);
  for (const i of [0, 1, 2, 3, 7, 10]) {
    const again = rerun(commands[i]!);
    if (i < 7) {
      assert.equal(again.code, 0, `${commands[i]}: ${again.stdout}${again.stderr}`);
      assert.match(again.stdout, /^ACCEPT name=/);
    } else {
      assert.equal(again.code, 1, again.stderr);
      assert.match(again.stdout, i === 7 ? /^REJECT VALUE_MISMATCH: / : /^REJECT KEY_MISMATCH: /);
    }
  }
  for (const name of [
    "01-membership",
    "02-nonmembership-never-registered",
    "03-delete",
    "04-nonmembership-deleted",
    "05-restore",
    "06-replace",
    "07-insert",
    "c1-other-url",
    "c2-forged-deleted-present",
    "c3-deleted-claimed-present",
    "c4-replayed-other-name",
    "c5-stale-root",
    "c6-replace-bit-flipped",
  ]) {
    const d = join(dir, "steps", name);
    assert.ok(
      existsSync(join(d, "request.json")) &&
        existsSync(join(d, "statement.json")) &&
        statSync(join(d, "proof.bin")).size > 100_000,
      name,
    );
  }
  // the private absence: step 2's statement in v3-zk, checked from the proof and the statement alone
  assert.match(
    r.stdout,
    /^ {6}R0 {2}proof [0-9,]+ bytes, prove [0-9.,]+ ms, verify [0-9.,]+ ms {2}expected ACCEPT, got ACCEPT \(profile v3-zk\) {2}ok$/m,
  );
  assert.match(r.stdout, /expected REJECT, got REJECT PUBLIC_INPUTS_MISMATCH {2}ok$/m);
  assert.match(r.stdout, /hands out 48 siblings \(1,536 bytes in request\.json\)/);
  assert.match(r.stdout, /are occupied \(\d+ of 48\); the v3-zk/);
  const z1 = commands[13]!;
  assert.ok(z1.includes("--name ssgkr-demo-never-registered --absent") && !z1.includes("--request"), z1);
  const z1Again = rerun(z1);
  assert.equal(z1Again.code, 0, z1Again.stdout + z1Again.stderr);
  assert.match(z1Again.stdout, /^ACCEPT name="ssgkr-demo-never-registered" absent root=[0-9a-f]{64} profile=v3-zk\n$/);
  const z2Again = rerun(commands[14]!);
  assert.equal(z2Again.code, 1, z2Again.stderr);
  assert.match(z2Again.stdout, /^REJECT PUBLIC_INPUTS_MISMATCH: /);
  assert.deepEqual(readdirSync(join(dir, "steps", "z1-private-absence")).sort(), ["proof.bin", "statement.json"]);
  const st = JSON.parse(
    readFileSync(join(dir, "steps", "02-nonmembership-never-registered", "statement.json"), "utf8"),
  );
  assert.equal(st.registry_mapping, "record-leaf-v2");
  assert.equal(st.absent, true);

  // the registry holds the demo's end state
  const got = run("registry", "get", "--db", join(dir, "registry"), "--name", "0.css", "--json");
  assert.equal(got.code, 0, got.stderr);
  assert.equal(JSON.parse(got.stdout).value, "https://gitlab.com/ReiiYuki/0.css");

  const again = run("demo", "--limit", "2000", "--dir", dir);
  assert.equal(again.code, 2);
  assert.match(again.stderr.trim().split("\n").pop()!, /^error DEMO_DIR_NOT_EMPTY: /);
});

test("ssgkr demo without --dir removes its temporary directory, with --keep keeps it; a wrong verdict exits 1 and names the step", () => {
  const gone = run("demo", "--depth", "16", "--limit", "40", "--json");
  assert.equal(gone.code, 0, gone.stderr);
  const g = JSON.parse(gone.stdout) as { dir: string; removed: boolean };
  assert.equal(g.removed, true);
  assert.equal(existsSync(g.dir), false);
  const goneText = run("demo", "--depth", "16", "--limit", "40");
  assert.equal(goneText.code, 0, goneText.stderr);
  assert.match(
    goneText.stdout,
    /^the files it reads are kept only with --keep \(or --dir DIR\): this run removed them\.$/m,
  );
  const kept = run("demo", "--depth", "16", "--limit", "40", "--keep", "--json");
  const k = JSON.parse(kept.stdout) as { dir: string; removed: boolean; steps: { verifyCommand: string }[] };
  assert.equal(k.removed, false);
  assert.match(k.steps[0]!.verifyCommand, /^npx ssgkr registry verify /, "the JSON report's lines run as printed too");
  assert.ok(existsSync(join(k.dir, "steps", "01-membership", "proof.bin")));
  rmSync(k.dir, { recursive: true, force: true });

  const r = run("demo", "--depth", "16", "--limit", "40", "--dir", join(work, "fault"), "--fault", "1", "--json");
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as {
    ok: boolean;
    steps: { id: string; expected: string; got: string; code: string | null }[];
  };
  assert.equal(report.ok, false);
  assert.equal(report.steps.length, 13);
  const z = (report as unknown as { privateAbsence: { steps: { id: string; got: string; profile: string | null }[] } })
    .privateAbsence;
  assert.deepEqual(
    z.steps.map((s) => [s.id, s.got, s.profile]),
    [
      ["Z1", "ACCEPT", "v3-zk"],
      ["Z2", "REJECT", null],
    ],
    "the private absence runs at depth 16 too",
  );
  const wrong = report.steps.filter((s) => s.expected !== s.got);
  assert.deepEqual(
    wrong.map((s) => s.id),
    ["1"],
  );
  assert.match(wrong[0]!.code!, /^GKR_|^Non/);
});

test("ssgkr demo: unusable options exit 2 with one line", () => {
  const file = join(work, "a-file");
  writeFileSync(file, "x");
  const cases: [string[], RegExp][] = [
    [["demo", "--limit", "2"], /--limit must be an integer ≥ 3/],
    [["demo", "--source", "pypi"], /unknown --source "pypi"/],
    [["demo", "--dir", file], /^error DEMO_DIR_NOT_EMPTY: /],
    [["demo", "--dir", join(work, "bad-step"), "--fault", "9"], /^error DEMO_BAD_STEP: /],
  ];
  for (const [args, pattern] of cases) {
    const r = run(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith("demo: "));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, pattern);
  }
});

test("verdict comparison: any expected ≠ got fails the demo; no steps is no success", () => {
  const steps = [
    { id: "1", expected: "ACCEPT" as const, got: "ACCEPT" as const },
    { id: "C1", expected: "REJECT" as const, got: "REJECT" as const },
  ];
  assert.equal(demoSucceeded(steps), true);
  assert.deepEqual(verdictMismatches(steps), []);
  assert.equal(demoSucceeded([...steps, { id: "C2", expected: "REJECT", got: "ACCEPT" }]), false);
  assert.deepEqual(verdictMismatches([{ id: "3", expected: "ACCEPT", got: "REJECT" }, ...steps]), ["3"]);
  assert.equal(demoSucceeded([]), false);
});

test("other repository URL: same path on gitlab.com, or a demo path for null or pathless values", () => {
  assert.equal(
    otherRepositoryUrl("2048", "https://github.com/winsonwq/2048term"),
    "https://gitlab.com/winsonwq/2048term",
  );
  assert.equal(otherRepositoryUrl("x", "git+ssh://git@github.com/a/b.git"), "https://gitlab.com/a/b.git");
  assert.equal(otherRepositoryUrl("@s/p", null), "https://gitlab.com/ssgkr-demo/%40s%2Fp");
  assert.equal(otherRepositoryUrl("p", "https://github.com"), "https://gitlab.com/ssgkr-demo/p");
  assert.equal(otherRepositoryUrl("p", "https://gitlab.com/a/b"), "https://codeberg.org/a/b");
  assert.equal(otherRepositoryUrl("p", "https://gitlab.com/ssgkr-demo/p"), "https://codeberg.org/ssgkr-demo/p");
});
