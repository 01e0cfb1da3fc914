/**
 * The derived wiring oracle's own checks and statistics (src/gkr/wiring/derived.ts) on a small
 * compiled circuit; its values against the table wiring are covered by derived-wiring.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { EXT_ONE, EXT_ZERO, type Ext } from "../../src/field/extension.js";
import { GateKind, inputBitsOf } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { DerivedRegularWiring } from "../../src/gkr/wiring/derived.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { compile } from "../../src/smt/compile.js";
import { OpKind } from "../../src/statement/types.js";

const c = compile(OpKind.Membership, { depth: 1 });
const derived = new DerivedRegularWiring(c.circuit, c.tags);
const pt = (n: number, s: number): Ext[] => Array.from({ length: n }, (_, i) => [s + i, 2 * s + i, 3, i + 1] as Ext);

test("derived stats count the circuit's layers and gates; compiled groups all pass the audit", () => {
  const st = derived.stats;
  assert.equal(st.layers, c.circuit.layers.length);
  assert.equal(
    st.gates,
    c.circuit.layers.reduce((a, l) => a + l.gateKind.length, 0),
  );
  assert.ok(st.reusedLayers > 0 && st.reusedLayers < st.layers);
  assert.equal(st.auditedGroups, st.groups);
  assert.ok(st.groups > 0);
  assert.equal(st.residueGates, 0);
  assert.ok(st.patterns > 0 && st.placements >= st.patterns && st.patternEntries > 0);
  // Fault injection derives every layer afresh: nothing is reused.
  const fresh = new DerivedRegularWiring(c.circuit, c.tags, { adjustForm: (_i, f) => f });
  assert.equal(fresh.stats.reusedLayers, 0);
  assert.equal(fresh.stats.auditedGroups, fresh.stats.groups);
  assert.ok(fresh.stats.groups > st.groups);
});

test("derived values equal the table wiring on the first, a multiplying and the last layer", () => {
  const table = new TableWiring(c.circuit);
  const L = c.circuit.layers.length;
  const mulLayer = c.circuit.layers.findIndex((l) => l.gateKind.includes(GateKind.Mul));
  for (const i of [0, mulLayer, L - 1]) {
    const so = c.circuit.layers[i]!.widthBits,
      s = inputBitsOf(c.circuit, i);
    const claims = [
      { point: pt(so, 5), coeff: EXT_ONE },
      { point: pt(so, 9), coeff: [4, 3, 2, 1] as Ext },
    ];
    const x = pt(s, 13),
      y = pt(s, 17);
    assert.deepEqual(derived.evalCombined(i, claims, x, y), table.evalCombined(i, claims, x, y), `layer ${i}`);
    assert.deepEqual(derived.evalConstCombined(i, claims), table.evalConstCombined(i, claims));
    for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3])
      assert.deepEqual(
        derived.evalPredicate(i, kind, claims[0]!.point, x, y),
        table.evalPredicate(i, kind, claims[0]!.point, x, y),
      );
    assert.deepEqual(derived.evalConst(i, claims[0]!.point), table.evalConst(i, claims[0]!.point));
  }
});

test("bad layer indices, gate kinds, points and options are typed CircuitErrors", () => {
  const L = c.circuit.layers.length;
  const code = (f: () => unknown): string => {
    try {
      f();
      return "ok";
    } catch (e) {
      return e instanceof CircuitError ? e.code : `untyped ${String(e)}`;
    }
  };
  const z = pt(c.circuit.layers[L - 1]!.widthBits, 1),
    x = pt(c.circuit.inputWidthBits, 2);
  assert.equal(
    code(() => derived.evalConst(L, z)),
    "BAD_LAYER_INDEX",
  );
  assert.equal(
    code(() => derived.evalConst(L - 1, z)),
    "ok",
  );
  assert.equal(
    code(() => derived.evalCombined(-1, [{ point: z, coeff: EXT_ONE }], x, x)),
    "BAD_LAYER_INDEX",
  );
  assert.equal(
    code(() => derived.evalPredicate(0.5, GateKind.Lin, z, x, x)),
    "BAD_LAYER_INDEX",
  );
  assert.equal(
    code(() => derived.evalPredicate(L - 1, 3 as GateKind, z, x, x)),
    "BAD_GATE_KIND",
  );
  assert.equal(
    code(() => derived.evalPredicate(L - 1, -1 as GateKind, z, x, x)),
    "BAD_GATE_KIND",
  );
  // y is read only where the layer multiplies: a wrong y is ignored by a Lin query and on a layer without Mul.
  assert.equal(
    code(() => derived.evalPredicate(L - 1, GateKind.Lin, z, x, [])),
    "ok",
  );
  const noMul = c.circuit.layers.findIndex((l) => !l.gateKind.includes(GateKind.Mul));
  const zn = pt(c.circuit.layers[noMul]!.widthBits, 1),
    xn = pt(inputBitsOf(c.circuit, noMul), 2);
  assert.equal(
    code(() => derived.evalCombined(noMul, [{ point: zn, coeff: EXT_ONE }], xn, [])),
    "ok",
  );
  const mul = c.circuit.layers.findIndex((l) => l.gateKind.includes(GateKind.Mul));
  const zm = pt(c.circuit.layers[mul]!.widthBits, 1),
    xm = pt(inputBitsOf(c.circuit, mul), 2);
  assert.equal(
    code(() => derived.evalCombined(mul, [{ point: zm, coeff: EXT_ONE }], xm, [])),
    "BAD_POINT",
  );
  assert.equal(
    code(() => derived.evalPredicate(mul, GateKind.Mul, zm, xm, [...xm, EXT_ZERO])),
    "BAD_POINT",
  );
  assert.equal(
    code(() => derived.evalCombined(mul, [{ point: zm, coeff: EXT_ONE }], [...xm, EXT_ZERO], xm)),
    "BAD_POINT",
  );
  try {
    derived.evalConstCombined(mul, [
      { point: zm, coeff: EXT_ONE },
      { point: [...zm, EXT_ZERO], coeff: EXT_ONE },
    ]);
    assert.fail("no error");
  } catch (e) {
    assert.ok(e instanceof CircuitError && e.code === "BAD_POINT");
    assert.equal((e.details as { claim?: number }).claim, 1);
  }
  for (const loBits of [-1, 8, 1.5])
    assert.equal(
      code(() => new DerivedRegularWiring(c.circuit, c.tags, { loBits })),
      "BAD_OPTION",
      `loBits ${loBits}`,
    );
  for (const loBits of [0, 7])
    assert.equal(
      code(() => new DerivedRegularWiring(c.circuit, c.tags, { loBits })),
      "ok",
      `loBits ${loBits}`,
    );
});

test("strict mode throws DERIVATION_MISMATCH for a corrupted form; lenient mode still answers exactly", () => {
  const corrupt = (
    i: number,
    f: Parameters<NonNullable<ConstructorParameters<typeof DerivedRegularWiring>[2]>["adjustForm"] & {}>[1],
  ) => (i === 1 ? { ...f, groups: f.groups.slice(1) } : f);
  let err: unknown;
  try {
    new DerivedRegularWiring(c.circuit, c.tags, { strict: true, adjustForm: corrupt });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof CircuitError && err.code === "DERIVATION_MISMATCH", String(err));
  assert.equal((err.details as { layer?: number }).layer, 1);
  const lenient = new DerivedRegularWiring(c.circuit, c.tags, { adjustForm: corrupt });
  assert.ok(lenient.stats.auditedGroups < lenient.stats.groups || lenient.stats.residueGates > 0);
  const table = new TableWiring(c.circuit);
  const so = c.circuit.layers[1]!.widthBits,
    s = inputBitsOf(c.circuit, 1);
  const claims = [{ point: pt(so, 3), coeff: EXT_ONE }];
  assert.deepEqual(
    lenient.evalCombined(1, claims, pt(s, 4), pt(s, 6)),
    table.evalCombined(1, claims, pt(s, 4), pt(s, 6)),
  );
});
