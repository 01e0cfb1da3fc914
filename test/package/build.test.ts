/**
 * scripts/build.mjs on a small project of its own (a temporary copy: the real dist/ is in use by
 * the running suite): it compiles when and only when dist/ is not current, says so, removes
 * outputs whose source is gone, and never leaves a stale dist/ behind a failed compile.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./consumer.js";

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-build-"));
  mkdirSync(join(dir, "scripts"));
  mkdirSync(join(dir, "src"));
  copyFileSync(join(repoRoot, "scripts", "build.mjs"), join(dir, "scripts", "build.mjs"));
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "p", private: true, type: "module" }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        strict: true,
        outDir: "dist",
        rootDir: ".",
        incremental: true,
        tsBuildInfoFile: "dist/tsconfig.tsbuildinfo",
        declaration: true,
      },
      include: ["src/**/*.ts"],
    }),
  );
  writeFileSync(join(dir, "src", "a.ts"), "export const a: number = 1;\n");
  writeFileSync(join(dir, "src", "b.ts"), "export const b: number = 2;\n");
  return dir;
}

const build = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(dir, "scripts", "build.mjs"), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 180_000,
  });
/** Rewrites a file and dates it just after the last build (clocks and file systems may be coarse). */
function edit(dir: string, path: string, text: string): void {
  writeFileSync(path, text);
  const after = (statSync(join(dir, "dist", ".build-stamp")).mtimeMs + 10) / 1000;
  if (statSync(path).mtimeMs <= after * 1000) utimesSync(path, after, after);
}

test("build.mjs compiles only when dist/ is not current, says why, prunes outputs of deleted sources, and retries after a failed compile", () => {
  const dir = project();
  try {
    const stamp = join(dir, "dist", ".build-stamp");
    let r = build(dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /compiling TypeScript into dist\/ \(dist\/ has not been built\)/);
    assert.equal(r.stdout, "", "stdout stays free for callers' JSON");
    assert.ok(existsSync(join(dir, "dist", "src", "a.js")) && existsSync(join(dir, "dist", "src", "b.d.ts")));

    const built = statSync(stamp).mtimeMs;
    r = build(dir);
    assert.equal(r.status, 0);
    assert.equal(r.stderr + r.stdout, "", "nothing to do, nothing said");
    assert.equal(statSync(stamp).mtimeMs, built, "nothing compiled");
    assert.equal(build(dir, "--check").status, 0);

    edit(dir, join(dir, "src", "a.ts"), "export const a: number = 42;\n");
    r = build(dir, "--check");
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^build: dist\/ is not current \(src\/a\.ts changed since the last build\); run `npm run build`\n$/,
    );
    r = build(dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /\(src\/a\.ts changed since the last build\)/);
    assert.match(readFileSync(join(dir, "dist", "src", "a.js"), "utf8"), /42/);

    rmSync(join(dir, "src", "b.ts"));
    assert.match(build(dir, "--check").stderr, /a source was deleted or renamed/);
    r = build(dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /removed 2 compiled files whose source is gone/);
    assert.ok(!existsSync(join(dir, "dist", "src", "b.js")) && !existsSync(join(dir, "dist", "src", "b.d.ts")));

    rmSync(join(dir, "dist", "src", "a.js"));
    r = build(dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /dist\/ has no output for src\/a\.ts/);
    assert.ok(
      existsSync(join(dir, "dist", "src", "a.js")),
      "a missing output is compiled again despite tsc's incremental state",
    );

    edit(dir, join(dir, "src", "a.ts"), 'export const a: number = "not a number";\n');
    r = build(dir);
    assert.notEqual(r.status, 0, "a type error fails the build");
    assert.match(r.stdout + r.stderr, /TS2322/);
    r = build(dir, "--check");
    assert.equal(r.status, 1, "after a failed compile dist/ still counts as not current");

    assert.equal(build(dir, "--frobnicate").status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
