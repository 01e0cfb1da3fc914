import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P, mul } from "../../src/field/koalabear.js";
import { EXT_ONE, type Ext } from "../../src/field/extension.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import { GateKind, evaluateCircuit, inputBitsOf, makeLayer } from "../../src/gkr/circuit.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { sparseLayerOracle } from "../../src/gkr/sparse-oracle.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { DerivedRegularWiring } from "../../src/gkr/wiring/derived.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import { CircuitError } from "../../src/gkr/errors.js";
import type { LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import {
  type StructuredCircuit,
  evaluateStructuredCircuit,
  expandStructuredCircuit,
  expandStructuredLayer,
  structuredLayer,
  validateStructuredCircuit,
} from "../../src/gkr/structured/linear.js";
import {
  POSEIDON2_EXTERNAL,
  POSEIDON2_INTERNAL,
  denseApply,
  identityMap,
  linearMapOf,
  type LinearMap,
} from "../../src/gkr/structured/maps.js";
import { proveStructuredGkr, structuredLayerOracle } from "../../src/gkr/structured/oracle.js";
import { StructuredWiring, blockProgression } from "../../src/gkr/structured/wiring.js";
import type { WiringOracle } from "../../src/gkr/wiring/oracle.js";
import { DenseLayerOracle, denseLayerOracle } from "../support/dense-oracle.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { Rng, arbStructuredCase, type StructuredCase } from "./random-structured.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const MAPS: LinearMap[] = [POSEIDON2_EXTERNAL, POSEIDON2_INTERNAL, ...[0, 1, 2, 3, 4].map(identityMap)];

function denseTranspose(m: LinearMap, w: ArrayLike<number>): Uint32Array {
  const n = 2 ** m.laneBits;
  const out = new Uint32Array(n);
  for (let x = 0; x < n; x++) {
    let acc = 0;
    for (let z = 0; z < n; z++) acc = (acc + mul(m.dense[z]![x]!, w[z]!)) % P;
    out[x] = acc;
  }
  return out;
}

test("every linear map's factored programs equal its dense matrix (M·v and Mᵀ·w), on random and edge vectors", () => {
  for (const m of MAPS) {
    const n = 2 ** m.laneBits;
    fc.assert(
      fc.property(fc.array(fe, { minLength: n, maxLength: n }), (v) => {
        const out = new Uint32Array(n);
        m.apply(v, out);
        assert.deepEqual(out, denseApply(m, v), `${m.name} apply`);
        m.applyTranspose(v, out);
        assert.deepEqual(out, denseTranspose(m, v), `${m.name} transpose`);
      }),
      { numRuns: 60 },
    );
    for (const edge of [0, 1, P - 1]) {
      const v = new Array(n).fill(edge);
      const out = new Uint32Array(n);
      m.applyTranspose(v, out);
      assert.deepEqual(out, denseTranspose(m, v));
    }
    assert.equal(linearMapOf(m.id, m.laneBits), m);
  }
  assert.throws(
    () => linearMapOf(1, 3),
    (e) => e instanceof CircuitError && e.code === "BAD_LINEAR_GROUP",
  );
  assert.throws(
    () => identityMap(5),
    (e) => e instanceof CircuitError && e.code === "BAD_LINEAR_GROUP",
  );
  // the dense forms are the compat-v1 §3 matrices: spot values
  assert.equal(POSEIDON2_EXTERNAL.dense[0]![0], 4);
  assert.equal(POSEIDON2_EXTERNAL.dense[0]![4], 2);
  assert.equal(POSEIDON2_INTERNAL.dense[1]![0], 1);
  assert.equal(POSEIDON2_INTERNAL.dense[0]![0], P - 1); // 1 + (−2)
});

test("structured circuits evaluate exactly as their dense expansion", () => {
  fc.assert(
    fc.property(arbStructuredCase(), (c) => {
      assert.deepEqual(c.witness, evaluateCircuit(expandStructuredCircuit(c.circuit), c.input));
    }),
    { numRuns: 150 },
  );
});

function coefficients(o: LayerSumcheckOracle): Ext[] {
  const msg = o.roundPolynomial();
  assert.equal(msg.kind, "evaluations");
  return interpolateRoundPoly(msg.values);
}

test("structured and dense oracles give identical round polynomials for arbitrary claims and challenges", () => {
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
  let groups = 0;
  fc.assert(
    fc.property(arb, ([c, rawClaims, challenges]) => {
      const layer = c.circuit.layers[0]!;
      groups += layer.linear.length;
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      const base = { layerIndex: 0, inputBits: inputBitsOf(c.circuit, 0), below: c.witness[1]!, claims };
      const structured = structuredLayerOracle({ ...base, layer } as LayerOracleInput);
      const dense = new DenseLayerOracle({ ...base, layer: expandStructuredLayer(layer) });
      assert.equal(structured.numVariables, dense.numVariables);
      challenges.forEach((r, j) => {
        assert.deepEqual(coefficients(structured), coefficients(dense), `round ${j}`);
        structured.bind(r);
        dense.bind(r);
      });
      assert.deepEqual(structured.evalX(), dense.evalX());
      assert.deepEqual(structured.evalY(), dense.evalY());
    }),
    { numRuns: 120 },
  );
  assert.ok(groups > 50, `the generator produced linear groups (${groups})`);
});

test("whole proofs: structured oracle = dense oracle = sparse oracle on the dense expansion", () => {
  fc.assert(
    fc.property(arbStructuredCase(), (c) => {
      const expanded = expandStructuredCircuit(c.circuit);
      const a = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
      const b = proveGkr(expanded, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: denseLayerOracle,
      });
      const d = proveGkr(expanded, c.witness, transcriptAfterOutputs(c.witness[0]!), {
        oracleFactory: sparseLayerOracle,
      });
      assert.deepEqual(a, b);
      assert.deepEqual(a, d);
    }),
    { numRuns: 60 },
  );
});

