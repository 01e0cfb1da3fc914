import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import { type Gate, GateKind, inputBitsOf, makeLayer } from "../../src/gkr/circuit.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import { GkrKernels, gkrKernels } from "../../src/gkr/wasm/kernels.js";
import {
  cubesOnLaneZero,
  hasGroupKernels,
  hasLaneRoundKernel,
  hasTensorWeightsKernel,
} from "../../src/gkr/structured/booking-wasm.js";
import {
  type LinearBlockGroup,
  type StructuredCircuit,
  evaluateStructuredCircuit,
  expandStructuredLayer,
  structuredLayer,
} from "../../src/gkr/structured/linear.js";
import { POSEIDON2_EXTERNAL, POSEIDON2_INTERNAL, identityMap } from "../../src/gkr/structured/maps.js";
import {
  proveStructuredGkr,
  structuredLayerOracle,
  structuredWasmLayerOracleFactory,
} from "../../src/gkr/structured/oracle.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { buildV2Input } from "../../src/smt/v2/input.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { DenseLayerOracle } from "../support/dense-oracle.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { Rng, arbStructuredCase } from "./random-structured.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const kernels = gkrKernels();
const skip = kernels === null || !hasGroupKernels(kernels) ? "kernel module without the group kernels" : false;

function coefficients(o: LayerSumcheckOracle): Ext[] {
  const msg = o.roundPolynomial();
  const c = msg.kind === "evaluations" ? interpolateRoundPoly(msg.values) : [...msg.values];
  while (c.length < 5) c.push([0, 0, 0, 0]);
  return c;
}

/** Runs the oracles side by side over the challenges, comparing every round and V(x*), V(y*). */
function sameRounds(oracles: LayerSumcheckOracle[], challenges: readonly Ext[], what: string): void {
  const [ref, ...others] = oracles;
  for (const o of others) assert.equal(o.numVariables, ref!.numVariables, what);
  challenges.forEach((r, j) => {
    const want = coefficients(ref!);
    for (const o of others) assert.deepEqual(coefficients(o), want, `${what}: round ${j}`);
    for (const o of oracles) o.bind(r);
  });
  for (const o of others) {
    assert.deepEqual(o.evalX(), ref!.evalX(), `${what}: V(x*)`);
    assert.deepEqual(o.evalY(), ref!.evalY(), `${what}: V(y*)`);
  }
}

test("WASM group booking: the round polynomials of the TypeScript reference for random structured layers, claims and challenges (with and without Mul gates)", {
  skip,
}, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  const tsBooking = structuredWasmLayerOracleFactory(kernels!, "typescript");
  const plainKernels = structuredWasmLayerOracleFactory(kernels!, "wasm", { laneRounds: false, tensorWeights: false });
  const arb = arbStructuredCase({ maxDepth: 1, maxBits: 5 }).chain((c) => {
    const layer = c.circuit.layers[0]!;
    const s = inputBitsOf(c.circuit, 0);
    const point = fc.array(arbExt, { minLength: layer.widthBits, maxLength: layer.widthBits });
    return fc.tuple(
      fc.constant(c),
      fc.array(fc.tuple(point, arbExt), { minLength: 1, maxLength: 3 }),
      fc.array(arbExt, { minLength: 2 * s, maxLength: 2 * s }),
    );
  });
  let withMul = 0,
    withGroups = 0;
  fc.assert(
    fc.property(arb, ([c, rawClaims, challenges]) => {
      const layer = c.circuit.layers[0]!;
      if (layer.linear.length > 0) withGroups++;
      if (layer.linear.length > 0 && layer.gateKind.includes(GateKind.Mul)) withMul++;
      const input: LayerOracleInput = {
        layer,
        layerIndex: 0,
        inputBits: inputBitsOf(c.circuit, 0),
        below: c.witness[1]!,
        claims: rawClaims.map(([point, coeff]) => ({ point, coeff })),
      };
      sameRounds(
        [structuredLayerOracle(input), wasm(input), tsBooking(input), plainKernels(input)],
        challenges,
        "random layer",
      );
    }),
    { numRuns: 200 },
  );
  assert.ok(
    withGroups > 100 && withMul > 20,
    `the generator produced layers with groups (${withGroups}) and with groups and Mul gates (${withMul})`,
  );
});

test("WASM group booking: whole proofs of random structured circuits equal the TypeScript reference's", {
  skip,
}, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  fc.assert(
    fc.property(arbStructuredCase(), (c) => {
      const a = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: structuredLayerOracle,
      });
      const b = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: wasm,
      });
      assert.deepEqual(b, a);
    }),
    { numRuns: 80 },
  );
});

function v2Case(kind: OpKind, depth: number, seed: bigint) {
  const compiled = compileV2(kind, { depth });
  const witness = evaluateStructuredCircuit(
    compiled.circuit,
    buildV2Input(compiled.layout, goldenFixture(kind, depth, seed)),
  );
  return { circuit: compiled.circuit, witness };
}

