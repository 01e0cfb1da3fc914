import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumerProject, outputMatches, repoRoot, runnableBlocks } from "./consumer.js";

// The package is about 2.2 MB packed (2.20 MB on 2026-12-06): the 100k-record demo data set (0.96 MB), the built verifier page (0.30 MB unpacked), the kernels (0.45 MB unpacked, twice: wasm/ for Node and the server, dist/src/ beside the browser entry), dist/ of src (profiles v2 and v3, the polynomial commitment and its worker pool, the registry, HTTP and CLI). The bound catches what must not ship (tests, sources, benches: megabytes).
const MAX_PACKED_BYTES = 2.4e6;
/** The tarball's file list, pinned (`UPDATE_TARBALL_SNAPSHOT=1` rewrites it). */
const FILES_SNAPSHOT = join(repoRoot, "test", "package", "tarball-files.json");
/** Scripts npm would run when the package is installed: the published manifest has none. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];
const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);

/** TypeScript sources under `dir` (relative, `/`-separated), without the kernels' AssemblyScript. */
function sourcesOf(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) return p === "kernels/assembly" ? [] : sourcesOf(dir, p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}
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

test("npm pack ships the runtime only (dist of src, the built verifier page, wasm, bin, the offline dataset), ≤ 2.4 MB, the file list as pinned, a manifest without install scripts, publint and arethetypeswrong clean on every entry; the tarball installs without a build step or warning; selftest and the README examples run from it", {
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
      "dist/src/browser.js",
      "dist/src/browser.d.ts",
      "dist/src/kernels.wasm",
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

    // The file list: dist/src is exactly the compiled sources (a .js and a .d.ts per src/**/*.ts),
    // and every other file is pinned, so a file added to or dropped from the package shows as a diff.
    const compiled = sourcesOf(join(repoRoot, "src"))
      .flatMap((f) => [`dist/src/${f.replace(/\.ts$/, ".js")}`, `dist/src/${f.replace(/\.ts$/, ".d.ts")}`])
      .sort();
    const isCompiled = (p: string) => /^dist\/src\/.*\.(js|d\.ts)$/.test(p);
    assert.deepEqual(
      paths.filter(isCompiled).sort(),
      compiled,
      "dist/src holds the compiled sources, no more, no less",
    );
    const pinned = paths.filter((p) => !isCompiled(p)).sort();
    if (process.env.UPDATE_TARBALL_SNAPSHOT === "1")
      writeFileSync(FILES_SNAPSHOT, JSON.stringify(pinned, null, 2) + "\n");
    assert.deepEqual(
      pinned,
      JSON.parse(readFileSync(FILES_SNAPSHOT, "utf8")),
      "the tarball's files besides dist/src's compiled sources differ from test/package/tarball-files.json (UPDATE_TARBALL_SNAPSHOT=1 rewrites it)",
    );

    // The published manifest runs nothing at install; the repository's keeps `prepare` (restored after packing).
    const manifest = run("tar", ["-xzOf", tarball, "package/package.json"], work);
    assert.equal(manifest.status, 0, manifest.stderr);
    const published = JSON.parse(manifest.stdout) as { scripts?: Record<string, string> };
    assert.deepEqual(
      INSTALL_SCRIPTS.filter((k) => published.scripts?.[k] !== undefined),
      [],
      "the packed package.json has no install script",
    );
    const own = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.match(own.scripts.prepare ?? "", /build\.mjs/, "the repository's package.json keeps prepare");
    assert.ok(!existsSync(join(repoRoot, "dist", ".package.json.orig")), "postpack put package.json back");

    // publint (warnings as errors) and arethetypeswrong (ESM-only profile: the package is ESM, Node ≥ 20) on the tarball.
    const lint = run(bin("publint"), ["run", tarball, "--strict"], work);
    assert.equal(lint.status, 0, `publint:\n${lint.stdout}\n${lint.stderr}`);
    assert.match(lint.stdout, /All good/);
    const attw = run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "json"], work);
    assert.equal(attw.status, 0, `attw:\n${attw.stdout}\n${attw.stderr}`);
    const types = JSON.parse(attw.stdout) as {
      analysis: { entrypoints: Record<string, unknown> };
      problems?: Record<string, { entrypoint: string; resolutionKind: string }[]>;
    };
    const exportsKeys = Object.keys(JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).exports as object);
    assert.deepEqual(Object.keys(types.analysis.entrypoints).sort(), exportsKeys.sort(), "attw checked every entry");
    const problems = Object.values(types.problems ?? {})
      .flat()
      .filter((p) => p.resolutionKind !== "node10" && p.resolutionKind !== "node16-cjs");
    assert.deepEqual(problems, [], "no type resolution problem under node16 (ESM) and bundler resolution");

    // A consumer installs the tarball (dependencies from npm's cache when it has them).
    const consumer = consumerProject("ssgkr-consumer-", false);
    try {
      const installed = run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], consumer);
      assert.equal(installed.status, 0, `npm install <tarball>: ${installed.stdout}\n${installed.stderr}`);
      assert.doesNotMatch(
        installed.stdout + installed.stderr,
        /prepare: node|scripts\/build\.mjs/,
        "npm warns of no install script of the package (its dependencies may have their own)",
      );
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