function wirings(circuit: StructuredCircuit): { name: string; w: WiringOracle }[] {
  return [
    { name: "table", w: new StructuredWiring(circuit, new TableWiring(circuit), "table") },
    { name: "closed-form", w: new StructuredWiring(circuit, new DerivedRegularWiring(circuit), "closed-form") },
  ];
}

test("table and closed-form wiring equal the table wiring of the dense expansion at random points", () => {
  let closed = 0;
  const arb = arbStructuredCase({ maxDepth: 2 }).chain((c) => {
    const i = 0;
    const sOut = c.circuit.layers[i]!.widthBits;
    const s = inputBitsOf(c.circuit, i);
    const pt = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
    return fc.tuple(fc.constant(c), fc.array(fc.tuple(pt(sOut), arbExt), { minLength: 1, maxLength: 2 }), pt(s), pt(s));
  });
  fc.assert(
    fc.property(arb, ([c, rawClaims, x, y]) => {
      const ref = new TableWiring(expandStructuredCircuit(c.circuit));
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      for (const { name, w } of wirings(c.circuit)) {
        if (w instanceof StructuredWiring && name === "closed-form") closed += w.closedFormGroups.closed;
        assert.deepEqual(w.evalCombined!(0, claims, x, y), ref.evalCombined(0, claims, x, y), name);
        assert.deepEqual(w.evalConstCombined!(0, claims), ref.evalConstCombined(0, claims), name);
        const z = claims[0]!.point;
        for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3])
          assert.deepEqual(
            w.evalPredicate(0, kind, z, x, y),
            ref.evalPredicate(0, kind, z, x, y),
            `${name} kind ${kind}`,
          );
        assert.deepEqual(w.evalConst(0, z), ref.evalConst(0, z), name);
      }
    }),
    { numRuns: 150 },
  );
  assert.ok(closed > 50, `closed-form groups were exercised (${closed})`);
});

function accepts(
  c: StructuredCase,
  proof: unknown,
  wiring: WiringOracle,
  circuit: StructuredCircuit = c.circuit,
): boolean {
  const res = verifyGkr(
    shapeOf(circuit),
    wiring,
    Array.from(c.witness[0]!),
    proof,
    transcriptAfterOutputs(c.witness[0]!),
  );
  return res.ok && checkInputClaim(c.input, res.inputClaim);
}