test("WASM group booking: whole proofs of the real v2 circuits (depth 3, every kind) equal the TypeScript reference's", {
  skip,
}, () => {
  const wasm = structuredWasmLayerOracleFactory(kernels!, "wasm");
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const { circuit, witness } = v2Case(kind, 3, 7n);
    const a = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), {
      oracleFactory: structuredLayerOracle,
    });
    const b = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), { oracleFactory: wasm });
    assert.deepEqual(b, a, `kind ${kind}`);
  }
});

test("WASM group booking on the real v2 layers (depth 1, every kind: output, entry, external, internal and input layers) gives the dense oracle's round polynomials", {
  skip,
}, () => {
  const factories: LayerOracleFactory[] = [structuredWasmLayerOracleFactory(kernels!, "wasm"), structuredLayerOracle];
  const rng = new Rng(2024);
  const ext = (): Ext => [rng.fe(), rng.fe(), rng.fe(), rng.fe()];
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const { circuit, witness } = v2Case(kind, 1, 1n);
    const D = circuit.layers.length;
    // layer 0 (outputs), 29 (entry M_E), 28 (external round), 20 (internal round), D − 1 (input layer, Mul gates)
    for (const i of [0, 29, 28, 20, D - 1]) {
      const layer = circuit.layers[i]!;
      const s = inputBitsOf(circuit, i);
      const claims = [0, 1].map(() => ({ point: Array.from({ length: layer.widthBits }, ext), coeff: ext() }));
      const input: LayerOracleInput = { layer, layerIndex: i, inputBits: s, below: witness[i + 1]!, claims };
      const oracles = [
        new DenseLayerOracle({ ...input, layer: expandStructuredLayer(layer) }),
        ...factories.map((f) => f(input)),
      ];
      sameRounds(oracles, Array.from({ length: 2 * s }, ext), `kind ${kind} layer ${i}`);
    }
  }
});

/**
 * A random one-layer circuit whose cubed inputs are all ≡ 0 mod 16 (lane 0 of 16-lane blocks, as
 * in the internal Poseidon2 rounds): 16-lane groups (internal, external or identity map) with cube
 * mask 0 or 1, plus random Lin and Mul gates and Pow3 gates on inputs ≡ 0 mod 16; widths 6..8 bits.
 */
function laneZeroCase(seed: number) {
  const rng = new Rng(seed);
  const outBits = 6 + rng.int(3),
    inBits = 6 + rng.int(3);
  const outN = 2 ** outBits,
    inN = 2 ** inBits;
  const gates: Gate[] = [];
  for (let g = rng.int(12); g > 0; g--) {
    const kind = rng.int(3) as GateKind;
    const in1 = kind === GateKind.Pow3 ? 16 * rng.int(inN / 16) : rng.int(inN);
    gates.push({ kind, out: rng.int(outN), in1, in2: kind === GateKind.Mul ? rng.int(inN) : in1, coeff: rng.fe() });
  }
  const maps = [POSEIDON2_INTERNAL, POSEIDON2_EXTERNAL, identityMap(4)];
  const groups: LinearBlockGroup[] = [];
  for (let k = 1 + rng.int(3); k > 0; k--) {
    const nb = 1 + rng.int(Math.min(outN, inN) / 16);
    const outBase = Uint32Array.from({ length: nb }, () => 16 * rng.int(outN / 16));
    const inBase = Uint32Array.from({ length: nb }, () => 16 * rng.int(inN / 16));
    const constants = Uint32Array.from({ length: 16 }, () => (rng.int(2) === 0 ? 0 : rng.fe()));
    groups.push({ map: maps[rng.int(3)]!, cubeMask: k === 1 ? 1 : rng.int(2), constants, outBase, inBase });
  }
  const layer = structuredLayer(makeLayer(outBits, gates, []), groups);
  const circuit: StructuredCircuit = { inputWidthBits: inBits, layers: [layer] };
  const witness = evaluateStructuredCircuit(
    circuit,
    Uint32Array.from({ length: inN }, () => rng.fe()),
  );
  return { circuit, witness, layer, rng };
}

const laneSkip = skip || !hasLaneRoundKernel(kernels!) ? "kernel module without gkr_round_lane0" : false;

test("gkr_round_lane0 (Pow3 only on lane 0 of 16-lane blocks) gives gkr_round's round polynomials and the TypeScript reference's, for random layers, claims and challenges", {
  skip: laneSkip,
}, () => {
  const timed = GkrKernels.create({ timed: true });
  const lane = structuredWasmLayerOracleFactory(timed, "wasm", { laneRounds: true });
  const plain = structuredWasmLayerOracleFactory(kernels!, "wasm", { laneRounds: false });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 0x7fffffff }), fc.integer({ min: 1, max: 3 }), (seed, nClaims) => {
      const { circuit, witness, layer, rng } = laneZeroCase(seed);
      assert.ok(cubesOnLaneZero(layer, layer.linear));
      const ext = (): Ext => [rng.fe(), rng.fe(), rng.fe(), rng.fe()];
      const s = circuit.inputWidthBits;
      const claims = Array.from({ length: nClaims }, () => ({
        point: Array.from({ length: layer.widthBits }, ext),
        coeff: ext(),
      }));
      const input: LayerOracleInput = { layer, layerIndex: 0, inputBits: s, below: witness[1]!, claims };
      sameRounds(
        [structuredLayerOracle(input), plain(input), lane(input)],
        Array.from({ length: 2 * s }, ext),
        `seed ${seed}`,
      );
    }),
    { numRuns: 60 },
  );
  const calls = timed.timings!.get("gkr_round_lane0")!.calls;
  assert.ok(calls >= 60, `the lane-0 kernel ran (${calls} rounds)`);
});

