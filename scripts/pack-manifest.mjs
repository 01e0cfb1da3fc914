#!/usr/bin/env node
// The published package.json carries no install-time script. In the repository, `prepare` builds
// everything (so `npm ci` and `npm install <checkout>` build dist/ and the page); a package
// installed from its tarball ships dist/ built and must run nothing, so npm never warns its
// consumers about install scripts. npm packs package.json as it is on disk, so:
//
//   node scripts/pack-manifest.mjs --strip     (prepack) builds, saves package.json to
//                                              dist/.package.json.orig and removes the scripts
//                                              an install would run (prepare, preinstall,
//                                              install, postinstall) from package.json
//   node scripts/pack-manifest.mjs --restore   (postpack) puts the saved package.json back
//
// A pack that fails between the two leaves the saved copy; the next --strip (or --restore)
// restores it first, so the repository's package.json never stays stripped. Messages go to
// stderr (`npm pack --json` prints JSON on stdout).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = join(root, "package.json");
const saved = join(root, "dist", ".package.json.orig");

/** Scripts npm runs when a package is installed (from a tarball, a registry or git). */
export const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/** The manifest text without the install-time scripts (key order and formatting kept). */
export function strippedManifest(text) {
  const pkg = JSON.parse(text);
  for (const s of INSTALL_SCRIPTS) delete pkg.scripts?.[s];
  return JSON.stringify(pkg, null, 2) + "\n";
}

function restore() {
  if (existsSync(saved)) renameSync(saved, manifest);
}

const mode = process.argv[2];
if (mode === "--restore") {
  restore();
} else if (mode === "--strip") {
  restore();
  for (const step of ["build.mjs", "build-web.mjs"]) {
    const r = spawnSync(process.execPath, [join(root, "scripts", step)], { stdio: ["ignore", 2, 2] });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  // Both files keep the manifest's time, so the build does not see package.json as changed.
  const { atime, mtime } = statSync(manifest);
  const text = readFileSync(manifest, "utf8");
  mkdirSync(dirname(saved), { recursive: true });
  writeFileSync(saved, text);
  utimesSync(saved, atime, mtime);
  writeFileSync(manifest, strippedManifest(text));
  utimesSync(manifest, atime, mtime);
} else {
  console.error("usage: node scripts/pack-manifest.mjs --strip | --restore");
  process.exit(2);
}
