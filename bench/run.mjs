#!/usr/bin/env node
// Benchmark launcher: `npm run bench -- <name> [args…]` runs the compiled benchmark
// dist/bench/<name>.js in a fresh Node process (stdio passed through); `npm run bench -- list`
// prints the benchmark names (one a line); each benchmark validates its own options
// (bench/lib/options.ts). `npm run bench` compiles what changed first (scripts/build.mjs).
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

/** Compiled entry points that are not benchmarks: `report` renders the results as HTML. */
const TOOLS = ["report"];

/** Benchmark names: the compiled entry points in dist/bench, without the tools. */
function names() {
  if (!existsSync(compiled)) return [];
  return readdirSync(compiled)
    .filter((f) => f.endsWith(".js"))
    .map((f) => f.slice(0, -3))
    .filter((n) => !TOOLS.includes(n))
    .sort();
}

const USAGE =
  "usage: npm run bench -- <name> [--option value …]   (npm run bench -- list: the benchmarks; npm run bench -- <name> --help: its options; npm run bench -- report: the HTML report)";
const [name, ...rest] = process.argv.slice(2);
if (!name || name === "--help" || name === "-h") {
  console.error(USAGE);
  process.exit(name ? 0 : 2);
}
if (name === "list") {
  if (rest.length) {
    console.error(`bench list: takes no arguments, got ${rest.join(" ")}`);
    process.exit(2);
  }
  const list = names();
  if (list.length === 0) {
    console.error("bench: no compiled benchmarks in dist/bench (run `npm run build`)");
    process.exit(1);
  }
  for (const n of list) console.log(n);
  process.exit(0);
}

const known = [...names(), ...TOOLS];
if (!/^[A-Za-z0-9_-]+$/.test(name) || !known.includes(name) || !existsSync(join(compiled, `${name}.js`))) {
  console.error(
    `bench: unknown benchmark ${JSON.stringify(name)}; known: ${names().join(", ") || "none (run `npm run build`)"}`,
  );
  process.exit(2);
}
const file = join(compiled, `${name}.js`);
const child = spawn(process.execPath, [file, ...rest], { stdio: "inherit", cwd: root });
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
