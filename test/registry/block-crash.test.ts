/**
 * `registry prove-block` killed at each of its steps (src/registry/block-dir.ts): the next command
 * that opens the registry — the read-only `registry root` — settles the pending block by the
 * registry's head: an uncommitted block's hidden folder is removed (even when its files are
 * complete and verify), a committed one is renamed to DIR, the record is removed, and the
 * registry checks. A pending block whose writer still runs is left alone. A profile v3 block's
 * copy kept in the registry (GET /v1/blocks) exists exactly when its batch committed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { NameStore } from "../../src/registry/store/name-store.js";
import { tempDir } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";

const child = join(dirname(fileURLToPath(import.meta.url)), "support", "block-child.js");

const run = runCli;

const UPDATES = [
  { op: "insert", name: "crash-new-package", value: "https://github.com/example/new" },
  { op: "replace", name: "1", value: "https://gitlab.com/x/one" },
];

/** Runs the child until it kills itself (or prints `held STEP` with `hold`, resolving with the live child). */
function runChild(
  db: string,
  updates: string,
  out: string,
  step: string,
  mode: "kill" | "hold",
  profile: "v2" | "v3" = "v2",
): Promise<{ signal: NodeJS.Signals | null; kill?: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, db, updates, out, step, mode, profile], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    let exited: Promise<void> = new Promise((r) => proc.once("exit", () => r()));
    const timer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
    proc.stderr.on("data", (c: Buffer) => (err += c.toString()));
    proc.stdout.on("data", (c: Buffer) => {
      if (mode === "hold" && c.toString().includes(`held ${step}`))
        resolve({
          signal: null,
          kill: async () => {
            proc.kill("SIGKILL");
            await exited;
            clearTimeout(timer);
          },
        });
    });
    proc.on("error", reject);
    proc.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (signal === null && code !== 0) reject(new Error(`block child exited with ${code}: ${err}`));
      else resolve({ signal });
    });
    exited = exited.then(() => undefined);
  });
}

const hidden = (base: string) => readdirSync(base).filter((e) => e.startsWith(".out.block-"));
const pendingRows = (db: string) => {
  const s = NameStore.open(db, { readOnly: true });
  try {
    return s.pendingBlocks();
  } finally {
    s.closeSync();
  }
};

/** A name-keyed registry (depth 12) and a copy of it for each case, with the updates file. */
async function fixture(): Promise<{
  fresh: (name: string) => { base: string; db: string; out: string };
  updates: string;
  rootA: string;
}> {
  const base = tempDir();
  const db = join(base, "db");
  const imp = await run(
    "registry",
    "import",
    "--db",
    db,
    "--source",
    "npm-repos",
    "--limit",
    "20",
    "--threads",
    "0",
    "--depth",
    "12",
  );
  assert.equal(imp.code, 0, imp.err);
  const updates = join(base, "u.ndjson");
  writeFileSync(updates, UPDATES.map((u) => JSON.stringify(u)).join("\n") + "\n");
  const rootA = JSON.parse((await run("registry", "root", "--db", db, "--json")).out).root as string;
  const fresh = (name: string) => {
    const caseBase = join(base, name);
    cpSync(db, join(caseBase, "db"), { recursive: true });
    return { base: caseBase, db: join(caseBase, "db"), out: join(caseBase, "out") };
  };
  return { fresh, updates, rootA };
}

const STEPS = [
  { step: "recorded", committed: false },
  { step: "writing", committed: false },
  { step: "written", committed: false },
  { step: "committed", committed: true },
  { step: "renamed", committed: true },
  { step: "cleared", committed: true },
] as const;

