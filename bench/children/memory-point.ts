/**
 * One point of the memory benchmark, run in its own process by bench/memory.ts:
 *
 *   node dist/bench/children/memory-point.js <family> <widthBits> <sparse|dense|dense-setup>
 *
 * Builds a generic two-layer circuit of 2^widthBits wires per layer (and input), evaluates it,
 * proves it with the chosen layer oracle, records the process's peak RSS right after proving,
 * then verifies the proof (TableWiring + input claim). `dense-setup` only builds the dense
 * oracle's tables for the output layer (no rounds): it shows where the dense tables stop fitting
 * in memory at widths where dense proving is too slow to finish. Prints one JSON line on stdout;
 * an allocation failure is reported in that line rather than as a crash.
 */
import { createHash } from "node:crypto";
import { evaluateCircuit } from "../../src/gkr/circuit.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import { gkrProofBytes } from "../../src/gkr/proof-bytes.js";
import type { LayerOracleFactory } from "../../src/gkr/layer-oracle.js";
import { sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { PROOF_DOMAIN_TAG } from "../../src/transcript/domains.js";
import { type Family, familyCircuit, familyInput } from "./memory-families.js";
import { installKernelBackend } from "../../src/kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();

export interface PointResult {
  family: Family;
  widthBits: number;
  oracle: "sparse" | "dense" | "dense-setup";
  ok: boolean;
  /** "allocation" when a typed array could not be allocated in this process. */
  error?: string;
  message?: string;
  /** Peak RSS of the process right after proving (MiB). */
  peakRssMiB?: number;
  /** RSS before proving (circuit, witness, runtime) in MiB. */
  baseRssMiB?: number;
  /** Largest per-layer oracle allocation (bytes). */
  oracleBytes?: number;
  proveMs?: number;
  verifyMs?: number;
  verified?: boolean;
  proofSha256?: string;
  gates?: number;
}

async function main(): Promise<void> {
  const [family, bitsArg, oracleArg] = process.argv.slice(2) as [Family, string, PointResult["oracle"]];
  const bits = Number(bitsArg);
  const result: PointResult = { family, widthBits: bits, oracle: oracleArg, ok: false };
  try {
    let factory: LayerOracleFactory = sparseLayerOracle;
    if (oracleArg !== "sparse") {
      const mod = await import("../../test/support/dense-oracle.js");
      factory = mod.denseLayerOracle;
    }
    const circuit = familyCircuit(family, bits);
    const input = familyInput(bits);
    const witness = evaluateCircuit(circuit, input);
    result.gates = circuit.layers.reduce((s, l) => s + l.gateKind.length, 0);
    const transcript = () => {
      const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
      t.observeMany(witness[0]!);
      return t;
    };
    result.baseRssMiB = process.memoryUsage().rss / 2 ** 20;
    if (oracleArg === "dense-setup") {
      const t = transcript();
      const z0 = Array.from({ length: bits }, () => t.sampleExt());
      const t0 = performance.now();
      const oracle = factory({
        layer: circuit.layers[0]!,
        layerIndex: 0,
        inputBits: bits,
        below: witness[1]!,
        claims: [{ point: z0, coeff: [1, 0, 0, 0] }],
      });
      result.proveMs = performance.now() - t0;
      result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
      result.oracleBytes = oracle.allocatedBytes;
      result.ok = true;
      process.stdout.write(JSON.stringify(result) + "\n");
      return;
    }
    let oracleBytes = 0;
    const proverTranscript = transcript();
    const t0 = performance.now();
    const { proof } = proveGkr(circuit, witness, proverTranscript, {
      oracleFactory: factory,
      onLayer: (s) => {
        oracleBytes = Math.max(oracleBytes, s.oracleAllocatedBytes);
      },
    });
    result.proveMs = performance.now() - t0;
    result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
    result.oracleBytes = oracleBytes;
    result.proofSha256 = createHash("sha256").update(gkrProofBytes(proof)).digest("hex");
    const verifierTranscript = transcript();
    const t1 = performance.now();
    const res = verifyGkr(shapeOf(circuit), new TableWiring(circuit), witness[0]!, proof, verifierTranscript);
    result.verified = res.ok && checkInputClaim(input, res.inputClaim);
    result.verifyMs = performance.now() - t1;
    result.ok = true;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    result.error =
      e instanceof RangeError && /alloc|Array buffer|Invalid typed array length|Invalid array length/i.test(message)
        ? "allocation"
        : "exception";
    result.message = message;
  }
  process.stdout.write(JSON.stringify(result) + "\n");
}

await main();
