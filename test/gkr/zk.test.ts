import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { extAdd, EXT_ONE, type Ext } from "../../src/field/extension.js";
import { inputBitsOf } from "../../src/gkr/circuit.js";
import { evaluateStructuredCircuit, type StructuredCircuit } from "../../src/gkr/structured/linear.js";
import { replicateStructuredCircuit, CopiesWiring } from "../../src/gkr/structured/copies.js";
import { StructuredWiring } from "../../src/gkr/structured/wiring.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { tsCopiesBackend, type CopiesBackend } from "../../src/gkr/structured/dp-oracle.js";
import { hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { drawLayerMasks, maskCoefficients, weighted, type ZkLayerMasks } from "../../src/gkr/zk/masks.js";
import { proveZkCopiesGkr } from "../../src/gkr/zk/prover.js";
import { verifyZkGkr } from "../../src/gkr/zk/verifier.js";
import type { ZkGkrProof } from "../../src/gkr/zk/proof.js";
import { whirSeededRandomSource } from "../../src/pcs/random.js";
import { Rng, arbStructuredCase } from "./random-structured.js";

const kernels = gkrKernels();
const backends: CopiesBackend[] = [tsCopiesBackend];
if (kernels && hasCopiesKernels(kernels)) backends.push(wasmCopiesBackend(kernels));

const TAG = "test/zk-gkr";

function copiesInput(circuit: StructuredCircuit, k: number, seed: number): Uint32Array {
  const rng = new Rng(seed);
  const n = 2 ** circuit.inputWidthBits;
  const mode = seed % 5;
  return Uint32Array.from({ length: n * 2 ** k }, () => (mode === 0 ? 0 : mode === 1 ? P - 1 : rng.fe()));
}

interface Setup {
  readonly circuit: StructuredCircuit;
  readonly k: number;
  readonly witness: Uint32Array[];
  readonly masks: ZkLayerMasks[];
  readonly shape: { layerWidthBits: number[]; inputWidthBits: number };
  readonly wiring: CopiesWiring;
}

function setup(circuit: StructuredCircuit, k: number, seed: number): Setup {
  const rep = replicateStructuredCircuit(circuit, k);
  const witness = evaluateStructuredCircuit(rep, copiesInput(circuit, k, seed));
  const random = whirSeededRandomSource(seed);
  const masks = circuit.layers.map((_, i) => drawLayerMasks(inputBitsOf(circuit, i) + k, i > 0, random));
  return {
    circuit,
    k,
    witness,
    masks,
    shape: { layerWidthBits: circuit.layers.map((l) => l.widthBits + k), inputWidthBits: circuit.inputWidthBits + k },
    wiring: new CopiesWiring(new StructuredWiring(circuit, new TableWiring(circuit)), k),
  };
}

function prove(s: Setup, backend?: CopiesBackend) {
  return proveZkCopiesGkr(s.circuit, s.k, s.witness, DuplexChallenger.withDomain(TAG), s.masks, { backend });
}

function verify(s: Setup, proof: unknown) {
  return verifyZkGkr(s.shape, s.wiring, proof, DuplexChallenger.withDomain(TAG), s.witness[0]!);
}

/** The claims are true: the input claim on the input vector's MLE, each mask claim on the layer's masks. */
function assertClaimsTrue(
  s: Setup,
  claims: {
    input: { x: readonly Ext[]; evalX: Ext; y: readonly Ext[]; evalY: Ext };
    masks: readonly { layer: number; weights: readonly Ext[]; value: Ext }[];
  },
) {
  const input = s.witness[s.witness.length - 1]!;
  assert.deepEqual(mleEvalBase(input, claims.input.x), claims.input.evalX);
  assert.deepEqual(mleEvalBase(input, claims.input.y), claims.input.evalY);
  for (const m of claims.masks) assert.deepEqual(weighted(m.weights, maskCoefficients(s.masks[m.layer]!)), m.value);
}

const arbSetup = fc
  .tuple(arbStructuredCase({ maxDepth: 3, minBits: 2, maxBits: 4 }), fc.integer({ min: 0, max: 2 }), fc.nat())
  .map(([c, k, seed]) => setup(c.circuit, k, seed));

test("zero-knowledge GKR: honest proofs verify on every backend, with the same bytes, and leave true claims", () => {
  fc.assert(
    fc.property(arbSetup, (s) => {
      const ref = prove(s, tsCopiesBackend);
      for (const b of backends) assert.deepEqual(prove(s, b), ref, b.name);
      const v = verify(s, ref.proof);
      assert.ok(v.ok, v.ok ? "" : `${v.code}: ${v.reason}`);
      assert.deepEqual(v.claims, ref.claims);
      assertClaimsTrue(s, v.claims);
    }),
    { numRuns: 60 },
  );
});

function tamper(
  proof: ZkGkrProof,
  layer: number,
  f: (l: ZkGkrProof["layers"][number]) => ZkGkrProof["layers"][number],
): ZkGkrProof {
  return { layers: proof.layers.map((l, i) => (i === layer ? f(l) : l)) };
}

const bump = (e: Ext): Ext => extAdd(e, EXT_ONE);

test("zero-knowledge GKR: a changed round coefficient, G, V̇ or ν is rejected where it is made", () => {
  fc.assert(
    fc.property(arbSetup, fc.nat(), fc.nat(), (s, a, b) => {
      const { proof } = prove(s);
      const D = proof.layers.length;
      const i = a % D;
      const l = proof.layers[i]!;
      const j = b % l.rounds.length;
      const e = b % l.rounds[j]!.length;
      const cases: [string, ZkGkrProof, string][] = [
        [
          "round",
          tamper(proof, i, (x) => ({
            ...x,
            rounds: x.rounds.map((r, jj) => (jj === j ? r.map((c, ee) => (ee === e ? bump(c) : c)) : r)),
          })),
          "ROUND_SUM_MISMATCH",
        ],
        ["maskSum", tamper(proof, i, (x) => ({ ...x, maskSum: bump(x.maskSum) })), "ROUND_SUM_MISMATCH"],
        ["maskValue", tamper(proof, i, (x) => ({ ...x, maskValue: bump(x.maskValue) })), "END_CHECK_FAILED"],
        [
          "short round",
          tamper(proof, i, (x) => ({ ...x, rounds: x.rounds.map((r, jj) => (jj === j ? r.slice(1) : r)) })),
          "MALFORMED_ROUND",
        ],
        ["non-canonical", tamper(proof, i, (x) => ({ ...x, evalX: [P, 0, 0, 0] })), "MALFORMED_EVAL"],
      ];
      for (const [what, forged, code] of cases) {
        const v = verify(s, forged);
        assert.equal(v.ok, false, what);
        if (!v.ok) {
          // The first failing check: a changed value may already break the round sum at its own place or later.
          if (what === "round" || what === "maskSum")
            assert.ok(["ROUND_SUM_MISMATCH", "END_CHECK_FAILED"].includes(v.code), `${what}: ${v.code}`);
          else assert.equal(v.code, code, what);
          assert.equal(v.layer, i, what);
        }
      }
      // A changed V̇ at a layer but the last is caught by the next layer's sumcheck; at the last it changes the input claim.
      const fx = tamper(proof, i, (x) => ({ ...x, evalX: bump(x.evalX) }));
      const vx = verify(s, fx);
      if (i < D - 1) assert.equal(vx.ok, false);
      else if (vx.ok) assert.notDeepEqual(vx.claims.input.evalX, mleEvalBase(s.witness[D]!, vx.claims.input.x));
    }),
    { numRuns: 30 },
  );
});
