#!/usr/bin/env node
// Builds the light verifier package (packages/verify, `statesync-gkr-verify`): the browser entry
// dist/src/browser.js bundled by esbuild into one module, packages/verify/dist/browser.js (the
// @noble packages left as imports), beside it kernels.wasm and the type declarations that
// dist/src/browser.d.ts reaches, their paths relative to dist/src kept. One module instead of
// the ~190 files the entry reaches keeps the install small on disk (`du` counts each file's
// blocks). The kernel loader's path to wasm/ becomes kernels.wasm beside the bundle. Compiles
// dist/ first when it is not current. Messages go to stderr.
//
//   node scripts/build-verify.mjs
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "dist", "src");
const out = join(root, "packages", "verify", "dist");

/** The type declarations of dist/src that the browser entry's declarations reach. */
export function declarationFiles() {
  const files = new Set();
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
  rmSync(out, { recursive: true, force: true });
  const { build } = await import("esbuild");
  const r = await build({
    entryPoints: [join(src, "browser.js")],
    outfile: join(out, "browser.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    external: ["@noble/*"],
    metafile: true,
    logLevel: "silent",
    absWorkingDir: root,
  });
  for (const f of Object.keys(r.metafile.inputs))
    if (relative(src, resolve(root, f)).startsWith(".."))
      throw new Error(`the browser entry reaches ${f}, outside dist/src`);
  // The kernel loader's own path to the module (dist/src/kernels → the repository's wasm/) names a
  // file outside this package; in the bundle the module is kernels.wasm beside browser.js, which
  // Node reads and bundlers (Vite) resolve without a warning.
  const bundle = join(out, "browser.js");
  const repoPath = 'new URL("../../../wasm/kernels.wasm", import.meta.url)';
  const text = readFileSync(bundle, "utf8");
  if (text.split(repoPath).length !== 2)
    throw new Error(`the bundle names ${repoPath} once, not ${text.split(repoPath).length - 1} times`);
  writeFileSync(bundle, text.replace(repoPath, 'new URL("./kernels.wasm", import.meta.url)'));
  const files = [...declarationFiles(), "kernels.wasm"];
  for (const f of files) {
    mkdirSync(dirname(join(out, f)), { recursive: true });
    copyFileSync(join(src, f), join(out, f));
  }
  const bytes = [...files, "browser.js"].reduce((n, f) => n + statSync(join(out, f)).size, 0);
  console.error(
    `statesync-gkr: built packages/verify (browser.js, kernels.wasm, ${files.length - 1} declarations; ${(bytes / 1024).toFixed(0)} KiB)`,
  );
}
