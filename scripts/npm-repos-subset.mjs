#!/usr/bin/env node
// Regenerates data/npm-repos-100k.ndjson.gz, the offline subset of the pinned npm dataset: the
// first 100,000 records of all-the-package-repos@2.0.3148 data/packages.json in file order (the
// order `ssgkr registry import --source npm-repos` assigns slots in), one NDJSON line
// {"name": …, "value": … | null} each, gzipped (level 9).
//
//   npm run build && node scripts/npm-repos-fetch.mjs && node scripts/npm-repos-subset.mjs
import { writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { npmReposFullPath, NPM_REPOS_SUBSET_RECORDS } from "../dist/src/registry/import/dataset.js";
import { JsonObjectSource } from "../dist/src/registry/import/sources/json-object.js";
import { readInput } from "../dist/src/registry/import/sources/source.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const full = npmReposFullPath();
if (full === undefined) {
  console.error("npm-repos-subset: the full dataset is missing; run node scripts/npm-repos-fetch.mjs first");
  process.exit(1);
}
const source = new JsonObjectSource(readInput(full), full, NPM_REPOS_SUBSET_RECORDS);
const lines = [];
const text = (b, s, e) => Buffer.from(b.buffer, b.byteOffset + s, e - s).toString("utf8");
const sink = {
  record(line, name, ns, ne, form, value, vs, ve) {
    lines.push(JSON.stringify({ name: text(name, ns, ne), value: form === 0 ? null : text(value, vs, ve) }));
  },
  malformed(line, message) {
    throw new Error(`line ${line} of ${full} is malformed: ${message}`);
  },
};
while (source.next(sink, 10000));
if (lines.length !== NPM_REPOS_SUBSET_RECORDS)
  throw new Error(`expected ${NPM_REPOS_SUBSET_RECORDS} records, got ${lines.length}`);
const out = join(root, "data", "npm-repos-100k.ndjson.gz");
const gz = gzipSync(Buffer.from(lines.join("\n") + "\n"), { level: 9 });
writeFileSync(out, gz);
console.error(`npm-repos-subset: wrote ${out} (${lines.length} records, ${gz.length} bytes)`);
