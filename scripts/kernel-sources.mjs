// The record of what wasm/kernels.wasm was compiled from: the SHA-256 of every AssemblyScript
// kernel source and of the ABI file they import (src/kernels/abi.ts), sorted by path, and the
// compiler version. Written by build-kernels.mjs and
// compared with the tree by test/kernels/checked-in-module.test.ts.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export function kernelSourcesRecord(root) {
  const dir = join(root, "src", "kernels", "assembly");
  const files = [...listFiles(dir), join(root, "src", "kernels", "abi.ts")].sort();
  const sources = {};
  for (const f of files) {
    sources[relative(root, f).split("\\").join("/")] = createHash("sha256").update(readFileSync(f)).digest("hex");
  }
  const ascVersion = JSON.parse(
    readFileSync(join(root, "node_modules", "assemblyscript", "package.json"), "utf8"),
  ).version;
  return { compiler: `assemblyscript@${ascVersion}`, sources };
}

function listFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}
