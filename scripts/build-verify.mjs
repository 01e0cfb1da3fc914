#!/usr/bin/env node
// Builds the light verifier package (packages/verify, `statesync-gkr-verify`): the compiled
// modules that the browser entry dist/src/browser.js reaches (found by esbuild's metafile, the
// @noble packages left outside), the type declarations those modules' declarations import, and
// kernels.wasm, copied into packages/verify/dist with their paths relative to dist/src kept, so
// packages/verify/dist/browser.js is dist/src/browser.js. Compiles dist/ first when it is not
// current. Messages go to stderr.
//
//   node scripts/build-verify.mjs
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "dist", "src");
const out = join(root, "packages", "verify", "dist");

/** The files of dist/src the browser entry needs: modules, their declarations, kernels.wasm. */
export async function verifyFiles() {
  const { build } = await import("esbuild");
  const r = await build({
    entryPoints: [join(src, "browser.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
    outdir: join(root, "dist", ".verify-check"),
    external: ["@noble/*"],
    absWorkingDir: root,
  });
  const files = new Set(["kernels.wasm"]);
  for (const f of Object.keys(r.metafile.inputs)) {
    const rel = relative(src, resolve(root, f));
    if (rel.startsWith("..")) throw new Error(`the browser entry reaches ${f}, outside dist/src`);
    files.add(rel);
  }
  const queue = ["browser.d.ts"];
  while (queue.length > 0) {
    const f = queue.pop();
    if (files.has(f) || !existsSync(join(src, f))) continue;
    files.add(f);
    const text = readFileSync(join(src, f), "utf8");
    for (const m of text.matchAll(/(?:from|import\()\s*["'](\.[^"']+)["']/g))
      queue.push(relative(src, resolve(dirname(join(src, f)), m[1].replace(/\.js$/, ".d.ts"))));
  }
  return [...files].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const b = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: ["ignore", 2, 2] });
  if (b.status !== 0) process.exit(b.status ?? 1);
  const files = await verifyFiles();
  rmSync(out, { recursive: true, force: true });
  let bytes = 0;
  for (const f of files) {
    mkdirSync(dirname(join(out, f)), { recursive: true });
    copyFileSync(join(src, f), join(out, f));
    bytes += statSync(join(out, f)).size;
  }
  console.error(`statesync-gkr: built packages/verify (${files.length} files, ${(bytes / 1024).toFixed(0)} KiB)`);
}