test("prove-block SIGKILLed after each step: the next `registry root` removes an uncommitted block, renames a committed one, clears the record; the registry checks", {
  timeout: 600_000,
}, async () => {
  const { fresh, updates, rootA } = await fixture();
  for (const { step, committed } of STEPS) {
    const c = fresh(step);
    const r = await runChild(c.db, updates, c.out, step, "kill");
    assert.equal(r.signal, "SIGKILL", `${step}: the child was killed`);
    if (step === "written") {
      // the case a file check cannot tell apart: a complete block that verifies, never committed
      const h = join(c.base, hidden(c.base)[0]!);
      assert.deepEqual(readdirSync(h).sort(), ["block.bin", "block.json", "requests.json"]);
      const toRoot = JSON.parse((await import("node:fs")).readFileSync(join(h, "block.json"), "utf8"))
        .to_root as string;
      const v = await run("registry", "verify-block", "--from-root", rootA, "--to-root", toRoot, "--dir", h);
      assert.equal(v.code, 0, `${step}: the uncommitted block's files verify: ${v.out}${v.err}`);
    }
    const root = await run("registry", "root", "--db", c.db, "--json");
    assert.equal(root.code, 0, root.err);
    const head = JSON.parse(root.out) as { root: string; batch: number };
    assert.deepEqual(hidden(c.base), [], `${step}: no hidden block folder stays`);
    assert.deepEqual(pendingRows(c.db), [], `${step}: the pending record is removed`);
    if (committed) {
      assert.notDeepEqual(head.root, rootA, `${step}: the block was committed`);
      assert.deepEqual(
        readdirSync(c.out).sort(),
        ["block.bin", "block.json", "requests.json"],
        `${step}: DIR holds the committed block`,
      );
      const v = await run("registry", "verify-block", "--from-root", rootA, "--to-root", head.root, "--dir", c.out);
      assert.equal(v.code, 0, `${step}: ${v.out}${v.err}`);
    } else {
      assert.deepEqual(head.root, rootA, `${step}: nothing was committed`);
      assert.equal(existsSync(c.out), false, `${step}: no DIR`);
    }
    const check = await run("registry", "check", "--db", c.db);
    assert.equal(check.code, 0, `${step}: ${check.out}${check.err}`);
    // the settled registry takes the same block again (uncommitted) or the next one
    if (!committed) {
      const again = await run("registry", "prove-block", "--db", c.db, "--updates", updates, "--out", c.out);
      assert.equal(again.code, 0, again.err);
    }
  }
});

test("a pending block whose writer runs is left alone; once the writer is killed the next open removes it", {
  timeout: 300_000,
}, async () => {
  const { fresh, rootA, updates } = await fixture();
  const c = fresh("held");
  const held = await runChild(c.db, updates, c.out, "written", "hold");
  try {
    const root = await run("registry", "root", "--db", c.db, "--json");
    assert.equal(root.code, 0, root.err);
    assert.deepEqual(JSON.parse(root.out).root, rootA);
    assert.equal(hidden(c.base).length, 1, "the live writer's folder is untouched");
    assert.equal(pendingRows(c.db).length, 1, "the live writer's record stays");
  } finally {
    await held.kill!();
  }
  const root = await run("registry", "root", "--db", c.db, "--json");
  assert.equal(root.code, 0, root.err);
  assert.deepEqual(JSON.parse(root.out).root, rootA);
  assert.deepEqual(hidden(c.base), []);
  assert.deepEqual(pendingRows(c.db), []);
  assert.equal(existsSync(c.out), false);
});

test("a v3 prove-block SIGKILLed before its commit leaves no kept block proof; after it, the kept proof is DIR's files", {
  timeout: 300_000,
}, async () => {
  const { fresh, updates, rootA } = await fixture();
  for (const { step, committed } of [
    { step: "written", committed: false },
    { step: "committed", committed: true },
  ] as const) {
    const c = fresh(`v3-${step}`);
    const r = await runChild(c.db, updates, c.out, step, "kill", "v3");
    assert.equal(r.signal, "SIGKILL", `${step}: the child was killed`);
    const root = await run("registry", "root", "--db", c.db, "--json");
    assert.equal(root.code, 0, root.err);
    const head = JSON.parse(root.out) as { root: string; batch: number };
    const s = NameStore.open(c.db, { readOnly: true });
    try {
      const kept = s.blockProofs();
      if (!committed) {
        assert.deepEqual(head.root, rootA, `${step}: nothing was committed`);
        assert.deepEqual(kept, [], `${step}: no block proof is kept for a batch that did not commit`);
      } else {
        assert.deepEqual(
          kept.map((b) => [b.batch, b.from_root, b.to_root]),
          [[head.batch, rootA, head.root]],
        );
        const b = s.blockProof(head.batch)!;
        const { readFileSync } = await import("node:fs");
        assert.deepEqual(
          b.proof,
          new Uint8Array(readFileSync(join(c.out, "block.bin"))),
          "the kept proof is DIR's block.bin",
        );
        assert.equal(b.blockJson, readFileSync(join(c.out, "block.json"), "utf8"));
      }
    } finally {
      s.closeSync();
    }
  }
});
