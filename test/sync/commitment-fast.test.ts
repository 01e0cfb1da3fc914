import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  circuitCommitment,
  circuitCommitmentReference,
  circuitCommitments,
  circuitCommitmentScalar,
  commitmentHeader,
  commitmentLength,
  type CommitmentHeader,
} from "../../src/sync/commitment.js";
import { prepareAll } from "../../src/sync/prepare-all.js";
import { prepare } from "../../src/sync/prepared.js";
import { compile } from "../../src/smt/compile.js";
import { makeLayer, type Circuit, type Layer } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { P } from "../../src/field/koalabear.js";
import { WINDOW_WORDS } from "../../src/kernels/sponge-runner.js";
import { OpKind, opKindTag } from "../../src/statement/types.js";
import { DEFAULT_CONFIG } from "../../src/smt/config.js";

const PINNED: Record<string, number[]> = {
  [OpKind.Membership]: [438623915, 1302919243, 1221834511, 1542247335, 222756456, 991215267, 847238870, 120576555],
  [OpKind.NonMembership]: [
    1163054089, 1577898089, 1943277175, 148048442, 1180727301, 1303402646, 1466171979, 1763381974,
  ],
  [OpKind.Update]: [1924570877, 922324116, 322484126, 1217512023, 1895629877, 1640619185, 1677773779, 1518790721],
};

const coeff = fc.oneof(fc.integer({ min: 0, max: P - 1 }), fc.constantFrom(0, 1, P - 1, P - 2));
const gate = fc.record({ kind: fc.constantFrom(0, 1, 2), out: fc.nat(7), in1: fc.nat(7), in2: fc.nat(7), coeff });
const layer = fc.record({
  gates: fc.array(gate, { maxLength: 12 }),
  consts: fc.array(fc.record({ wire: fc.nat(7), value: coeff }), { maxLength: 6 }),
});
const circuitArb: fc.Arbitrary<Circuit> = fc.array(layer, { minLength: 1, maxLength: 5 }).map((layers) => ({
  layers: layers.map((l) =>
    makeLayer(
      3,
      l.gates.map((g) => ({ ...g, in2: g.kind === 1 ? g.in2 : g.in1 })),
      l.consts,
    ),
  ),
  inputWidthBits: 3,
}));
const headerArb: fc.Arbitrary<CommitmentHeader> = fc.record({
  kindTag: fc.nat(2),
  depth: fc.integer({ min: 1, max: 64 }),
  leafMaxFields: fc.integer({ min: 10, max: 65535 }),
  strategyId: fc.constant(0),
  strategyArg: fc.constant(0),
});

test("differential: WASM, scalar and reference commitments agree on random small circuits", () => {
  fc.assert(
    fc.property(headerArb, circuitArb, (h, c) => {
      const ref = circuitCommitmentReference(h, c);
      assert.deepEqual(circuitCommitment(h, c), ref);
      assert.deepEqual(circuitCommitmentScalar(h, c), ref);
    }),
    { numRuns: 200 },
  );
});

test("differential: several random circuits at once, 2 and 4 lanes", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(headerArb, circuitArb), { minLength: 1, maxLength: 6 }),
      fc.constantFrom(2, 4),
      (items, lanes) => {
        const got = circuitCommitments(
          items.map(([header, circuit]) => ({ header, circuit })),
          { lanes: lanes as 2 | 4 },
        );
        items.forEach(([h, c], i) => assert.deepEqual(got[i], circuitCommitmentReference(h, c)));
      },
    ),
    { numRuns: 50 },
  );
});

test("differential: compiled depth-1 circuits of every kind (streams longer than one window)", () => {
  const items = [OpKind.Membership, OpKind.NonMembership, OpKind.Update].map((kind) => {
    const c = compile(kind, { depth: 1, leafMaxFields: 10 });
    return { header: commitmentHeader(kind, c.config), circuit: c.circuit };
  });
  assert.ok(commitmentLength(items[2]!.circuit) > 2 * WINDOW_WORDS, "the Update stream spans several windows");
  const ref = items.map((it) => circuitCommitmentReference(it.header, it.circuit));
  items.forEach((it, i) => assert.deepEqual(circuitCommitment(it.header, it.circuit), ref[i]));
  assert.deepEqual(circuitCommitments(items), ref);
  assert.deepEqual(circuitCommitments(items, { lanes: 4 }), ref);
});

