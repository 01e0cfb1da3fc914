import { test } from "node:test";
import assert from "node:assert/strict";
import { KernelMemory, kernelModule, instantiateKernels, MODULE_MAXIMUM_PAGES } from "../../src/kernels/index.js";

test("the module imports one shared memory and nothing else", () => {
  const imports = WebAssembly.Module.imports(kernelModule());
  assert.deepEqual(imports, [{ module: "env", name: "memory", kind: "memory" }]);
  const exports = WebAssembly.Module.exports(kernelModule()).map((e) => e.name);
  for (const name of [
    "to_mont",
    "from_mont",
    "first_noncanonical",
    "base_mul",
    "inner_product",
    "ext_mul",
    "fold_base",
    "fold_base_ext",
    "fold_ext",
    "poseidon2_permute",
  ]) {
    assert.ok(exports.includes(name), `exports ${name}`);
  }
});

test("instantiating over a memory that holds data leaves every byte unchanged", () => {
  const m = new KernelMemory({ initialPages: 2, maximumPages: 4 });
  const all = new Uint8Array(m.memory.buffer);
  for (let i = 0; i < all.length; i++) all[i] = (i * 131 + 7) & 0xff;
  const before = all.slice();
  instantiateKernels(m.memory);
  instantiateKernels(m.memory);
  assert.deepEqual(new Uint8Array(m.memory.buffer), before);
});

test("a non-shared memory or one above the module maximum is refused at instantiation", () => {
  assert.throws(() => instantiateKernels(new WebAssembly.Memory({ initial: 1, maximum: 2 })));
  assert.throws(() =>
    instantiateKernels(new WebAssembly.Memory({ initial: 1, maximum: MODULE_MAXIMUM_PAGES + 1, shared: true })),
  );
});
