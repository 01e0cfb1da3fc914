import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { demoSucceeded, otherRepositoryUrl, verdictMismatches } from "../../src/registry/demo.js";

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
  ["2", "non-membership", "(never used)"],
  ["3", "delete", "0-logger"],
  ["4", "non-membership", "0-logger"],
  ["5", "restore", "0-logger"],
  ["6", "replace", "0.css"],
  ["7", "insert", "ssgkr-demo-inserted"],
];
const CONTROLS: [string, string, string, string][] = [
  ["C1", "membership", "2048", "PUBLIC_INPUTS_MISMATCH"],
  ["C2", "membership", "0-logger", "GKR_"],
  ["C3", "replace", "0.css", "GKR_"],
];

test("ssgkr demo --limit 2000: every honest step ACCEPT, every control REJECT, files verifiable with ssgkr verify, exit 0", () => {
  const dir = join(work, "run");
  const r = run("demo", "--limit", "2000", "--dir", dir);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rows = new Map<string, string>();
  for (const line of r.stdout.split("\n")) {
    const m = /^(C?\d)\s{2,}/.exec(line);
    if (m && /\s(ok|MISMATCH)$/.test(line)) rows.set(m[1]!, line);
  }
  assert.equal(rows.size, HONEST.length + CONTROLS.length, r.stdout);
  for (const [id, op, pkg] of HONEST) {
    const line = rows.get(id)!;
    assert.match(line, new RegExp(`^${id}\\s+${op}\\s+${pkg.replace(/[().]/g, "\\$&")}\\s`));
    assert.match(line, /\s[0-9,]+\s+[0-9.,]+\s+[0-9.,]+\s+R\d(→R\d)?\s+ACCEPT\s+ACCEPT\s+ok$/, line);
  }
  for (const [id, op, pkg, code] of CONTROLS) {
    const line = rows.get(id)!;
    assert.match(line, new RegExp(`^${id}\\s+${op}\\s+${pkg.replace(/[().]/g, "\\$&")}\\s`));
    assert.match(line, new RegExp(`\\sREJECT\\s+REJECT ${code}[A-Z_]*\\s+ok$`), line);
  }
  // The unused slot is the first never-used one; the insert fills it; restore returns to R0.
  assert.match(rows.get("2")!, /\s2000\s/);
  assert.match(rows.get("7")!, /\s2000\s/);
  assert.match(rows.get("5")!, /R1→R0/);
  assert.match(r.stdout, /^PASS: 10\/10 verdicts as expected \(7 ACCEPT, 3 REJECT\)/m);
  assert.match(r.stdout, new RegExp(`^directory\\s+${dir.replace(/[.\\/]/g, "\\$&")}$`, "m"));
  assert.match(r.stdout, /^ {2}R0 {2}(\d+,){7}\d+ {2}after import of 2000 records$/m);
  // Progress goes to stderr only.
  assert.match(r.stderr, /^demo: importing 2000 records/m);
  assert.doesNotMatch(r.stdout, /^demo:/m);

  const step = (name: string) => ({ request: join(dir, "steps", name, "request.json"), proof: join(dir, "steps", name, "proof.bin") });
  for (const name of ["01-membership", "02-nonmembership-never-used", "03-delete", "04-nonmembership-deleted", "05-restore", "06-replace", "07-insert", "c1-membership-other-url", "c2-membership-deleted", "c3-replace-bit-flipped"]) {
    const f = step(name);
    assert.ok(existsSync(f.request) && statSync(f.proof).size > 100_000, name);
  }
  const ok = run("verify", "--request", step("04-nonmembership-deleted").request, "--proof", step("04-nonmembership-deleted").proof);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout.trim(), /^ACCEPT \(roots not pinned: /);
  const bad = run("verify", "--request", step("c1-membership-other-url").request, "--proof", step("c1-membership-other-url").proof);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /^REJECT PUBLIC_INPUTS_MISMATCH/);

  // The registry holds the demo's end state.
  const got = run("registry", "get", "--db", join(dir, "registry"), "--name", "0.css", "--json");
  assert.equal(got.code, 0, got.stderr);
  assert.equal(JSON.parse(got.stdout).value, "https://gitlab.com/ReiiYuki/0.css");

  // The same directory cannot be reused.
  const again = run("demo", "--limit", "2000", "--dir", dir);
  assert.equal(again.code, 2);
  assert.match(again.stderr.trim().split("\n").pop()!, /^error DEMO_DIR_NOT_EMPTY: /);
});

test("ssgkr demo: a verdict that differs from the expected one exits 1 and names the step", () => {
  const r = run("demo", "--depth", "4", "--limit", "12", "--dir", join(work, "fault"), "--fault", "1", "--json");
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as { ok: boolean; steps: { id: string; expected: string; got: string; code: string | null }[] };
  assert.equal(report.ok, false);
  assert.equal(report.steps.length, 10);
  const wrong = report.steps.filter((s) => s.expected !== s.got);
  assert.deepEqual(wrong.map((s) => s.id), ["1"]);
  assert.equal(wrong[0]!.got, "REJECT");
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
    const lines = r.stderr.trim().split("\n").filter((l) => !l.startsWith("demo: "));
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
  assert.equal(otherRepositoryUrl("2048", "https://github.com/winsonwq/2048term"), "https://gitlab.com/winsonwq/2048term");
  assert.equal(otherRepositoryUrl("x", "git+ssh://git@github.com/a/b.git"), "https://gitlab.com/a/b.git");
  assert.equal(otherRepositoryUrl("@s/p", null), "https://gitlab.com/ssgkr-demo/%40s%2Fp");
  assert.equal(otherRepositoryUrl("p", "https://github.com"), "https://gitlab.com/ssgkr-demo/p");
  assert.equal(otherRepositoryUrl("p", "https://gitlab.com/a/b"), "https://codeberg.org/a/b");
  assert.equal(otherRepositoryUrl("p", "https://gitlab.com/ssgkr-demo/p"), "https://codeberg.org/ssgkr-demo/p");
});
