import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { Kernels } from "../../src/kernels/kernels.js";
import { proveGkr } from "../../src/gkr/prover.js";
import type { GkrProof } from "../../src/gkr/proof.js";
import { sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import type { WasmOracleJob } from "./support/wasm-oracle-worker.js";
import { arbCircuitCase, transcriptAfterOutputs } from "./random-circuit.js";

const WORKER = new URL("./support/wasm-oracle-worker.js", import.meta.url);

function prove(job: WasmOracleJob): Promise<GkrProof> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { workerData: job });
    w.once("message", (m) => resolve(m as GkrProof));
    w.once("error", reject);
    w.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`worker exited with ${code}`))));
  });
}

test("two workers attached to one shared memory prove with the WASM oracle in their own scratch regions", async () => {
  const k = Kernels.create({ initialPages: 32 });
  const cases = fc.sample(arbCircuitCase({ maxDepth: 3, minBits: 2, maxBits: 6, maxGates: 80 }), {
    numRuns: 2,
    seed: 7,
  });
  const scratch = cases.map(() => k.heap.alloc(1 << 17));
  const outside = k.heap.alloc(1024);
  outside.view().fill(0xdeadbeef);
  const proofs = await Promise.all(
    cases.map((c, i) =>
      prove({ shared: k.share(), scratch: scratch[i]!.describe(), circuit: c.circuit, witness: c.witness }),
    ),
  );
  cases.forEach((c, i) => {
    const ref = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
      oracleFactory: sparseLayerOracle,
    });
    assert.deepEqual(proofs[i], ref.proof, `worker ${i}`);
  });
  assert.ok(
    outside.view().every((x) => x === 0xdeadbeef),
    "memory outside the scratch regions is untouched",
  );
});