test("random structured circuits: honest proofs verify with both wirings; a changed coefficient, evaluation or input is rejected", () => {
  fc.assert(
    fc.property(arbStructuredCase(), fc.nat(), (c, pick) => {
      const { proof } = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
      for (const { name, w } of wirings(c.circuit)) assert.ok(accepts(c, proof, w), name);
      const w = wirings(c.circuit)[pick % 2]!.w;
      const bad = JSON.parse(JSON.stringify(proof));
      const layers = bad.layers as { rounds: number[][][]; evalX: number[]; evalY: number[] }[];
      const withRounds = layers.filter((l) => l.rounds.length > 0);
      if (withRounds.length > 0) {
        const l = withRounds[pick % withRounds.length]!;
        const r = l.rounds[pick % l.rounds.length]!;
        r[pick % 5]![0] = (r[pick % 5]![0]! + 1) % P;
        assert.ok(!accepts(c, bad, w), "changed round coefficient");
      }
      const bad2 = JSON.parse(JSON.stringify(proof));
      const l2 = bad2.layers[pick % bad2.layers.length];
      l2.evalX[0] = (l2.evalX[0] + 1) % P;
      assert.ok(!accepts(c, bad2, w), "changed eval_x");
      const input = c.input.slice();
      input[pick % input.length] = (input[pick % input.length]! + 1) % P;
      const res = verifyGkr(
        shapeOf(c.circuit),
        w,
        Array.from(c.witness[0]!),
        proof,
        transcriptAfterOutputs(c.witness[0]!),
      );
      assert.ok(res.ok && !checkInputClaim(input, res.inputClaim), "changed input");
    }),
    { numRuns: 80 },
  );
});

