#!/usr/bin/env node
// Fetches the full pinned npm dataset for `ssgkr registry import --source npm-repos --limit all`
// and the registry benchmark: the npm package all-the-package-repos@2.0.3148 (47 MB tarball,
// 257 MB data/packages.json, 4,483,635 records), with the npm client, checked against its pinned
// SHA-1, unpacked to data/cache/all-the-package-repos-2.0.3148/packages.json.
//
//   node scripts/npm-repos-fetch.mjs
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const NAME = "all-the-package-repos";
const VERSION = "2.0.3148";
const SHA1 = "cf429da62e2a7a7dc08a117ca77dcbd577ca1d91";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "data", "cache", `${NAME}-${VERSION}`, "packages.json");

if (existsSync(target)) {
  console.error(`npm-repos-fetch: ${target} already present`);
  process.exit(0);
}
const work = mkdtempSync(join(tmpdir(), "npm-repos-"));
try {
  console.error(`npm-repos-fetch: npm pack ${NAME}@${VERSION} …`);
  const out = execFileSync("npm", ["pack", `${NAME}@${VERSION}`, "--pack-destination", work, "--json"], {
    cwd: work,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [info] = JSON.parse(out);
  const tgz = join(work, info.filename);
  const sha1 = createHash("sha1").update(readFileSync(tgz)).digest("hex");
  if (sha1 !== SHA1) throw new Error(`tarball SHA-1 ${sha1} differs from the pinned ${SHA1}`);
  execFileSync("tar", ["-xzf", tgz, "-C", work, "package/data/packages.json"], { stdio: "inherit" });
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(work, "package", "data", "packages.json"), target);
  console.error(`npm-repos-fetch: wrote ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
