#!/usr/bin/env node
// Rewrites the Layout section of docs/layout.md (between <!-- layout:begin --> and <!-- layout:end -->)
// from the allowed-imports matrix test/arch/layers.ts, and the "May import" and "Imported by"
// lines of every folder README under src/ (test/arch/folder-readmes.ts: the matrix, and the
// imports of the folder's files). Compiled: run after `npm run build`.
//
//   node scripts/layout.mjs           rewrite the READMEs that differ, saying so
//   node scripts/layout.mjs --check   exit 1 with one line if any README differs; never writes
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
const { LAYOUT_BEGIN, LAYOUT_END, renderLayout } = await import(
  pathToFileURL(join(root, "dist", "test", "arch", "layers.js")).href
);
const { staleFolderReadmes } = await import(
  pathToFileURL(join(root, "dist", "test", "arch", "folder-readmes.js")).href
);
const path = join(root, "docs", "layout.md");
const readme = readFileSync(path, "utf8");
const a = readme.indexOf(LAYOUT_BEGIN),
  b = readme.indexOf(LAYOUT_END);
if (a < 0 || b < a) {
  console.error(`layout: docs/layout.md has no ${LAYOUT_BEGIN} … ${LAYOUT_END} section`);
  process.exit(1);
}
const next = `${readme.slice(0, a + LAYOUT_BEGIN.length)}\n${renderLayout()}\n${readme.slice(b)}`;
const folders = staleFolderReadmes(root);
if (check) {
  if (next !== readme)
    console.error(
      "layout: docs/layout.md's Layout section is not the one test/arch/layers.ts renders; run `npm run layout`",
    );
  if (folders.length)
    console.error(
      `layout: the May import / Imported by lines of ${folders.map((f) => f.path).join(", ")} are not the rendered ones; run \`npm run layout\``,
    );
  process.exit(next !== readme || folders.length ? 1 : 0);
}
if (next !== readme) {
  writeFileSync(path, next);
  console.error("layout: rewrote the Layout section of docs/layout.md from test/arch/layers.ts");
}
for (const f of folders) writeFileSync(join(root, f.path), f.text);
if (folders.length)
  console.error(
    `layout: rewrote the May import / Imported by lines of ${folders.length} folder README${folders.length === 1 ? "" : "s"}`,
  );
