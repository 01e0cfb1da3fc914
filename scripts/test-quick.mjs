#!/usr/bin/env node
// `npm run test:quick`: the unit and known-answer tests, for working on one part (about 2–3 min on
// 2 shared cores; `npm test` runs everything, and CI runs that). Which files, by rule:
//
//   every compiled test file under dist/test/ (*.test.js), except
//   - the folders of end-to-end suites, which start servers, processes or a browser, pack the
//     package or run the documentation: END_TO_END below (http, serve, cli, web, package, examples, bench);
//   - suites that kill or spawn processes from other folders: names containing "crash" or "-cli";
//   - the long suites, LONG below: every file that took more than 8.5 s in a run of all the others
//     (2 shared cores, load average 7, 2026-12-06) — property sweeps, statistical tests, store
//     scenarios, worker pools — but for the known answers (golden, vectors), which always run.
//   A new file is quick until it joins LONG (or an end-to-end folder).
//
//   node scripts/test-quick.mjs            run them (the progress reporter of npm test)
//   node scripts/test-quick.mjs --list     print the files, one a line, and the count of the rest
//
// Runs what dist/ holds: `npm run test:quick` builds first.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tests = join(root, "dist", "test");

/** Top folders of dist/test/ whose suites are end to end. */
export const END_TO_END = ["http", "serve", "cli", "web", "package", "examples", "bench"];
/** Parts of a file name that mark a suite that kills or spawns processes. */
export const PROCESS_SUITES = ["crash", "-cli"];
/** The long suites (paths under dist/test/, without .test.js): see the rule above. */
export const LONG = [
  "arch/tsdoc",
  "codec/v3/codec",
  "counterparty/verify",
  "gkr/derived-wiring",
  "gkr/structured-booking",
  "gkr/structured-dp",
  "gkr/wasm-fixtures",
  "gkr/zk-simulator",
  "kernels/pcs-kernels",
  "pcs/hiding-uniformity",
  "registry/consistency",
  "registry/consistency-parts",
  "registry/history",
  "registry/name-bulk",
  "registry/replay-diff",
  "sync/parallel",
  "sync/v2/aggregate-pool",
  "sync/v2/v2",
  "sync/v3/forgeries",
  "sync/v3/zk-forgeries",
  "sync/verify-memory",
];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".test.js") ? [join(dir, e.name)] : [],
  );
}

/** The quick files and the rest, paths relative to the repository. */
export function quickFiles() {
  const all = walk(tests)
    .map((f) => relative(root, f))
    .sort();
  const quick = all.filter((f) => {
    const path = relative(join("dist", "test"), f).split(sep);
    const name = path.at(-1);
    const id = path.join("/").replace(/\.test\.js$/, "");
    return !END_TO_END.includes(path[0]) && !PROCESS_SUITES.some((s) => name.includes(s)) && !LONG.includes(id);
  });
  return { quick, rest: all.length - quick.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== "--list");
  if (unknown.length > 0) {
    console.error(`test:quick: unknown option '${unknown[0]}' (known: --list)`);
    process.exit(2);
  }
  const { quick, rest } = quickFiles();
  if (args.includes("--list")) {
    for (const f of quick) console.log(f);
    console.error(`test:quick: ${quick.length} files (${rest} left to npm test)`);
    process.exit(0);
  }
  console.error(
    `test:quick: ${quick.length} test files (unit and known answers; ${rest} end-to-end files left to npm test)`,
  );
  const r = spawnSync(
    process.execPath,
    [
      "--test",
      "--test-concurrency=2",
      "--import",
      "./dist/test/support/kernel-backend.js",
      "--test-reporter=./scripts/test-progress.mjs",
      "--test-reporter-destination=stdout",
      ...quick,
    ],
    { cwd: root, stdio: "inherit" },
  );
  process.exit(r.status ?? 1);
}
