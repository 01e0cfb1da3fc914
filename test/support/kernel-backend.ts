/**
 * Preloaded into every test process (`node --test --import ./dist/test/support/kernel-backend.js`,
 * package.json `test`, and the mutation runner): the kernel backend the package entry points
 * install, so tests that import modules directly run the same kernels as the CLI; and, unless
 * SSGKR_CACHE_DIR is set, a prepared-circuit cache folder of this test process (removed at its
 * exit), which the CLI processes it starts share, so that tests never write to the user's cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installKernelBackend } from "../../src/kernels/backend.js";

installKernelBackend();

if (process.env["SSGKR_CACHE_DIR"] === undefined) {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-test-cache-"));
  process.env["SSGKR_CACHE_DIR"] = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
