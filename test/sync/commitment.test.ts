import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  circuitCommitment,
  circuitCommitmentReference,
  commitmentHeader,
  commitmentLength,
  type CommitmentHeader,
} from "../../src/sync/commitment.js";
import { compile } from "../../src/smt/compile.js";
import { CircuitBuilder } from "../../src/gkr/builder.js";
import { makeLayer, type Circuit, type GateKind } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { P } from "../../src/field/koalabear.js";
import { OpKind } from "../../src/statement/types.js";
import { DEFAULT_CONFIG } from "../../src/smt/config.js";

test("§18: the d24 Membership commitment equals the pinned value", () => {
  const c = compile(OpKind.Membership);
  const com = circuitCommitment(commitmentHeader(OpKind.Membership, c.config), c.circuit);
  assert.deepEqual(
    Array.from(com),
    [438623915, 1302919243, 1221834511, 1542247335, 222756456, 991215267, 847238870, 120576555],
  );
  const bytes = Buffer.alloc(32);
  com.forEach((x, i) => bytes.writeUInt32LE(x, 4 * i));
  assert.equal(bytes.toString("hex"), "abde241a4bf8a84d0fb7d348a7d3ec5b68fe460da3be143bd6d67f322bda2f07");
  assert.equal(commitmentLength(c.circuit), 7 + 118 * 3 + 5 * 240_208 + 2 * 4_144);
});

test("differential: the fast absorb equals the DuplexChallenger reference on compiled circuits", () => {
  for (const [kind, depth] of [
    [OpKind.Membership, 1],
    [OpKind.NonMembership, 1],
    [OpKind.Update, 1],
  ] as const) {
    const c = compile(kind, { depth, leafMaxFields: 10 });
    const h = commitmentHeader(kind, c.config);
    assert.deepEqual(circuitCommitment(h, c.circuit), circuitCommitmentReference(h, c.circuit), `kind ${kind}`);
  }
});

test("differential: fast absorb equals the reference on random small circuits (every buffer alignment)", () => {
  const gate = fc.record({
    kind: fc.constantFrom(0, 1, 2),
    out: fc.nat(7),
    in1: fc.nat(7),
    in2: fc.nat(7),
    coeff: fc.integer({ min: 0, max: P - 1 }),
  });
  const layer = fc.record({
    gates: fc.array(gate, { maxLength: 9 }),
    consts: fc.array(fc.record({ wire: fc.nat(7), value: fc.integer({ min: 0, max: P - 1 }) }), { maxLength: 5 }),
  });
  fc.assert(
    fc.property(fc.array(layer, { minLength: 1, maxLength: 4 }), fc.nat(64), fc.nat(2), (layers, depth, kindTag) => {
      const circuit: Circuit = {
        layers: layers.map((l) =>
          makeLayer(
            3,
            l.gates.map((g) => ({ ...g, in2: g.kind === 1 ? g.in2 : g.in1 })),
            l.consts,
          ),
        ),
        inputWidthBits: 3,
      };
      const h: CommitmentHeader = { kindTag, depth, leafMaxFields: 31, strategyId: 0, strategyArg: 0 };
      assert.deepEqual(circuitCommitment(h, circuit), circuitCommitmentReference(h, circuit));
    }),
    { numRuns: 200 },
  );
});

test("every committed item matters: header fields, a gate field, emission order, a constant", () => {
  const b = new CircuitBuilder();
  const x = b.input(0),
    y = b.input(1);
  const { circuit } = b.build([
    b.affine(
      [
        [b.mul(x, y), 3],
        [x, 1],
      ],
      9,
    ),
  ]);
  const h = commitmentHeader(OpKind.Membership, DEFAULT_CONFIG);
  const base = Array.from(circuitCommitment(h, circuit));
  const differs = (hh: CommitmentHeader, c: Circuit) => assert.notDeepEqual(Array.from(circuitCommitment(hh, c)), base);
  differs({ ...h, kindTag: 1 }, circuit);
  differs({ ...h, depth: 25 }, circuit);
  differs({ ...h, leafMaxFields: 32 }, circuit);
  differs({ ...h, strategyArg: 1 }, circuit);
  differs(h, { ...circuit, inputWidthBits: 2 });
  const top = circuit.layers[0]!;
  const swapped = makeLayer(
    top.widthBits,
    [
      {
        kind: top.gateKind[1]! as GateKind,
        out: top.gateOut[1]!,
        in1: top.gateIn1[1]!,
        in2: top.gateIn2[1]!,
        coeff: top.gateCoeff[1]!,
      },
      {
        kind: top.gateKind[0]! as GateKind,
        out: top.gateOut[0]!,
        in1: top.gateIn1[0]!,
        in2: top.gateIn2[0]!,
        coeff: top.gateCoeff[0]!,
      },
    ],
    [{ wire: 0, value: 9 }],
  );
  differs(h, { ...circuit, layers: [swapped, circuit.layers[1]!] });
  const constChanged = makeLayer(
    top.widthBits,
    [0, 1].map((g) => ({
      kind: top.gateKind[g]! as GateKind,
      out: top.gateOut[g]!,
      in1: top.gateIn1[g]!,
      in2: top.gateIn2[g]!,
      coeff: top.gateCoeff[g]!,
    })),
    [{ wire: 0, value: 10 }],
  );
  differs(h, { ...circuit, layers: [constChanged, circuit.layers[1]!] });
});

test("a scalar ≥ p is a hard error, never reduced", () => {
  const bad = makeLayer(1, [{ kind: 0, out: 0, in1: 0, in2: 0, coeff: P }]);
  const h = commitmentHeader(OpKind.Membership, DEFAULT_CONFIG);
  assert.throws(
    () => circuitCommitment(h, { layers: [bad], inputWidthBits: 1 }),
    (e: unknown) => e instanceof CircuitError && e.code === "NON_CANONICAL_COEFF",
  );
  const ok = makeLayer(1, [{ kind: 0, out: 0, in1: 0, in2: 0, coeff: 1 }]);
  assert.throws(() => circuitCommitment({ ...h, depth: P }, { layers: [ok], inputWidthBits: 1 }), CircuitError);
});
