/**
 * The kernel backend seam: the hashing core defaults to the TypeScript reference, the backend is
 * chosen by `installKernelBackend` (src/kernels/backend.ts) and injected into src/hash, and every
 * choice hashes as the reference does.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { compress, compressReference, sponge, spongeReference } from "../../src/hash/digest.js";
import { currentHashBackend, typescriptHashBackend, useHashBackend, type HashBackend } from "../../src/hash/backend.js";
import { hashBackend, permuteFast } from "../../src/hash/fast-permutation.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { installKernelBackend, kernelBackendFromEnvironment } from "../../src/kernels/backend.js";
import { hashKernels } from "../../src/kernels/hash-kernels.js";

const P = 2130706433;
function randomWords(n: number, seed: number): Uint32Array {
  let x = seed >>> 0 || 1;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = i % 7 === 0 ? P - 1 - (i % 3) : x % P;
  }
  return out;
}

/** Runs `body` (an async function source over the module URLs) in a worker without the test preload. */
function inWorker(body: string, env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const urls = {
    backend: new URL("../../src/kernels/backend.js", import.meta.url).href,
    hash: new URL("../../src/hash/fast-permutation.js", import.meta.url).href,
    digest: new URL("../../src/hash/digest.js", import.meta.url).href,
    loader: new URL("../../src/kernels/loader.js", import.meta.url).href,
    gkr: new URL("../../src/gkr/wasm/kernels.js", import.meta.url).href,
    prover: new URL("../../src/gkr/prover.js", import.meta.url).href,
    sparse: new URL("../../src/gkr/sparse-oracle.js", import.meta.url).href,
  };
  const code = `
    const { parentPort } = require("node:worker_threads");
    const urls = ${JSON.stringify(urls)};
    (async () => { ${body} })().then((r) => parentPort.postMessage(r), (e) => parentPort.postMessage({ error: String(e && e.code || e), message: String(e && e.message) }));`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, execArgv: [], env: { ...process.env, SSGKR_KERNELS: "", ...env } });
    w.once("message", (m) => {
      resolve(m as Record<string, unknown>);
      void w.terminate();
    });
    w.once("error", reject);
  });
}

test("without an installed backend the hashing core runs the TypeScript reference (it never loads the kernels)", async () => {
  const r = await inWorker(`
    const { hashBackend, permuteFast } = await import(urls.hash);
    const s = new Uint32Array(16).map((_, i) => i);
    permuteFast(s);
    const { kernelModuleLoaded } = await import(urls.loader);
    return { backend: hashBackend(), state: Array.from(s), loaded: kernelModuleLoaded() };`);
  const s = new Uint32Array(16).map((_, i) => i);
  permuteInPlace(s);
  assert.deepEqual(r, { backend: "typescript", state: Array.from(s), loaded: false });
});

test("installKernelBackend('auto') injects the WASM kernels lazily; 'typescript' switches hashing, the layer oracles and the module off", async () => {
  const auto = await inWorker(`
    const { installKernelBackend } = await import(urls.backend);
    const { kernelModuleLoaded } = await import(urls.loader);
    installKernelBackend("auto");
    const before = kernelModuleLoaded();
    const { hashBackend } = await import(urls.hash);
    return { before, backend: hashBackend(), after: kernelModuleLoaded() };`);
  assert.deepEqual(auto, { before: false, backend: "wasm", after: true });

  const ts = await inWorker(`
    const { installKernelBackend } = await import(urls.backend);
    installKernelBackend("typescript");
    const { hashBackend } = await import(urls.hash);
    const { gkrKernels } = await import(urls.gkr);
    const { defaultLayerOracleFactory } = await import(urls.prover);
    const { sparseLayerOracle } = await import(urls.sparse);
    const { kernelModule } = await import(urls.loader);
    let code = null;
    try { kernelModule(); } catch (e) { code = e.code; }
    return { backend: hashBackend(), gkr: gkrKernels(), sparse: defaultLayerOracleFactory() === sparseLayerOracle, code };`);
  assert.deepEqual(ts, { backend: "typescript", gkr: null, sparse: true, code: "MODULE_MISSING" });
});

