/**
 * The asynchronous kernel loader (`loadKernelModule`), as the browser page uses it: from bytes, a
 * buffer, a fetch response (streaming compile for application/wasm), a URL, or a compiled module;
 * `kernelModule()` then returns that module; a bad source is `KernelError` `MODULE_MISSING`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { kernelModule, kernelModuleLoaded, loadKernelModule } from "../../src/kernels/loader.js";
import { hashKernels } from "../../src/kernels/hash-kernels.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";

const WASM = readFileSync(new URL("../../../wasm/kernels.wasm", import.meta.url));
const exportsOf = (m: WebAssembly.Module) =>
  WebAssembly.Module.exports(m)
    .map((e) => e.name)
    .sort();

test("loadKernelModule compiles from bytes, an ArrayBuffer, a Response and a module; kernelModule() returns it", async () => {
  const reference = exportsOf(kernelModule());
  const fromBytes = await loadKernelModule(new Uint8Array(WASM));
  assert.deepEqual(exportsOf(fromBytes), reference);
  assert.equal(kernelModule(), fromBytes, "the loaded module is the thread's module");
  const ab = WASM.buffer.slice(WASM.byteOffset, WASM.byteOffset + WASM.byteLength);
  assert.deepEqual(exportsOf(await loadKernelModule(ab)), reference);
  const streamed = await loadKernelModule(new Response(WASM, { headers: { "content-type": "application/wasm" } }));
  assert.deepEqual(exportsOf(streamed), reference);
  const plain = await loadKernelModule(new Response(WASM, { headers: { "content-type": "application/octet-stream" } }));
  assert.deepEqual(exportsOf(plain), reference);
  assert.equal(await loadKernelModule(plain), plain);
  assert.equal(kernelModuleLoaded(), true);
  assert.equal(await loadKernelModule(), plain, "without a source: the thread's module");
});

test("loadKernelModule fetches a URL (served on 127.0.0.1) and the kernels it gives hash as the reference does", async () => {
  const server = createServer((req, res) => {
    if (req.url === "/kernels.wasm") {
      res.writeHead(200, { "content-type": "application/wasm" });
      res.end(WASM);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  try {
    const m = await loadKernelModule(`http://127.0.0.1:${port}/kernels.wasm`);
    assert.equal(kernelModule(), m);
    const hk = hashKernels();
    assert.ok(hk, "hash kernels available");
    const a = Uint32Array.from({ length: 16 }, (_, i) => i * 7919);
    const b = a.slice();
    hk!.permute(a);
    permuteInPlace(b);
    assert.deepEqual(a, b);
    await assert.rejects(loadKernelModule(`http://127.0.0.1:${port}/missing.wasm`), {
      code: "MODULE_MISSING",
      message: /HTTP 404/,
    });
  } finally {
    server.close();
  }
});

test("loadKernelModule rejects bytes that are not a module with MODULE_MISSING and keeps the previous module", async () => {
  const before = kernelModule();
  await assert.rejects(loadKernelModule(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])), { code: "MODULE_MISSING" });
  assert.equal(kernelModule(), before);
});
