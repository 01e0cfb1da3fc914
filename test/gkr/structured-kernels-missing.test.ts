import { test } from "node:test";
import assert from "node:assert/strict";
import { KernelError } from "../../src/kernels/errors.js";
import type { GkrKernels } from "../../src/gkr/wasm/kernels.js";
import { wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import { structuredWasmLayerOracleFactory } from "../../src/gkr/structured/oracle.js";

/** A kernel context whose module has none of profile v2's kernels (a wasm/kernels.wasm older than the sources). */
const outdated = { raw: {} } as unknown as GkrKernels;
const missing = (e: unknown): boolean =>
  e instanceof KernelError && e.code === "MODULE_MISSING" && /npm run build:kernels/.test(e.message);

test("a kernel module without the structured kernels is KernelError MODULE_MISSING, naming the rebuild", () => {
  assert.throws(() => structuredWasmLayerOracleFactory(outdated, "wasm"), missing);
  assert.throws(() => wasmCopiesBackend(outdated), missing);
  // without the group kernels the default booking is the TypeScript one, which needs none
  assert.equal(typeof structuredWasmLayerOracleFactory(outdated), "function");
});
