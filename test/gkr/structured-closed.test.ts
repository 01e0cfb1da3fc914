/**
 * The allocation-free closed form of `StructuredWiring` (src/gkr/structured/closed-form.ts): groups
 * in closed form and layers whose plain gates are runs of copies, against the table wiring of the
 * dense expansion (the plain reference) on random circuits, at random and edge points, and on
 * the v2 SMT circuits of every kind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, type Ext } from "../../src/field/extension.js";
import { type Gate, GateKind, inputBitsOf, makeLayer } from "../../src/gkr/circuit.js";
import type { Claim } from "../../src/gkr/claims.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { DerivedRegularWiring } from "../../src/gkr/wiring/derived.js";
import type { WiringOracle } from "../../src/gkr/wiring/oracle.js";
import { type StructuredCircuit, expandStructuredCircuit, structuredLayer } from "../../src/gkr/structured/linear.js";
import { StructuredWiring } from "../../src/gkr/structured/wiring.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { OpKind } from "../../src/statement/types.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { prepareV2, proveV2, verifyV2 } from "../../src/sync/v2/index.js";
import { Rng, randomStructuredCase } from "./random-structured.js";

/** Plain gates as runs out = O + b ← in = I + b (aligned or not), sometimes overlapping, sometimes with a stray gate. */
function runGates(rng: Rng, outBits: number, inBits: number): { gates: Gate[]; aligned: boolean } {
  const gates: Gate[] = [];
  let aligned = true;
  const nRuns = rng.int(4);
  for (let r = 0; r < nRuns; r++) {
    const maxBits = Math.min(outBits, inBits);
    const bits = rng.int(maxBits + 1);
    const count = bits === 0 ? 1 : 2 ** (bits - 1) + 1 + rng.int(2 ** (bits - 1));
    const misalign = rng.int(6) === 0 && bits > 0 ? 1 + rng.int(2) : 0; // 1: output side, 2: input side
    const o = rng.int(2 ** (outBits - bits)) * 2 ** bits + (misalign === 1 ? 1 : 0);
    const i = rng.int(2 ** (inBits - bits)) * 2 ** bits + (misalign === 2 ? 1 : 0);
    if (misalign) aligned = false;
    const coeff = [1, 0, P - 1, rng.fe()][rng.int(4)]!;
    for (let b = 0; b < count; b++)
      if (o + b < 2 ** outBits && i + b < 2 ** inBits)
        gates.push({ kind: GateKind.Lin, out: o + b, in1: i + b, in2: i + b, coeff });
  }
  // shuffle: the recogniser sorts by output
  for (let g = gates.length - 1; g > 0; g--) {
    const h = rng.int(g + 1);
    [gates[g], gates[h]] = [gates[h]!, gates[g]!];
  }
  return { gates, aligned };
}

/** A random structured circuit whose plain gates are runs (kind "runs"), or runs plus a Mul gate or a constant. */
function runsCircuit(seed: number): StructuredCircuit {
  const base = randomStructuredCase(seed, { maxDepth: 3, minBits: 2, maxBits: 6 }).circuit;
  const rng = new Rng(seed ^ 0x5bd1e995);
  const layers = base.layers.map((layer, i) => {
    const outBits = layer.widthBits,
      inBits = inputBitsOf(base, i);
    const { gates } = runGates(rng, outBits, inBits);
    const consts: { wire: number; value: number }[] = [];
    const spoil = rng.int(6);
    if (spoil === 0)
      gates.push({
        kind: GateKind.Mul,
        out: rng.int(2 ** outBits),
        in1: rng.int(2 ** inBits),
        in2: rng.int(2 ** inBits),
        coeff: rng.fe(),
      });
    if (spoil === 1) consts.push({ wire: rng.int(2 ** outBits), value: rng.fe() });
    return structuredLayer(makeLayer(outBits, gates, consts), layer.linear);
  });
  return { inputWidthBits: base.inputWidthBits, layers };
}

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.oneof(
  fc.tuple(fe, fe, fe, fe).map((t) => t as Ext),
  fc.constantFrom<Ext>([0, 0, 0, 0], [1, 0, 0, 0], [P - 1, 0, 0, 0], [2, 0, 0, 0], [0, 1, 0, 0]),
);

function assertSameWiring(
  w: WiringOracle,
  ref: WiringOracle,
  layer: number,
  claims: readonly Claim[],
  x: readonly Ext[],
  y: readonly Ext[],
  what: string,
): void {
  assert.deepEqual(
    w.evalCombined!(layer, claims, x, y),
    ref.evalCombined!(layer, claims, x, y),
    `${what}: evalCombined`,
  );
  assert.deepEqual(
    w.evalConstCombined!(layer, claims),
    ref.evalConstCombined!(layer, claims),
    `${what}: evalConstCombined`,
  );
  const z = claims[0]!.point;
  for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3])
    assert.deepEqual(
      w.evalPredicate(layer, kind, z, x, y),
      ref.evalPredicate(layer, kind, z, x, y),
      `${what}: kind ${kind}`,
    );
  assert.deepEqual(w.evalConst(layer, z), ref.evalConst(layer, z), `${what}: evalConst`);
}