test("gkr_round_lane0 applies only where every cubed input is ≡ 0 mod 16", () => {
  const { layer } = laneZeroCase(11);
  assert.equal(cubesOnLaneZero(layer, layer.linear), true);
  const shifted = structuredLayer(
    makeLayer(layer.widthBits, [{ kind: GateKind.Pow3, out: 0, in1: 17, in2: 17, coeff: 1 }], []),
    layer.linear,
  );
  assert.equal(cubesOnLaneZero(shifted, shifted.linear), false, "a Pow3 gate on lane 1");
  const g = layer.linear[0]!;
  const lane1 = structuredLayer(makeLayer(layer.widthBits, [], []), [{ ...g, cubeMask: 2 }]);
  assert.equal(cubesOnLaneZero(lane1, lane1.linear), false, "a group cubing lane 1");
  const none = structuredLayer(makeLayer(layer.widthBits, [], []), [{ ...g, cubeMask: 0 }]);
  assert.equal(cubesOnLaneZero(none, none.linear), false, "no cubed input at all");
  const eight = structuredLayer(makeLayer(layer.widthBits, [], []), [
    { ...g, map: identityMap(3), cubeMask: 1, constants: g.constants.subarray(0, 8) },
  ]);
  assert.equal(cubesOnLaneZero(eight, eight.linear), false, "8-lane blocks");
});

test("whole proofs of the real v2 circuits (depth 3 and 24, every kind) are the same with and without gkr_round_lane0, and equal the TypeScript reference's at depth 3", {
  skip: laneSkip,
}, () => {
  const lane = structuredWasmLayerOracleFactory(kernels!, "wasm", { laneRounds: true });
  const plain = structuredWasmLayerOracleFactory(kernels!, "wasm", { laneRounds: false, tensorWeights: false });
  for (const depth of [3, 24]) {
    for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
      const { circuit, witness } = v2Case(kind, depth, 5n);
      assert.ok(circuit.layers.filter((l) => cubesOnLaneZero(l, l.linear)).length >= 20, "the internal rounds qualify");
      const a = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), { oracleFactory: lane });
      const b = proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), { oracleFactory: plain });
      assert.deepEqual(a, b, `kind ${kind} depth ${depth}`);
      if (depth === 3)
        assert.deepEqual(
          a,
          proveStructuredGkr(circuit, witness, transcriptAfterOutputs(witness[0]!), {
            oracleFactory: structuredLayerOracle,
          }),
          `kind ${kind}: TypeScript reference`,
        );
    }
  }
});

const tensorSkip = skip || !hasTensorWeightsKernel(kernels!) ? "kernel module without gkr_weights_tensor" : false;

test("gkr_weights_tensor writes gkr_weights' claim weights (1..3 claims, 2..10 bits, random and edge points)", {
  skip: tensorSkip,
}, () => {
  const k = kernels!;
  const raw = k.raw as unknown as {
    gkr_weights_tensor(dst: number, claims: number, n: number, bits: number, scratch: number): void;
  };
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 10 }),
      fc.array(fc.tuple(fc.array(arbExt, { minLength: 10, maxLength: 10 }), arbExt), { minLength: 1, maxLength: 3 }),
      (bits, claims) => {
        const n = 2 ** bits;
        const pointWords = 4 * claims.length * (bits + 1);
        const scratchWords = 4 * claims.length * (2 ** (bits >> 1) + 5 * 2 ** (bits - (bits >> 1)) + 2 * (bits + 1));
        const region = k.acquire(pointWords + 12 * n + scratchWords);
        try {
          const base = region.ptr >>> 2;
          const pts = base,
            ref = pts + pointWords,
            tmp = ref + 4 * n,
            got = tmp + 4 * n,
            scr = got + 4 * n;
          const w = k.words();
          let c = pts;
          for (const [point, coeff] of claims) {
            for (const z of point.slice(0, bits)) {
              w.set(z, c);
              c += 4;
            }
            w.set(coeff, c);
            c += 4;
          }
          k.raw.gkr_weights(4 * ref, 4 * tmp, 4 * pts, claims.length, bits);
          raw.gkr_weights_tensor(4 * got, 4 * pts, claims.length, bits, 4 * scr);
          const v = k.words();
          assert.deepEqual(v.slice(got, got + 4 * n), v.slice(ref, ref + 4 * n));
        } finally {
          k.giveBack(region);
        }
      },
    ),
    { numRuns: 120 },
  );
});
