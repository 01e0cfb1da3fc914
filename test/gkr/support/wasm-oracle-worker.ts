/**
 * Worker used by wasm-worker.test.ts: attaches the GKR kernels to the shared kernel memory with
 * its own scratch region, proves the circuit it was sent with the WASM oracle and posts the proof.
 * Does nothing when not started as a worker (the test runner may load it as a file).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { RegionDescriptor } from "../../../src/kernels/memory.js";
import type { SharedKernels } from "../../../src/kernels/instance.js";
import type { Circuit } from "../../../src/gkr/circuit.js";
import { proveGkr } from "../../../src/gkr/prover.js";
import { GkrKernels } from "../../../src/gkr/wasm/kernels.js";
import { wasmLayerOracleFactory } from "../../../src/gkr/wasm/oracle.js";
import { transcriptAfterOutputs } from "../random-circuit.js";

export interface WasmOracleJob {
  shared: SharedKernels;
  scratch: RegionDescriptor;
  circuit: Circuit;
  witness: Uint32Array[];
}

if (parentPort) {
  const job = workerData as WasmOracleJob;
  const k = GkrKernels.attach(job.shared, job.scratch);
  const { proof } = proveGkr(job.circuit, job.witness, transcriptAfterOutputs(job.witness[0]!), {
    oracleFactory: wasmLayerOracleFactory(k),
  });
  parentPort.postMessage(proof);
}
