#!/usr/bin/env node
// Benchmark launcher: `npm run bench -- <name> [args…]` runs the compiled benchmark
// dist/bench/<name>.js in a fresh Node process (stdio passed through); `npm run bench -- list`
// prints the available names. Build first with `npm run build`.
//
// Conventions every benchmark follows (helpers in bench/lib): a conditions line first, progress
// on stderr, full results in bench/results/<name>.json, and the LAST stdout line is one JSON
// object of headline medians.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "bench");

function names() {
  if (!existsSync(compiled)) return [];
  return readdirSync(compiled)
    .filter((f) => f.endsWith(".js"))
    .map((f) => f.slice(0, -3))
    .sort();
}

const [name, ...rest] = process.argv.slice(2);
if (!name || name === "list" || name === "--help" || name === "-h") {
  const list = names();
  if (!name || name === "--help" || name === "-h") {
    console.error("usage: npm run bench -- <name> [args…]   |   npm run bench -- list");
  }
  if (list.length === 0) console.error("no compiled benchmarks in dist/bench (run `npm run build`)");
  for (const n of list) console.log(n);
  process.exit(name === "list" ? 0 : list.length === 0 ? 1 : 0);
}

if (!/^[A-Za-z0-9_-]+$/.test(name)) {
  console.error(`bench: invalid benchmark name ${JSON.stringify(name)}`);
  process.exit(2);
}
const file = join(compiled, `${name}.js`);
if (!existsSync(file)) {
  console.error(`bench: no benchmark "${name}" (expected ${file}; run \`npm run build\`). Available: ${names().join(", ") || "none"}`);
  process.exit(2);
}
const child = spawn(process.execPath, [file, ...rest], { stdio: "inherit", cwd: root });
child.on("exit", (code, signal) => process.exit(signal ? 1 : code ?? 1));
