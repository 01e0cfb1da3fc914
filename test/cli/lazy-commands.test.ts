import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { modulesLoadedBy, packagesAmong } from "../package/loaded-modules.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

test("loading the CLI registers every command without loading an implementation: no LMDB, fastify, NATS, progress bar or profile v2", () => {
  const modules = modulesLoadedBy(join(root, "dist", "src", "cli", "main.js"));
  const packages = packagesAmong(modules);
  for (const heavy of ["lmdb", "fastify", "nats", "cli-progress", "msgpackr", "hdr-histogram-js"])
    assert.ok(!packages.includes(heavy), `${heavy} is loaded: ${packages.join(", ")}`);
  const ours = modules
    .filter((m) => m.includes("/dist/src/"))
    .map((m) => m.slice(m.indexOf("/dist/src/") + "/dist/src/".length));
  const run = ours.filter((m) => /^cli\/commands\/.*-run\.js$/.test(m));
  assert.deepEqual(run, [], "no command implementation is loaded");
  for (const folder of ["registry/store/", "sync/v2/", "sync/v3/", "serve/server/", "http/", "gkr/", "smt/compile"]) {
    assert.deepEqual(
      ours.filter((m) => m.startsWith(folder)),
      [],
      `nothing of ${folder} is loaded`,
    );
  }
});
