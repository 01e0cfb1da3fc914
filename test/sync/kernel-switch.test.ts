import { test } from "node:test";
import assert from "node:assert/strict";
import { installKernelBackend, installedKernelBackend } from "../../src/kernels/backend.js";
import { HashKernels, hashKernels } from "../../src/kernels/hash-kernels.js";
import { kernelModuleEnabled } from "../../src/kernels/loader.js";
import { SparseLayerOracle, sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import { WasmLayerOracle } from "../../src/gkr/wasm/oracle.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { defaultLayerOracleFactory } from "../../src/gkr/prover.js";
import { defaultStructuredOracleFactory, structuredLayerOracle } from "../../src/gkr/structured/oracle.js";
import { defaultCopiesBackend } from "../../src/gkr/structured/dp-prover.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { prepare } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { encodeV2, prepareV2, proveV2 } from "../../src/sync/v2/index.js";

const DEPTH = 4;
const before = installedKernelBackend();
installKernelBackend("auto");
const skip = gkrKernels() === null || hashKernels() === null ? "no WASM kernel module in this process" : false;

/** Calls of each counted method, by `Class.method`. */
type Counts = Map<string, number>;

/** Counts the calls of the given prototype methods while `run` runs, then restores them. */
function counting<T>(targets: readonly [string, object, readonly string[]][], run: (counts: Counts) => T): T {
  const counts: Counts = new Map();
  const restore: (() => void)[] = [];
  for (const [name, proto, methods] of targets) {
    for (const m of methods) {
      const original = (proto as Record<string, unknown>)[m] as (...a: unknown[]) => unknown;
      assert.equal(typeof original, "function", `${name}.${m} exists`);
      const key = `${name}.${m}`;
      counts.set(key, 0);
      (proto as Record<string, unknown>)[m] = function (this: unknown, ...a: unknown[]) {
        counts.set(key, counts.get(key)! + 1);
        return original.apply(this, a);
      };
      restore.push(() => ((proto as Record<string, unknown>)[m] = original));
    }
  }
  try {
    return run(counts);
  } finally {
    for (const r of restore) r();
  }
}

const TARGETS: [string, object, string[]][] = [
  ["WasmLayerOracle", WasmLayerOracle.prototype, ["evalY"]],
  ["SparseLayerOracle", SparseLayerOracle.prototype, ["evalY"]],
  ["HashKernels", HashKernels.prototype, ["permute", "permuteMany", "compress", "absorbBlocks", "sponge"]],
];
const hashCalls = (c: Counts): number =>
  [...c].filter(([k]) => k.startsWith("HashKernels.")).reduce((s, [, n]) => s + n, 0);

test("installKernelBackend after the first proof applies to the next one: WASM, then the TypeScript references, then WASM again, with the same proof bytes", {
  skip,
}, () => {
  try {
    const request = goldenFixture(OpKind.Membership, DEPTH, 5n);
    // 1. WASM: the prepared circuit's commitment, the oracles and the transcript's hashing run on the kernels
    const { prep, v1, v2, prepV2, wasm } = counting(TARGETS, (c) => {
      const prep = prepare(OpKind.Membership, { depth: DEPTH });
      const prepV2 = prepareV2(OpKind.Membership, { depth: DEPTH });
      const v1 = encodeSyncResult(prep, provePrepared(prep, request));
      const v2 = encodeV2(prepV2, proveV2(prepV2, request));
      return { prep, v1, v2, prepV2, wasm: new Map(c) };
    });
    assert.ok(wasm.get("WasmLayerOracle.evalY")! > 0, "the WASM oracles proved");
    assert.equal(wasm.get("SparseLayerOracle.evalY"), 0);
    assert.ok(hashCalls(wasm) > 0, "the WASM hashing ran");
    assert.notEqual(defaultCopiesBackend(), null);

    // 2. TypeScript: the same prepared circuits and requests; nothing touches the kernels
    installKernelBackend("typescript");
    assert.equal(kernelModuleEnabled(), false);
    assert.equal(gkrKernels(), null);
    assert.equal(hashKernels(), null);
    assert.equal(defaultLayerOracleFactory(), sparseLayerOracle);
    assert.equal(defaultStructuredOracleFactory(), structuredLayerOracle);
    assert.equal(defaultCopiesBackend(), null);
    counting(TARGETS, (c) => {
      assert.deepEqual(encodeSyncResult(prep, provePrepared(prep, request)), v1, "compat-v1 proof bytes");
      assert.deepEqual(encodeV2(prepV2, proveV2(prepV2, request)), v2, "profile v2 proof bytes");
      assert.deepEqual(
        prepare(OpKind.Membership, { depth: DEPTH }).commitment,
        prep.commitment,
        "the commitment computed again",
      );
      assert.deepEqual(verifyEncoded(prep, request, v1), { ok: true });
      assert.equal(c.get("WasmLayerOracle.evalY"), 0, "no WASM oracle");
      assert.ok(c.get("SparseLayerOracle.evalY")! > 0, "the TypeScript oracles proved");
      assert.equal(hashCalls(c), 0, "no WASM hashing");
    });

    // 3. WASM again: the contexts made before come back
    installKernelBackend("wasm");
    counting(TARGETS, (c) => {
      assert.deepEqual(encodeSyncResult(prep, provePrepared(prep, request)), v1);
      assert.ok(c.get("WasmLayerOracle.evalY")! > 0, "the WASM oracles proved again");
      assert.equal(c.get("SparseLayerOracle.evalY"), 0);
      assert.ok(hashCalls(c) > 0);
    });
    assert.notEqual(defaultLayerOracleFactory(), sparseLayerOracle);
    assert.notEqual(defaultStructuredOracleFactory(), structuredLayerOracle);
  } finally {
    installKernelBackend(before ?? "auto");
  }
});
