#!/usr/bin/env node
// Builds the browser verifier into a static folder (default dist/web): index.html, page.js (the
// verifier and its dependencies bundled by esbuild from src/web/page.ts) and kernels.wasm (the
// checked-in kernel module). The page is built on the `statesync-gkr/browser` entry
// (src/browser.ts), which reaches no Node built-in, so it bundles with no alias. Host the folder with `Cross-Origin-Opener-Policy: same-origin` and
// `Cross-Origin-Embedder-Policy: require-corp` so the WASM kernels can run (shared memory);
// without them the page hashes in TypeScript. `ssgkr registry http` serves it at /verify.
// `prepare` (so `npm ci` and `npm install <checkout>`) and `prepack` (`npm pack`, `npm publish`:
// scripts/pack-manifest.mjs) run it, and the package ships
// index.html and page.js (the server takes kernels.wasm from wasm/ when the folder has none).
//
//   npm run build:web [-- --out DIR]
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Builds the page into `outDir`.
 * @returns {Promise<{outDir: string, files: Record<string, number>, ms: number}>} bytes per file.
 */
export async function buildWeb(outDir = join(root, "dist", "web")) {
  const t0 = performance.now();
  const { build } = await import("esbuild");
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(root, "src", "web", "page.ts")],
    outfile: join(outDir, "page.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome110", "firefox115", "safari16"],
    minify: true,
    sourcemap: true,
    legalComments: "linked",
    logLevel: "silent",
  });
  copyFileSync(join(root, "src", "web", "index.html"), join(outDir, "index.html"));
  copyFileSync(join(root, "wasm", "kernels.wasm"), join(outDir, "kernels.wasm"));
  const files = {};
  for (const f of ["index.html", "page.js", "kernels.wasm"]) files[f] = statSync(join(outDir, f)).size;
  writeFileSync(join(outDir, "build.json"), JSON.stringify({ files, source: "src/web/page.ts" }, null, 2) + "\n");
  return { outDir, files, ms: performance.now() - t0 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const i = process.argv.indexOf("--out");
  const out = i > 0 ? resolve(process.argv[i + 1]) : undefined;
  try {
    const r = await buildWeb(out);
    const list = Object.entries(r.files)
      .map(([f, n]) => `${f} ${(n / 1024).toFixed(0)} KiB`)
      .join(", ");
    // stderr: `npm pack --json` runs this (prepare) and its stdout must stay JSON
    console.error(
      `statesync-gkr: built the browser verifier in ${r.outDir} (${list}) in ${(r.ms / 1000).toFixed(1)} s`,
    );
  } catch (e) {
    const errs =
      e.errors?.map((x) => `${x.location?.file ?? ""}:${x.location?.line ?? ""} ${x.text}`).join("\n") ?? e.message;
    console.error(`error WEB_BUILD: ${errs}`);
    process.exit(2);
  }
}