test("a verifier whose structured circuit differs (map, cube mask, constant) rejects the honest proof", () => {
  let checked = 0;
  for (let seed = 1; checked < 40 && seed < 5000; seed++) {
    const c = arbSample(seed);
    const li = c.circuit.layers.findIndex((l) => l.linear.length > 0);
    if (li < 0) continue;
    const layer = c.circuit.layers[li]!;
    const g = layer.linear[0]!;
    // only changes that change the layer's values are forgeries the verifier must see
    const variants = [
      { ...g, cubeMask: g.cubeMask ^ 1 },
      { ...g, constants: g.constants.map((v, z) => (z === 0 ? (v + 1) % P : v)) },
      {
        ...g,
        map:
          g.map === POSEIDON2_EXTERNAL ? POSEIDON2_INTERNAL : g.map === POSEIDON2_INTERNAL ? POSEIDON2_EXTERNAL : g.map,
      },
    ];
    const { proof } = proveStructuredGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
    for (const v of variants) {
      const forged: StructuredCircuit = {
        ...c.circuit,
        layers: c.circuit.layers.map((l, i) => (i === li ? structuredLayer(l, [v, ...l.linear.slice(1)]) : l)),
      };
      const same = evaluateStructuredCircuit(forged, c.input)[li]!.every((x, k) => x === c.witness[li]![k]);
      if (same) continue;
      for (const mode of ["table", "closed-form"] as const) {
        const w = new StructuredWiring(forged, new TableWiring(forged), mode);
        assert.ok(!accepts(c, proof, w, forged), `seed ${seed} ${mode}`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 40, `forgeries checked: ${checked}`);
});

function arbSample(seed: number): StructuredCase {
  return fc.sample(arbStructuredCase(), { seed, numRuns: 1 })[0]!;
}

test("block progressions are recognised only when the block-index bits are clear in the base", () => {
  assert.deepEqual(blockProgression(Uint32Array.from([0, 32, 64, 96]), 4), { base: 0, shift: 1, bits: 2 });
  assert.deepEqual(blockProgression(Uint32Array.from([16, 48, 80]), 4), { base: 1, shift: 1, bits: 2 });
  assert.deepEqual(blockProgression(Uint32Array.from([48]), 4), { base: 3, shift: 0, bits: 0 });
  assert.equal(blockProgression(Uint32Array.from([32, 64]), 4), null); // q = 2, 4: bit 1 of 2 is set
  assert.equal(blockProgression(Uint32Array.from([0, 48]), 4), null); // stride 3
  assert.equal(blockProgression(Uint32Array.from([0, 16, 48]), 4), null); // not arithmetic
  assert.equal(blockProgression(new Uint32Array(0), 4), null);
});

test("validateStructuredCircuit names the broken group rule", () => {
  const base = makeLayer(5, []);
  const good = {
    map: POSEIDON2_EXTERNAL,
    cubeMask: 0,
    constants: new Uint32Array(16),
    outBase: Uint32Array.from([16]),
    inBase: Uint32Array.from([0]),
  };
  const mk = (g: object): StructuredCircuit => ({
    inputWidthBits: 4,
    layers: [structuredLayer(base, [g as typeof good])],
  });
  validateStructuredCircuit(mk(good));
  const cases: [object, RegExp][] = [
    [{ ...good, map: { ...POSEIDON2_EXTERNAL } }, /unknown linear map/],
    [{ ...good, cubeMask: 2 ** 16 }, /cube mask/],
    [{ ...good, constants: new Uint32Array(8) }, /constants/],
    [{ ...good, constants: new Uint32Array(16).fill(P) }, /≥ p/],
    [{ ...good, inBase: Uint32Array.from([0, 0]) }, /same length/],
    [{ ...good, outBase: Uint32Array.from([8]) }, /multiples/],
    [{ ...good, outBase: Uint32Array.from([32]) }, /outside the layer width/],
    [{ ...good, inBase: Uint32Array.from([16]) }, /outside the width 16/],
  ];
  for (const [g, re] of cases) {
    assert.throws(
      () => validateStructuredCircuit(mk(g)),
      (e) => e instanceof CircuitError && e.code === "BAD_LINEAR_GROUP" && re.test(e.message),
      String(re),
    );
  }
  assert.throws(
    () => proveStructuredGkr(mk(cases[1]![0]), [], transcriptAfterOutputs([])),
    (e) => e instanceof CircuitError && e.code === "BAD_LINEAR_GROUP",
  );
});

test("booking a group costs one factored transpose per block and coordinate plane, not 2^(2b) gate visits", () => {
  const rng = new Rng(7);
  const blocks = 64;
  const outBase = Uint32Array.from({ length: blocks }, (_, b) => 16 * b);
  let calls = 0;
  const group = { map: POSEIDON2_EXTERNAL, cubeMask: 0xffff, constants: new Uint32Array(16), outBase, inBase: outBase };
  const circuit: StructuredCircuit = { inputWidthBits: 10, layers: [structuredLayer(makeLayer(10, []), [group])] };
  const input = Uint32Array.from({ length: 1024 }, () => rng.fe());
  const witness = evaluateStructuredCircuit(circuit, input);
  const orig = POSEIDON2_EXTERNAL.applyTranspose;
  const spy: LinearMap = Object.freeze({
    ...POSEIDON2_EXTERNAL,
    applyTranspose: (w: ArrayLike<number>, out: Uint32Array) => {
      calls++;
      orig(w, out);
    },
  });
  const oracle = structuredLayerOracle({
    layer: structuredLayer(circuit.layers[0]!, [{ ...group, map: spy }]),
    layerIndex: 0,
    inputBits: 10,
    below: witness[1]!,
    claims: [{ point: new Array(10).fill(EXT_ONE), coeff: EXT_ONE }],
  });
  assert.equal(calls, 4 * blocks, "one transpose per block and coordinate plane");
  assert.equal(oracle.numVariables, 20);
});

test("sumBelowFlat (allocation-free) equals the tuple reference sumBelow for every count up to 2^m + 1, m = 0..6, random and edge coordinates", async () => {
  const { sumBelow } = await import("../../src/gkr/structured/wiring.js");
  const { sumBelowFlat } = await import("../../src/gkr/structured/closed-form.js");
  const { extRandom } = await import("../../src/field/extension.js");
  for (let m = 0; m <= 6; m++) {
    for (const edge of [false, true]) {
      const pick = (i: number): [number, number, number, number] =>
        edge
          ? ([
              [0, 0, 0, 0],
              [1, 0, 0, 0],
              [P - 1, P - 1, 0, 1],
            ][i % 3] as [number, number, number, number])
          : (extRandom() as [number, number, number, number]);
      const one = Array.from({ length: m }, (_, i) => pick(i)),
        zero = Array.from({ length: m }, (_, i) => pick(i + 1));
      const flat = (xs: readonly (readonly number[])[]) => Uint32Array.from(xs.flat());
      for (let count = 0; count <= 2 ** m + 1; count++) {
        const out = new Uint32Array(4);
        sumBelowFlat(out, flat(one), flat(zero), m, count);
        assert.deepEqual(Array.from(out), [...sumBelow(one, zero, count)], `m ${m} count ${count} edge ${edge}`);
      }
    }
  }
});
