#!/usr/bin/env node
// Rewrites the Layout section of README.md (between <!-- layout:begin --> and <!-- layout:end -->)
// from the allowed-imports matrix test/arch/layers.ts (compiled: run after `npm run build`).
//
//   node scripts/layout.mjs           rewrite README.md if it differs, saying so
//   node scripts/layout.mjs --check   exit 1 with one line if README.md differs; never writes
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const unknown = process.argv.slice(2).filter((a) => a !== "--check");
if (unknown.length) {
  console.error(`layout: unknown option '${unknown[0]}' (known: --check)`);
  process.exit(2);
}
const { LAYOUT_BEGIN, LAYOUT_END, renderLayout } = await import(pathToFileURL(join(root, "dist", "test", "arch", "layers.js")).href);
const path = join(root, "README.md");
const readme = readFileSync(path, "utf8");
const a = readme.indexOf(LAYOUT_BEGIN), b = readme.indexOf(LAYOUT_END);
if (a < 0 || b < a) {
  console.error(`layout: README.md has no ${LAYOUT_BEGIN} … ${LAYOUT_END} section`);
  process.exit(1);
}
const next = `${readme.slice(0, a + LAYOUT_BEGIN.length)}\n${renderLayout()}\n${readme.slice(b)}`;
if (next === readme) process.exit(0);
if (check) {
  console.error("layout: README.md's Layout section is not the one test/arch/layers.ts renders; run `npm run layout`");
  process.exit(1);
}
writeFileSync(path, next);
console.error("layout: rewrote the Layout section of README.md from test/arch/layers.ts");
