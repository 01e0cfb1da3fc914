import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumerProject, outputMatches, repoRoot, runnableBlocks } from "./consumer.js";

// The package is about 1.96 MB packed: the 100k-record demo data set (0.96 MB), the built verifier page (0.69 MB unpacked), the kernels (0.30 MB unpacked), dist/ of src (profiles v2 and v3, the polynomial commitment and its worker pool, the registry, HTTP and CLI). The bound catches what must not ship (tests, sources, benches: megabytes).
const MAX_PACKED_BYTES = 2.1e6;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(cmd: string, args: readonly string[], cwd: string, timeout = 240_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
}

interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

test("npm pack ships the runtime only (dist of src, the built verifier page, wasm, bin, the offline dataset), ≤ 2.1 MB; the tarball installs without a build step; selftest and the README examples run from it", {
  timeout: 600_000,
}, () => {
  const work = mkdtempSync(join(tmpdir(), "ssgkr-pack-"));
  try {
    const stamp = join(repoRoot, "dist", ".build-stamp");
    const builtAt = statSync(stamp).mtimeMs;
    const packed = run(npm, ["pack", "--json", "--pack-destination", work], repoRoot);
    assert.equal(packed.status, 0, `npm pack: ${packed.stderr}`);
    assert.equal(statSync(stamp).mtimeMs, builtAt, "npm pack (prepare) compiled nothing: dist/ was current");
    assert.doesNotMatch(packed.stderr, /compiling/);
    const [info] = JSON.parse(packed.stdout) as PackResult[];
    assert.ok(info, "npm pack --json printed its result");
    const paths = info.files.map((f) => f.path);
    assert.ok(info.size <= MAX_PACKED_BYTES, `packed ${info.size} bytes > ${MAX_PACKED_BYTES}`);
    for (const required of [
      "package.json",
      "README.md",
      "bin/ssgkr.js",
      "wasm/kernels.wasm",
      "data/npm-repos-100k.ndjson.gz",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/engine.js",
      "dist/src/registry/index.js",
      "dist/src/serve/index.js",
      "dist/src/v2.js",
      "dist/src/v3.js",
      "dist/src/pcs.js",
      "dist/src/pcs/index.js",
      "dist/src/sync/parallel/worker.js",
      "dist/web/index.html",
      "dist/web/page.js",
    ]) {
      assert.ok(paths.includes(required), `the tarball holds ${required}`);
    }
    const unwanted = paths.filter((p) =>
      /^(src|test|bench|examples|scripts|docs|\.ci)\/|^dist\/(test|bench|examples)\/|\.map$|\.tsbuildinfo$|^dist\/\.build-stamp$/.test(
        p,
      ),
    );
    assert.deepEqual(unwanted, [], "no sources, tests, benchmarks, scripts, source maps or CI files");
    const tarball = join(work, info.filename);
    assert.equal(statSync(tarball).size, info.size);

    // A consumer installs the tarball (dependencies from npm's cache when it has them).
    const consumer = consumerProject("ssgkr-consumer-", false);
    try {
      const installed = run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], consumer);
      assert.equal(installed.status, 0, `npm install <tarball>: ${installed.stdout}\n${installed.stderr}`);
      const pkg = join(consumer, "node_modules", "statesync-gkr");
      assert.ok(
        existsSync(join(pkg, "dist", "src", "index.js")) && !existsSync(join(pkg, "dist", "test")),
        "installed as packed",
      );
      assert.ok(
        !existsSync(join(pkg, "dist", ".build-stamp")) && !existsSync(join(pkg, "node_modules", "typescript")),
        "nothing was built at install",
      );

      const selftest = run("npx", ["--no", "ssgkr", "selftest"], consumer);
      assert.equal(selftest.status, 0, `npx ssgkr selftest:\n${selftest.stdout}\n${selftest.stderr}`);
      const lines = selftest.stdout.trim().split("\n");
      const checks = lines.filter((l) => /^(ok|FAIL) /.test(l));
      assert.ok(checks.length >= 10 && checks.every((l) => l.startsWith("ok ")), selftest.stdout);
      assert.match(lines.at(-1)!, /^selftest: all \d+ checks passed$/);

      // The README's runnable examples, transpiled (types are checked by test/package/docs.test), in document order.
      const ts = createRequire(join(repoRoot, "package.json"))("typescript") as typeof import("typescript");
      const blocks = runnableBlocks("README.md", readFileSync(join(repoRoot, "README.md"), "utf8"));
      assert.ok(blocks.length >= 3, "README.md has runnable examples");
      blocks.forEach((b, i) => {
        const js = ts.transpileModule(b.code, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        const file = join(consumer, `readme-${i}.mjs`);
        writeFileSync(file, js);
        const r = run(process.execPath, [file], consumer);
        assert.equal(r.status, 0, `README.md:${b.line} from the tarball:\n${r.stdout}\n${r.stderr}`);
        if (b.output !== undefined)
          assert.ok(outputMatches(r.stdout, b.output), `README.md:${b.line} printed:\n${r.stdout}`);
      });
    } finally {
      rmSync(consumer, { recursive: true, force: true });
    }

    // Installing the checkout itself (a link; npm runs its prepare with the output hidden) compiles nothing either.
    const linked = consumerProject("ssgkr-link-", false);
    try {
      const r = run(
        npm,
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts", repoRoot],
        linked,
      );
      assert.equal(r.status, 0, `npm install <checkout>: ${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stdout + r.stderr, /compiling/);
      assert.equal(statSync(stamp).mtimeMs, builtAt, "npm install <checkout> compiled nothing");
      const ok = run(
        process.execPath,
        ["--input-type=module", "-e", 'import { opKindTag } from "statesync-gkr"; console.log(opKindTag("update"));'],
        linked,
      );
      assert.equal(ok.stdout.trim(), "2", ok.stderr);
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
