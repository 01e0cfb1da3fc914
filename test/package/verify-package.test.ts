/**
 * The light verifier install: the workspace package packages/verify (`statesync-gkr-verify`),
 * packed by `npm pack --workspace` and installed from its tarball into a fresh project, counts at
 * most 5 packages with itself (`npm ls --all --omit=dev`) and at most 5,120 KiB in node_modules
 * (`du -sk`), pulls none of the server stack, is publint- and arethetypeswrong-clean, and its
 * checks run from the install: the WASM kernels load, a signed checkpoint and a profile v3 block
 * are accepted, an altered checkpoint is rejected.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./consumer.js";
import { signCheckpoint, signingKeyOfSeed } from "../../src/registry/checkpoint/signing-key.js";
import { makeV3Block, V3_TEST_UPDATES } from "../web/support.js";

const MAX_PACKAGES = 5;
const MAX_KIB = 5120;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(cmd: string, args: readonly string[], cwd: string, timeout = 240_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
}

test(`statesync-gkr-verify installs from its tarball as ≤ ${MAX_PACKAGES} packages and ≤ ${MAX_KIB} KiB, lint-clean, and verifies a checkpoint and a v3 block`, {
  timeout: 600_000,
}, async () => {
  const work = mkdtempSync(join(tmpdir(), "ssgkr-verify-pkg-"));
  try {
    const packed = run(npm, ["pack", "--workspace", "packages/verify", "--json", "--pack-destination", work], repoRoot);
    assert.equal(packed.status, 0, `npm pack --workspace packages/verify: ${packed.stderr}`);
    const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; files: { path: string }[] }[];
    const paths = info!.files.map((f) => f.path);
    for (const must of ["package.json", "README.md", "dist/browser.js", "dist/browser.d.ts", "dist/kernels.wasm"])
      assert.ok(paths.includes(must), `the tarball holds ${must}`);
    assert.deepEqual(
      paths.filter((p) => !/^(package\.json|README\.md|dist\/.*\.(js|d\.ts|wasm))$/.test(p)),
      [],
      "only the manifest, the README and dist",
    );
    const tarball = join(work, info!.filename);

    const lint = run(join(repoRoot, "node_modules", ".bin", "publint"), ["run", tarball, "--strict"], work);
    assert.equal(lint.status, 0, `publint:\n${lint.stdout}\n${lint.stderr}`);
    const attw = run(join(repoRoot, "node_modules", ".bin", "attw"), [tarball, "--profile", "esm-only"], work);
    assert.equal(attw.status, 0, `attw:\n${attw.stdout}\n${attw.stderr}`);

    const project = join(work, "project");
    run("mkdir", ["-p", project], work);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "verifier", private: true, type: "module" }));
    const installed = run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], project);
    assert.equal(installed.status, 0, `npm install <tarball>: ${installed.stdout}\n${installed.stderr}`);
    assert.doesNotMatch(installed.stdout + installed.stderr, /install-scripts/, "no install script anywhere");

    // the bundle names only its own kernels.wasm (no path out of the package for bundlers to warn about)
    const bundle = readFileSync(join(project, "node_modules", "statesync-gkr-verify", "dist", "browser.js"), "utf8");
    assert.doesNotMatch(bundle, /\.\.\/wasm\/kernels\.wasm/);
    assert.match(bundle, /new URL\("\.\/kernels\.wasm", import\.meta\.url\)/);

    const ls = run(npm, ["ls", "--all", "--omit=dev", "--parseable"], project);
    assert.equal(ls.status, 0, ls.stderr);
    const packages = ls.stdout
      .trim()
      .split("\n")
      .filter((p) => p !== project);
    assert.ok(packages.length <= MAX_PACKAGES, `${packages.length} packages: ${packages.join(", ")}`);
    for (const heavy of ["lmdb", "fastify", "nats", "chart.js", "zod"])
      assert.ok(!existsSync(join(project, "node_modules", heavy)), `no ${heavy}`);
    const du = run("du", ["-sk", join(project, "node_modules")], project);
    const kib = Number(du.stdout.split(/\s/)[0]);
    assert.ok(kib > 0 && kib <= MAX_KIB, `node_modules is ${kib} KiB (at most ${MAX_KIB})`);

    // The checks, run from the install.
    const key = signingKeyOfSeed("example.com/registry", new Uint8Array(32).fill(5));
    const block = await makeV3Block(work, { depth: 16, records: 40, updates: V3_TEST_UPDATES });
    const checkpoint = signCheckpoint(key, { size: 7, root: block.toRoot });
    writeFileSync(
      join(project, "fixtures.json"),
      JSON.stringify({
        verifierKey: key.verifierKey,
        checkpoint,
        blockJson: block.blockJson,
        proof: Buffer.from(block.proof).toString("base64"),
        fromRoot: block.fromRoot,
        toRoot: block.toRoot,
      }),
    );
    writeFileSync(
      join(project, "check.mjs"),
      `import { readFileSync } from "node:fs";
import { loadKernels, verifyCheckpoint, parseVerifierKey, verifyRegistryBlock, parseRoot, formatRoot } from "statesync-gkr-verify";
const f = JSON.parse(readFileSync("fixtures.json", "utf8"));
const backend = await loadKernels();
const key = parseVerifierKey(f.verifierKey);
const cp = verifyCheckpoint(f.checkpoint, key);
const altered = verifyCheckpoint(f.checkpoint.replace("\\n7\\n", "\\n8\\n"), key);
const block = verifyRegistryBlock(
  { fromRoot: parseRoot(f.fromRoot), toRoot: cp.root },
  { blockJson: f.blockJson, proof: new Uint8Array(Buffer.from(f.proof, "base64")) },
);
console.log(backend, cp.ok ? "ACCEPT " + cp.size + " " + formatRoot(cp.root) : cp.code, altered.ok ? "ACCEPT" : altered.code, block.ok ? "ACCEPT" : block.code);
`,
    );
    const r = run(process.execPath, ["check.mjs"], project);
    assert.equal(r.status, 0, `check.mjs:\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.stdout.trim(), `wasm ACCEPT 7 ${block.toRoot} CHECKPOINT_BAD_SIGNATURE ACCEPT`);
    console.log(`statesync-gkr-verify: tarball ${info!.size} B, ${packages.length} packages, node_modules ${kib} KiB`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
