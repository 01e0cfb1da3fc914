import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

test("wasm/kernels.sources.json matches the kernel sources in the tree (rebuild with npm run build:kernels)", async () => {
  const { kernelSourcesRecord } = (await import(join(root, "scripts", "kernel-sources.mjs"))) as {
    kernelSourcesRecord(root: string): { compiler: string; sources: Record<string, string> };
  };
  const recorded = JSON.parse(readFileSync(join(root, "wasm", "kernels.sources.json"), "utf8")) as unknown;
  const current = kernelSourcesRecord(root);
  assert.ok(Object.keys(current.sources).length >= 10, "the kernel sources are listed");
  assert.deepEqual(recorded, current, "a kernel source or the compiler changed without `npm run build:kernels`");
});

test("the checked-in module compiles and exports the kernels the loader expects", () => {
  const bytes = readFileSync(join(root, "wasm", "kernels.wasm"));
  const module = new WebAssembly.Module(bytes);
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  for (const name of ["to_mont", "from_mont", "poseidon2_permute", "fold_ext"]) assert.ok(names.includes(name), name);
});
