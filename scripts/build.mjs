#!/usr/bin/env node
// Compiles the TypeScript sources into dist/ when — and only when — dist/ is not current, and
// removes compiled files whose source is gone, so dist/ holds exactly what the tree holds.
//
//   node scripts/build.mjs            compile if needed (tsc, incremental), saying what and why;
//                                     silent when dist/ is current
//   node scripts/build.mjs --quiet    the same without the two lines about compiling
//   node scripts/build.mjs --check    exit 1 with one line if dist/ is not current; never compiles
//   node scripts/build.mjs --force    full compile regardless of timestamps
//
// dist/ is current when every source (src, test, bench, examples; src/kernels/assembly is the
// WebAssembly kernels' source and not compiled here) has its .js, and no source, tsconfig.json or
// package.json is newer than the last successful compile (dist/.build-stamp). The kernel module
// wasm/kernels.wasm is checked in and never rebuilt here (`npm run build:kernels`); a copy of it
// is kept at dist/src/kernels.wasm, beside the browser entry (dist/src/browser.js), which loads it
// as `new URL("./kernels.wasm", import.meta.url)` (docs/browser.md). Messages go
// to stderr: stdout may be a caller's JSON (`npm pack --json` runs this as `prepare`).
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stamp = join(dist, ".build-stamp");
const buildInfo = join(dist, "tsconfig.tsbuildinfo");
const SOURCE_DIRS = ["src", "test", "bench", "examples"];
const EXCLUDED = [join("src", "kernels", "assembly")];

const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!["--quiet", "--check", "--force"].includes(a)) {
    console.error(`build: unknown option '${a}' (known: --quiet, --check, --force)`);
    process.exit(2);
  }
}

/** Relative paths of the TypeScript sources tsconfig.json compiles. */
function sources() {
  const out = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) {
        if (!EXCLUDED.includes(rel)) walk(rel);
      } else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(rel);
    }
  };
  for (const d of SOURCE_DIRS) walk(d);
  return out;
}

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

/**
 * Why dist/ is not current, or null if it is. `lost` is set when an output went missing although
 * its source did not change: tsc's incremental state does not notice that, so it is dropped.
 */
function staleness(srcs) {
  const built = mtime(stamp);
  if (built < 0) return { why: "dist/ has not been built", lost: false };
  for (const f of ["tsconfig.json", "package.json", ...srcs]) {
    if (mtime(join(root, f)) > built) return { why: `${f} changed since the last build`, lost: false };
  }
  for (const s of srcs) {
    if (mtime(join(dist, s.replace(/\.ts$/, ".js"))) < 0) return { why: `dist/ has no output for ${s}`, lost: true };
  }
  return null;
}

/** Compiled files (.js, .d.ts, .js.map) under dist/ whose source no longer exists. */
function orphans(srcs) {
  const expected = new Set(srcs.map((s) => s.replace(/\.ts$/, "")));
  const out = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const m = /^(.*)(\.d\.ts|\.js\.map|\.js)$/.exec(relative(dist, p));
        if (m && !expected.has(m[1])) out.push(p);
      }
    }
  };
  for (const d of SOURCE_DIRS) walk(join(dist, d));
  return out;
}

const NODE_REFERENCE = '/// <reference types="node" />\n';
const USES_NODE_TYPES = /\bBuffer\b|\bNodeJS\.|["']node:/;

/**
 * Public declarations that use Node's types get `/// <reference types="node" />`, so they check
 * in a consumer whose tsconfig lists no ambient types (`tsc --init` sets "types": []).
 */
function referenceNodeTypes() {
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".d.ts")) {
        const text = readFileSync(p, "utf8");
        if (!text.startsWith(NODE_REFERENCE) && USES_NODE_TYPES.test(text)) writeFileSync(p, NODE_REFERENCE + text);
      }
    }
  };
  walk(join(dist, "src"));
}

function tsc(extra) {
  let bin;
  try {
    bin = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  } catch {
    console.error("build: dist/ is not current and TypeScript is not installed (run `npm ci` in the checkout)");
    process.exit(1);
  }
  const r = spawnSync(process.execPath, [bin, "-p", join(root, "tsconfig.json"), ...extra], {
    stdio: "inherit",
    cwd: root,
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const srcs = sources();
const stale = orphans(srcs);
// A deleted source may leave importers that no longer type-check: compile then too.
const state = args.has("--force")
  ? { why: "--force", lost: true }
  : (staleness(srcs) ?? (stale.length ? { why: "a source was deleted or renamed", lost: false } : null));
const why = state?.why ?? null;

if (args.has("--check")) {
  if (why || stale.length) {
    console.error(`build: dist/ is not current (${why}); run \`npm run build\``);
    process.exit(1);
  }
  process.exit(0);
}

if (why) {
  const t0 = performance.now();
  if (!args.has("--quiet")) console.error(`statesync-gkr: compiling TypeScript into dist/ (${why}) …`);
  if (state.lost) rmSync(buildInfo, { force: true });
  const started = new Date();
  tsc([]);
  referenceNodeTypes();
  // Dated when the compile started, so a source saved while tsc ran counts as changed next time.
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
  if (!args.has("--quiet"))
    console.error(`statesync-gkr: compiled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
// The browser entry's copy of the kernel module, refreshed when it differs from wasm/kernels.wasm.
const kernels = join(root, "wasm", "kernels.wasm"),
  kernelsCopy = join(dist, "src", "kernels.wasm");
if (!args.has("--check")) {
  const same = (() => {
    try {
      return readFileSync(kernels).equals(readFileSync(kernelsCopy));
    } catch {
      return false;
    }
  })();
  if (!same && existsSync(kernels) && existsSync(dirname(kernelsCopy))) copyFileSync(kernels, kernelsCopy);
}
for (const f of stale) rmSync(f, { force: true });
if (stale.length)
  console.error(
    `build: removed ${stale.length} compiled file${stale.length === 1 ? "" : "s"} whose source is gone (${stale
      .slice(0, 3)
      .map((f) => relative(root, f).split(sep).join("/"))
      .join(", ")}${stale.length > 3 ? ", …" : ""})`,
  );
