import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { extAdd, EXT_ONE, type Ext } from "../../src/field/extension.js";
import { GateKind, inputBitsOf } from "../../src/gkr/circuit.js";
import { evaluateStructuredCircuit, type StructuredCircuit } from "../../src/gkr/structured/linear.js";
import { replicateStructuredCircuit, CopiesWiring } from "../../src/gkr/structured/copies.js";
import { StructuredWiring } from "../../src/gkr/structured/wiring.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import type { CopiesBackend } from "../../src/gkr/structured/dp-oracle.js";
import { tsCopiesBackend } from "../../src/gkr/structured/dp-ts-backend.js";
import { hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import {
  drawLayerMasks,
  maskCoefficientCount,
  maskCoefficients,
  masksFromCoefficients,
  weighted,
  type ZkLayerMasks,
  zkRoundDegrees,
} from "../../src/gkr/zk/masks.js";
import { CircuitError } from "../../src/gkr/errors.js";
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

test("zero-knowledge GKR verifier: every shape and message check has its code, layer and round", () => {
  const c = arbSetupSample();
  const { proof } = prove(c);
  const D = proof.layers.length;
  const code = (v: ReturnType<typeof verify>) => (v.ok ? "ok" : v.code);
  const at = (v: ReturnType<typeof verify>) => (v.ok ? "" : `${v.layer ?? ""}/${v.round ?? ""}`);
  const layer = (i: number, f: (l: Record<string, unknown>) => Record<string, unknown>) => ({
    layers: proof.layers.map((l, j) => (j === i ? f({ ...l }) : l)),
  });
  const t = () => DuplexChallenger.withDomain(TAG);
  const out = c.witness[0]!;
  const shapeCode = (shape: unknown, p: unknown = proof) => {
    const v = verifyZkGkr(shape as never, c.wiring, p, t(), out);
    return v.ok ? "ok" : v.code;
  };
  assert.equal(shapeCode(null), "BAD_SHAPE");
  assert.equal(shapeCode({ layerWidthBits: [2.5], inputWidthBits: 3 }), "BAD_SHAPE");
  assert.equal(shapeCode({ layerWidthBits: [31], inputWidthBits: 3 }), "BAD_SHAPE");
  assert.equal(shapeCode({ layerWidthBits: [2], inputWidthBits: -1 }), "BAD_SHAPE");
  assert.equal(shapeCode({ layerWidthBits: [], inputWidthBits: 3 }), "EMPTY_CIRCUIT");
  assert.equal(shapeCode({ layerWidthBits: [2], inputWidthBits: 1 }), "BAD_SHAPE");
  assert.equal(shapeCode({ ...c.shape, inputWidthBits: 1 }), "BAD_SHAPE");
  assert.equal(shapeCode({ ...c.shape, layerWidthBits: [...c.shape.layerWidthBits.slice(0, -1), 1] }), "BAD_SHAPE");
  assert.equal(code(verify(c, { layers: null })), "MALFORMED_PROOF");
  assert.equal(code(verify(c, null)), "MALFORMED_PROOF");
  assert.equal(code(verify(c, { layers: proof.layers.slice(1) })), "LAYER_COUNT");
  assert.equal(code(verifyZkGkr(c.shape, c.wiring, proof, t(), out.subarray(1))), "OUTPUT_LENGTH");
  const i = D - 1;
  const n = proof.layers[i]!.rounds.length;
  const mul0 = c.circuit.layers[0]!.gateKind.includes(GateKind.Mul);
  const cases: [string, unknown, string, string][] = [
    ["layer not an object", { layers: proof.layers.map((l, j) => (j === i ? 7 : l)) }, "MALFORMED_PROOF", `${i}/`],
    ["layer null", { layers: proof.layers.map((l, j) => (j === i ? null : l)) }, "MALFORMED_PROOF", `${i}/`],
    ["maskSum", layer(i, (l) => ({ ...l, maskSum: [P, 0, 0, 0] })), "MALFORMED_EVAL", `${i}/`],
    ["rounds not an array", layer(i, (l) => ({ ...l, rounds: {} })), "MALFORMED_ROUND", `${i}/`],
    ["a round less", layer(i, (l) => ({ ...l, rounds: (l.rounds as unknown[]).slice(1) })), "ROUND_COUNT", `${i}/`],
    [
      "a round not an array",
      layer(i, (l) => ({ ...l, rounds: (l.rounds as unknown[]).map((r, j) => (j === n - 1 ? "x" : r)) })),
      "MALFORMED_ROUND",
      `${i}/${n - 1}`,
    ],
    [
      "a coefficient more",
      layer(i, (l) => ({ ...l, rounds: (l.rounds as Ext[][]).map((r, j) => (j === 1 ? [...r, [0, 0, 0, 0]] : r)) })),
      "MALFORMED_ROUND",
      `${i}/1`,
    ],
    [
      "a non-canonical coefficient",
      layer(i, (l) => ({
        ...l,
        rounds: (l.rounds as Ext[][]).map((r, j) => (j === 2 ? [r[0], [0, P, 0, 0], ...r.slice(2)] : r)),
      })),
      "NON_CANONICAL",
      `${i}/2`,
    ],
    ["evalX", layer(i, (l) => ({ ...l, evalX: "1" })), "MALFORMED_EVAL", `${i}/`],
    ["evalY", layer(i, (l) => ({ ...l, evalY: [0, 0, 0] })), "MALFORMED_EVAL", `${i}/`],
    ["maskValue", layer(i, (l) => ({ ...l, maskValue: undefined })), "MALFORMED_EVAL", `${i}/`],
    [
      "maskValue changed",
      layer(i, (l) => ({ ...l, maskValue: bump(l.maskValue as Ext) })),
      "END_CHECK_FAILED",
      `${i}/`,
    ],
    // V̇(y*) enters layer 0's end check through its Mul gates, else layer 1's first round
    mul0
      ? ["evalY of layer 0", layer(0, (l) => ({ ...l, evalY: bump(l.evalY as Ext) })), "END_CHECK_FAILED", "0/"]
      : ["evalY of layer 0", layer(0, (l) => ({ ...l, evalY: bump(l.evalY as Ext) })), "ROUND_SUM_MISMATCH", "1/0"],
  ];
  for (const [what, p, want, where] of cases) {
    const v = verify(c, p);
    assert.equal(code(v), want, what);
    assert.equal(at(v), where, what);
  }
  const throwing = {
    ...c.wiring,
    evalPredicate: () => {
      throw new Error("wiring broke");
    },
    evalCombined: undefined,
  };
  const v = verifyZkGkr(c.shape, throwing as never, proof, t(), out);
  assert.equal(code(v), "VERIFIER_EXCEPTION");
});

/** One fixed setup of at least two layers, with copies (seeded). */
function arbSetupSample(): Setup {
  const cases = fc.sample(arbStructuredCase({ maxDepth: 3, minBits: 2, maxBits: 4 }), { seed: 11, numRuns: 50 });
  return setup(cases.find((c) => c.circuit.layers.length >= 2)!.circuit, 1, 5);
}

test("zero-knowledge masks: the degree schedule, the mask count, layer 0's zero layer mask, and the refusal of fewer than 2 variables", () => {
  assert.deepEqual(zkRoundDegrees(2), [4, 7, 2, 3]);
  assert.deepEqual(zkRoundDegrees(3), [4, 4, 7, 2, 2, 3]);
  assert.equal(maskCoefficientCount(11), 75);
  for (const bad of [1, 0, 2.5, Number.NaN])
    assert.throws(
      () => zkRoundDegrees(bad),
      (e: unknown) => e instanceof CircuitError && e.code === "BAD_WIDTH",
    );
  const random = whirSeededRandomSource(3);
  const layer0 = drawLayerMasks(4, false, random);
  assert.deepEqual(layer0.layer, [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ]);
  assert.ok(
    layer0.rounds.flat().every((c) => c.some((x) => x !== 0)),
    "g is drawn",
  );
  const inner = drawLayerMasks(4, true, random);
  assert.ok(
    inner.layer.every((c) => c.some((x) => x !== 0)),
    "R is drawn",
  );
  assert.deepEqual(masksFromCoefficients(4, maskCoefficients(inner)), inner);
  assert.throws(() => masksFromCoefficients(4, maskCoefficients(inner).slice(1)), CircuitError);
});
