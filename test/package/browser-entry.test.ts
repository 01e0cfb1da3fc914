/**
 * The `statesync-gkr/browser` entry reaches no Node built-in: esbuild bundles its compiled file
 * for `--platform=browser` with no alias, and no module of the metafile imports a `node:` module
 * (or a bare built-in name such as `crypto`). In Node, the entry's checks give the verdicts of
 * the Node entries, and `loadKernels` installs the WASM backend.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { repoRoot } from "./consumer.js";

const ENTRY = join(repoRoot, "dist", "src", "browser.js");
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Every import of a Node built-in in the bundle's inputs, as `importer -> module`. */
export function nodeImports(meta: Metafile): string[] {
  const out: string[] = [];
  for (const [file, input] of Object.entries(meta.inputs))
    for (const i of input.imports)
      if (i.path.startsWith("node:") || BUILTINS.has(i.path)) out.push(`${file} -> ${i.path}`);
  return out;
}

test("statesync-gkr/browser bundles for the browser with no alias and reaches no node: module", async () => {
  const r = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
    outdir: join(repoRoot, "dist", ".browser-entry-check"),
  });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(nodeImports(r.metafile), [], "no Node built-in is reachable from the browser entry");
  const inputs = Object.keys(r.metafile.inputs);
  for (const must of ["counterparty/body.js", "registry/verify-block.js", "checkpoint/note.js", "kernels/loader.js"])
    assert.ok(
      inputs.some((f) => f.endsWith(must)),
      `the bundle holds ${must}`,
    );
  for (const never of ["lmdb", "fastify", "nats", "chart.js", "zod", "commander", "cli-progress"])
    assert.ok(!inputs.some((f) => f.includes(`node_modules/${never}`)), `the bundle holds nothing of ${never}`);
});

test("statesync-gkr/browser: loadKernels installs the WASM kernels in Node; kernelsUrl names the shipped file", async () => {
  const entry = (await import(ENTRY)) as typeof import("../../src/browser.js");
  assert.match(entry.kernelsUrl().href, /\/dist\/src\/kernels\.wasm$/);
  assert.ok(
    readFileSync(fileURLToPath(entry.kernelsUrl())).equals(readFileSync(join(repoRoot, "wasm", "kernels.wasm"))),
    "the copy beside the entry is wasm/kernels.wasm",
  );
  assert.equal(await entry.loadKernels(), "wasm");
  assert.equal(await entry.loadKernels(new URL("file:///nonexistent/kernels.wasm")), "typescript");
  assert.equal(await entry.loadKernels(), "wasm", "a later load installs the kernels again");
});
