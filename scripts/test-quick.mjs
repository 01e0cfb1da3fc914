#!/usr/bin/env node
// `npm run test:quick`: the unit and known-answer tests, for working on one part (a few minutes on
// 2 cores; `npm test` runs everything and CI runs that). Which files, by rule:
//
//   every compiled test file under dist/test/ (node:test's own pattern: *.test.js), except
//   - the folders of end-to-end suites, which start servers, processes or a browser, pack the
//     package or run the documentation: http, serve, cli, web, package, examples, bench;
//   - files whose name says they do the same from another folder or are long by design:
//     names containing crash, durability, -cli, parallel, threads, worker, pool, booking (see SLOW).
//
//   node scripts/test-quick.mjs            run them (the progress reporter of npm test)
//   node scripts/test-quick.mjs --list     print the files, one a line, and the count of the rest
//
// Compiled: `npm run test:quick` builds first.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tests = join(root, "dist", "test");

/** Top folders of dist/test/ whose suites are end to end. */
export const END_TO_END = ["http", "serve", "cli", "web", "package", "examples", "bench"];
/** Parts of a file name that mark a suite that starts processes, crashes them or runs long by design. */
export const SLOW = ["crash", "durability", "-cli", "parallel", "threads", "worker", "pool", "booking"];

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
    const [top] = relative(join("dist", "test"), f).split(sep);
    const name = f.split(sep).pop();
    return !END_TO_END.includes(top) && !SLOW.some((s) => name.includes(s));
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
