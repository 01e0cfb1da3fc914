import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { modulesLoadedBy, packagesAmong } from "./loaded-modules.js";

const distSrc = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
/** Packages a prover or verifier must not pay for: storage, CLI, charts, progress bars, histograms. */
const HEAVY = ["lmdb", "commander", "chart.js", "cli-progress", "hdr-histogram-js"];

test("importing the root (statesync-gkr) loads none of lmdb, commander, chart.js, cli-progress, hdr-histogram-js", () => {
  const modules = modulesLoadedBy(join(distSrc, "index.js"));
  assert.ok(
    modules.some((m) => m.endsWith("/dist/src/sync/prepared.js")),
    "the loaded-module list covers the package's own modules",
  );
  const packages = packagesAmong(modules);
  assert.deepEqual(
    packages.filter((p) => HEAVY.includes(p)),
    [],
    `root loads ${packages.join(", ")}`,
  );
});

test("the same check sees lmdb when the registry entry point is imported (the detector works)", () => {
  const packages = packagesAmong(modulesLoadedBy(join(distSrc, "registry", "index.js")));
  assert.ok(packages.includes("lmdb"), `registry loads ${packages.join(", ")}`);
});

test("importing the profile v2 entry point (statesync-gkr/v2) loads none of the heavy packages: checking a registry block needs no database", () => {
  const modules = modulesLoadedBy(join(distSrc, "v2.js"));
  assert.ok(
    modules.some((m) => m.endsWith("/dist/src/registry/verify-block.js")),
    "the loaded-module list covers the block check",
  );
  const packages = packagesAmong(modules);
  assert.deepEqual(
    packages.filter((p) => HEAVY.includes(p)),
    [],
    `statesync-gkr/v2 loads ${packages.join(", ")}`,
  );
});

test("importing the profile v3 entry point (statesync-gkr/v3) loads none of the heavy packages: checking a v3 block needs no database", () => {
  const modules = modulesLoadedBy(join(distSrc, "v3.js"));
  assert.ok(
    modules.some((m) => m.endsWith("/dist/src/sync/v3/proof.js")),
    "the loaded-module list covers the v3 verifier",
  );
  const packages = packagesAmong(modules);
  assert.deepEqual(
    packages.filter((p) => HEAVY.includes(p)),
    [],
    `statesync-gkr/v3 loads ${packages.join(", ")}`,
  );
});

test("importing the engine entry point loads no npm package but the hash library", () => {
  const packages = packagesAmong(modulesLoadedBy(join(distSrc, "engine.js")));
  assert.deepEqual(
    packages.filter((p) => p !== "@noble/hashes"),
    [],
  );
});