test("closed form with plain-gate runs equals the table wiring of the dense expansion on every layer, random and edge points", () => {
  let plainLayers = 0,
    layersSeen = 0;
  const arb = fc.integer({ min: 1, max: 0x7fffffff }).chain((seed) => {
    const circuit = runsCircuit(seed);
    const perLayer = circuit.layers.map((l, i) => {
      const pt = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
      const s = inputBitsOf(circuit, i);
      return fc.tuple(fc.array(fc.tuple(pt(l.widthBits), arbExt), { minLength: 1, maxLength: 3 }), pt(s), pt(s));
    });
    return fc.tuple(fc.constant(circuit), fc.tuple(...perLayer));
  });
  fc.assert(
    fc.property(arb, ([circuit, points]) => {
      const ref = new TableWiring(expandStructuredCircuit(circuit));
      const closed = new StructuredWiring(circuit, new DerivedRegularWiring(circuit), "closed-form");
      const table = new StructuredWiring(circuit, new TableWiring(circuit), "table");
      plainLayers += closed.closedPlainLayers;
      layersSeen += circuit.layers.length;
      assert.equal(table.closedPlainLayers, 0, "table mode never takes the closed form");
      points.forEach(([raw, x, y], i) => {
        const claims = raw.map(([point, coeff]) => ({ point, coeff }));
        assertSameWiring(closed, ref, i, claims, x, y, `closed layer ${i}`);
        assertSameWiring(table, ref, i, claims, x, y, `table layer ${i}`);
      });
    }),
    { numRuns: 150 },
  );
  assert.ok(
    plainLayers > 0.4 * layersSeen,
    `the closed form of plain gates was exercised (${plainLayers} of ${layersSeen} layers)`,
  );
  assert.ok(
    plainLayers < layersSeen,
    "layers outside the closed form (a Mul gate, a constant, a misaligned run) were exercised",
  );
});

test("plain gates take the closed form only as aligned Lin runs without constants", () => {
  const mk = (gates: Gate[], consts: { wire: number; value: number }[] = []): StructuredCircuit => ({
    inputWidthBits: 5,
    layers: [structuredLayer(makeLayer(5, gates, consts), [])],
  });
  const lin = (out: number, in1: number, coeff = 1): Gate => ({ kind: GateKind.Lin, out, in1, in2: in1, coeff });
  const cases: { name: string; c: StructuredCircuit; closed: boolean }[] = [
    { name: "no gates", c: mk([]), closed: true },
    { name: "one aligned run of 5", c: mk([8, 9, 10, 11, 12].map((o) => lin(o, o + 8))), closed: true },
    {
      name: "two runs, shuffled, one coefficient each",
      c: mk([lin(17, 1, 3), lin(0, 4), lin(16, 0, 3), lin(1, 5)]),
      closed: true,
    },
    { name: "overlapping runs (a gate twice)", c: mk([lin(4, 4), lin(4, 4), lin(5, 5)]), closed: true },
    { name: "misaligned run", c: mk([lin(3, 3), lin(4, 4)]), closed: false },
    { name: "run misaligned on the output side", c: mk([lin(3, 4), lin(4, 5)]), closed: false },
    { name: "run misaligned on the input side", c: mk([lin(4, 3), lin(5, 4)]), closed: false },
    { name: "a constant", c: mk([lin(0, 0)], [{ wire: 2, value: 5 }]), closed: false },
    { name: "a Pow3 gate", c: mk([{ kind: GateKind.Pow3, out: 0, in1: 0, in2: 0, coeff: 1 }]), closed: false },
    { name: "a Mul gate", c: mk([{ kind: GateKind.Mul, out: 0, in1: 0, in2: 1, coeff: 1 }]), closed: false },
    { name: "more than 8 runs", c: mk(Array.from({ length: 9 }, (_, k) => lin(2 * k, (3 * k) % 32))), closed: false },
  ];
  const rng = new Rng(99);
  const pt = (n: number): Ext[] => Array.from({ length: n }, () => [rng.fe(), rng.fe(), rng.fe(), rng.fe()] as Ext);
  for (const { name, c, closed } of cases) {
    const w = new StructuredWiring(c, new DerivedRegularWiring(c));
    assert.equal(w.closedPlainLayers, closed ? 1 : 0, name);
    const ref = new TableWiring(expandStructuredCircuit(c));
    for (let r = 0; r < 5; r++)
      assertSameWiring(
        w,
        ref,
        0,
        [
          { point: pt(5), coeff: EXT_ONE },
          { point: pt(5), coeff: pt(1)[0]! },
        ],
        pt(5),
        pt(5),
        name,
      );
  }
});