test("§18 pinned d24 commitments: single sponge, prepare and prepareAll (both lane counts)", () => {
  const all = prepareAll();
  assert.deepEqual(Array.from(all.membership.commitment), PINNED[OpKind.Membership]);
  assert.deepEqual(Array.from(all.nonmembership.commitment), PINNED[OpKind.NonMembership]);
  assert.deepEqual(Array.from(all.update.commitment), PINNED[OpKind.Update]);
  const items = [all.membership, all.nonmembership, all.update].map((p) => ({
    header: commitmentHeader(p.kind, p.config),
    circuit: p.circuit,
  }));
  assert.deepEqual(
    circuitCommitments(items, { lanes: 4 }).map((d) => Array.from(d)),
    [PINNED[OpKind.Membership], PINNED[OpKind.NonMembership], PINNED[OpKind.Update]],
  );
  assert.deepEqual(Array.from(circuitCommitment(items[1]!.header, items[1]!.circuit)), PINNED[OpKind.NonMembership]);
  const single = prepare("membership");
  assert.deepEqual(single.identity, all.membership.identity);
  assert.equal(all.update.identity.opKindTag, opKindTag(OpKind.Update));
});

function withLayer(c: Circuit, i: number, change: (l: Layer) => Layer): Circuit {
  return { ...c, layers: c.layers.map((l, k) => (k === i ? change(l) : l)) };
}

test("non-canonical scalars anywhere are hard errors naming the place; inconsistent arrays are rejected", () => {
  const h = commitmentHeader(OpKind.Membership, DEFAULT_CONFIG);
  const base: Circuit = {
    layers: [
      makeLayer(
        2,
        [
          { kind: 0, out: 0, in1: 1, in2: 1, coeff: 5 },
          { kind: 1, out: 1, in1: 2, in2: 3, coeff: 1 },
        ],
        [{ wire: 2, value: 7 }],
      ),
      makeLayer(2, [{ kind: 0, out: 3, in1: 0, in2: 0, coeff: 2 }]),
    ],
    inputWidthBits: 2,
  };
  const bad = (c: Circuit, where: RegExp) =>
    assert.throws(
      () => circuitCommitment(h, c),
      (e: unknown) => e instanceof CircuitError && e.code === "NON_CANONICAL_COEFF" && where.test(e.message),
    );
  bad(
    withLayer(base, 0, (l) => ({ ...l, gateCoeff: Uint32Array.of(5, P) })),
    /layer 0 gate 1 coeff/,
  );
  bad(
    withLayer(base, 1, (l) => ({ ...l, gateOut: Uint32Array.of(P + 3) })),
    /layer 1 gate 0 out/,
  );
  bad(
    withLayer(base, 0, (l) => ({ ...l, constValue: Uint32Array.of(2 ** 32 - 1) })),
    /layer 0 const 0 value/,
  );
  assert.throws(
    () => circuitCommitment({ ...h, leafMaxFields: P }, base),
    (e: unknown) => e instanceof CircuitError && e.code === "NON_CANONICAL_COEFF",
  );
  assert.throws(
    () =>
      circuitCommitments([
        { header: h, circuit: base },
        { header: h, circuit: withLayer(base, 1, (l) => ({ ...l, gateIn1: Uint32Array.of(P) })) },
      ]),
    (e: unknown) => e instanceof CircuitError && /layer 1 gate 0 in1/.test(e.message),
  );
  assert.throws(
    () =>
      circuitCommitment(
        h,
        withLayer(base, 0, (l) => ({ ...l, gateIn2: Uint32Array.of(1) })),
      ),
    (e: unknown) => e instanceof CircuitError && e.code === "BAD_WIDTH",
  );
  assert.deepEqual(circuitCommitment(h, base), circuitCommitmentReference(h, base));
});