test("SSGKR_KERNELS chooses the backend of a whole thread; an unknown value is BAD_OPTIONS", async () => {
  const ts = await inWorker(
    `
    const { installKernelBackend, installedKernelBackend } = await import(urls.backend);
    installKernelBackend();
    const { hashBackend } = await import(urls.hash);
    return { installed: installedKernelBackend(), backend: hashBackend() };`,
    { SSGKR_KERNELS: "typescript" },
  );
  assert.deepEqual(ts, { installed: "typescript", backend: "typescript" });
  const wasm = await inWorker(
    `
    const { installKernelBackend } = await import(urls.backend);
    installKernelBackend();
    const { hashBackend } = await import(urls.hash);
    return { backend: hashBackend() };`,
    { SSGKR_KERNELS: "wasm" },
  );
  assert.deepEqual(wasm, { backend: "wasm" });
  const bad = await inWorker(
    `
    const { installKernelBackend } = await import(urls.backend);
    installKernelBackend();
    return {};`,
    { SSGKR_KERNELS: "gpu" },
  );
  assert.equal(bad.error, "BAD_OPTIONS");
  assert.match(String(bad.message), /SSGKR_KERNELS must be one of auto, wasm, typescript/);
  assert.equal(kernelBackendFromEnvironment(), "auto");
  assert.throws(() => installKernelBackend("gpu" as never), { code: "BAD_OPTIONS" });
});

test("the WASM batched permutation equals the reference at batch edges (0, 1, 3, 4, 5, 1023, 1024, 1025 states)", () => {
  const hk = hashKernels();
  assert.ok(hk, "the kernel module is available");
  for (const n of [0, 1, 3, 4, 5, 1023, 1024, 1025]) {
    const a = randomWords(16 * n + 16, n + 1);
    const b = a.slice();
    hk!.permuteMany(a, n);
    typescriptHashBackend.permuteMany(b, n);
    assert.deepEqual(a, b, `${n} states`);
    assert.deepEqual(
      a.subarray(16 * n),
      randomWords(16 * n + 16, n + 1).subarray(16 * n),
      "words past the states are untouched",
    );
  }
  assert.throws(() => hk!.permuteMany(new Uint32Array(31), 2), { code: "BAD_LENGTH" });
});

test("an injected backend is what compress, sponge, permuteFast and the transcript use", () => {
  const before = currentHashBackend();
  const calls = { permute: 0, compress: 0, sponge: 0 };
  const counting: HashBackend = {
    name: "typescript",
    permute(s) {
      calls.permute++;
      permuteInPlace(s);
    },
    permuteMany: typescriptHashBackend.permuteMany,
    compress(l, r) {
      calls.compress++;
      return compressReference(l, r);
    },
    sponge(x) {
      calls.sponge++;
      return spongeReference(x);
    },
  };
  try {
    useHashBackend(counting);
    const l = randomWords(8, 5),
      r = randomWords(8, 6);
    assert.deepEqual(compress(l, r), compressReference(l, r));
    assert.deepEqual(sponge(randomWords(21, 7)), spongeReference(randomWords(21, 7)));
    const s = randomWords(16, 8);
    permuteFast(s);
    const t = DuplexChallenger.withDomain("ssgkr-test");
    t.observe(1);
    t.sample();
    assert.equal(hashBackend(), "typescript");
    assert.equal(calls.compress, 1);
    assert.equal(calls.sponge, 1);
    assert.ok(calls.permute >= 2, `transcript and permuteFast permuted through the backend (${calls.permute})`);
    useHashBackend(() => null);
    assert.equal(currentHashBackend(), typescriptHashBackend, "a provider returning null selects the reference");
  } finally {
    useHashBackend(before);
  }
  assert.equal(currentHashBackend(), before);
});

test("every backend choice hashes as the reference: compress and sponge on random and edge inputs", () => {
  const wasm = hashKernels()!;
  for (const backend of [typescriptHashBackend, wasm as HashBackend]) {
    for (let k = 0; k < 40; k++) {
      const input = randomWords(k * 3, 100 + k);
      assert.deepEqual(backend.sponge(input), spongeReference(input), `${backend.name} sponge of ${input.length}`);
      const l = randomWords(8, 200 + k),
        r = randomWords(8, 300 + k);
      assert.deepEqual(backend.compress(l, r), compressReference(l, r), `${backend.name} compress`);
    }
  }
});