test("v2 circuits: the plain gates of every Poseidon2 round layer are in closed form and equal the table mode on the real circuits", () => {
  const rng = new Rng(2024);
  const pt = (n: number): Ext[] => Array.from({ length: n }, () => [rng.fe(), rng.fe(), rng.fe(), rng.fe()] as Ext);
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    for (const depth of [3, 24]) {
      const { circuit } = compileV2(kind, { depth });
      const closed = new StructuredWiring(circuit, new DerivedRegularWiring(circuit), "closed-form");
      const table = new StructuredWiring(circuit, new TableWiring(circuit), "table");
      assert.equal(closed.closedPlainLayers, circuit.layers.length - 2, `kind ${kind} d${depth}: layers 1..29`);
      assert.deepEqual(closed.closedFormGroups, {
        closed: closed.closedFormGroups.total,
        total: closed.closedFormGroups.total,
      });
      for (const i of [0, 1, 4, 5, 15, 28, 29, 30]) {
        const l = circuit.layers[i]!,
          s = inputBitsOf(circuit, i);
        const claims =
          i === 0
            ? [{ point: pt(l.widthBits), coeff: EXT_ONE }]
            : [
                { point: pt(l.widthBits), coeff: EXT_ONE },
                { point: pt(l.widthBits), coeff: pt(1)[0]! },
              ];
        assertSameWiring(closed, table, i, claims, pt(s), pt(s), `kind ${kind} d${depth} layer ${i}`);
      }
    }
  }
});

test("a verifier whose check copies differ from the prover's (coefficient, wire) rejects the honest proof", () => {
  const prepared = prepareV2(OpKind.Membership, { depth: 3 });
  const req = goldenFixture(OpKind.Membership, 3, 5n);
  const result = proveV2(prepared, req);
  assert.deepEqual(verifyV2(prepared, req, result), { ok: true });
  const circuit = prepared.compiled.circuit;
  const forge = (edit: (l: ReturnType<typeof makeLayer>) => void) => {
    const layers = circuit.layers.map((l, i) => {
      if (i !== 7) return l;
      const copy = { ...l, gateCoeff: l.gateCoeff.slice(), gateIn1: l.gateIn1.slice(), gateIn2: l.gateIn2.slice() };
      edit(copy);
      return copy;
    });
    const forged = { ...circuit, layers };
    const wiring = new StructuredWiring(forged, new DerivedRegularWiring(forged));
    assert.equal(wiring.closedPlainLayers, circuit.layers.length - 2);
    return verifyV2({ ...prepared, wiring }, req, result);
  };
  const coeff = forge((l) => {
    l.gateCoeff.fill(2);
  });
  assert.equal(!coeff.ok && coeff.code, "GKR_END_CHECK_FAILED");
  const wire = forge((l) => {
    let bits = 0;
    while (2 ** bits < l.gateIn1.length) bits++;
    for (let g = 0; g < l.gateIn1.length; g++) {
      l.gateIn1[g]! += 2 ** bits;
      l.gateIn2[g]! += 2 ** bits;
    }
  });
  assert.equal(!wire.ok && wire.code, "GKR_END_CHECK_FAILED");
});

test("a point reused or changed in place between evaluations gets the values of its current coordinates", () => {
  const { circuit } = compileV2(OpKind.Membership, { depth: 3 });
  const closed = new StructuredWiring(circuit, new DerivedRegularWiring(circuit), "closed-form");
  const ref = new StructuredWiring(circuit, new TableWiring(circuit), "table");
  const rng = new Rng(5);
  const bits = circuit.layers[3]!.widthBits;
  const x: Ext[] = Array.from({ length: bits }, () => [rng.fe(), rng.fe(), rng.fe(), rng.fe()] as Ext);
  const y: Ext[] = Array.from({ length: bits }, () => [rng.fe(), rng.fe(), rng.fe(), rng.fe()] as Ext);
  const z: Ext[] = x.map((c) => [...c] as unknown as Ext);
  const claims = [
    { point: z, coeff: EXT_ONE },
    { point: y, coeff: [3, 1, 4, 1] as Ext },
  ];
  for (let round = 0; round < 4; round++) {
    assertSameWiring(closed, ref, 3, claims, x, y, `round ${round}`);
    assertSameWiring(closed, ref, 3, claims, z, x, `round ${round}, z as x`);
    // change one lane coordinate of each point in place
    (x as Ext[])[bits - 1 - round] = [rng.fe(), rng.fe(), rng.fe(), rng.fe()];
    (z as Ext[])[bits - 2] = [rng.fe(), 0, 0, rng.fe()];
    (y as Ext[])[bits - 1] = [P - 1, 0, 0, 0];
  }
});
