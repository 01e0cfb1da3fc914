import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ZERO, extAdd, extMul, extScale, type Ext } from "../../src/field/extension.js";
import { eqAt } from "../../src/sumcheck/mle.js";
import { GateKind, inputBitsOf, type Circuit } from "../../src/gkr/circuit.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { arbCircuitCase } from "./random-circuit.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const pointOf = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });

/** Brute force: Σ over the gates of the kind of coeff·eq(z, out)·eq(x, in1)·(Mul: eq(y, in2)), direct products. */
function brutePredicate(circuit: Circuit, i: number, kind: GateKind, z: Ext[], x: Ext[], y: Ext[]): Ext {
  const l = circuit.layers[i]!;
  let acc = EXT_ZERO;
  for (let g = 0; g < l.gateKind.length; g++) {
    if (l.gateKind[g] !== kind) continue;
    let t = extScale(extMul(eqAt(z, l.gateOut[g]!), eqAt(x, l.gateIn1[g]!)), l.gateCoeff[g]!);
    if (kind === GateKind.Mul) t = extMul(t, eqAt(y, l.gateIn2[g]!));
    acc = extAdd(acc, t);
  }
  return acc;
}

function bruteConst(circuit: Circuit, i: number, z: Ext[]): Ext {
  const l = circuit.layers[i]!;
  let acc = EXT_ZERO;
  for (let c = 0; c < l.constWire.length; c++) acc = extAdd(acc, extScale(eqAt(z, l.constWire[c]!), l.constValue[c]!));
  return acc;
}

const arbWiringCase = arbCircuitCase().chain((c) =>
  fc.nat(c.circuit.layers.length - 1).chain((i) => {
    const s = inputBitsOf(c.circuit, i);
    const so = c.circuit.layers[i]!.widthBits;
    return fc.tuple(
      fc.constant(c),
      fc.constant(i),
      fc.array(fc.tuple(pointOf(so), arbExt), { minLength: 1, maxLength: 3 }),
      pointOf(s),
      pointOf(s),
    );
  }),
);

test("TableWiring equals brute-force predicate and constant evaluation at random points", () => {
  fc.assert(
    fc.property(arbWiringCase, ([c, i, claims, x, y]) => {
      const w = new TableWiring(c.circuit);
      const [z] = claims[0]!;
      for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3]) {
        assert.deepEqual(
          w.evalPredicate(i, kind, z, x, y),
          brutePredicate(c.circuit, i, kind, z, x, y),
          `kind ${kind}`,
        );
      }
      assert.deepEqual(w.evalConst(i, z), bruteConst(c.circuit, i, z));
    }),
    { numRuns: 150 },
  );
});

test("combined evaluations equal Σ_k c_k·(per-claim evaluations)", () => {
  fc.assert(
    fc.property(arbWiringCase, ([c, i, rawClaims, x, y]) => {
      const w = new TableWiring(c.circuit);
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      const sum = (f: (z: Ext[]) => Ext) =>
        rawClaims.reduce<Ext>((acc, [z, ck]) => extAdd(acc, extMul(ck, f(z))), EXT_ZERO);
      const constant = w.evalConstCombined(i, claims);
      const combined = w.evalCombined(i, claims, x, y);
      assert.deepEqual(
        constant,
        sum((z) => bruteConst(c.circuit, i, z)),
      );
      assert.deepEqual(
        combined.lin,
        sum((z) => brutePredicate(c.circuit, i, GateKind.Lin, z, x, y)),
      );
      assert.deepEqual(
        combined.mul,
        sum((z) => brutePredicate(c.circuit, i, GateKind.Mul, z, x, y)),
      );
      assert.deepEqual(
        combined.pow3,
        sum((z) => brutePredicate(c.circuit, i, GateKind.Pow3, z, x, y)),
      );
    }),
    { numRuns: 100 },
  );
});

test("unary predicates ignore y; bad layer indices and point lengths are typed errors", () => {
  fc.assert(
    fc.property(arbWiringCase, ([c, i, claims, x, y]) => {
      const w = new TableWiring(c.circuit);
      const [z] = claims[0]!;
      assert.deepEqual(w.evalPredicate(i, GateKind.Lin, z, x, []), w.evalPredicate(i, GateKind.Lin, z, x, y));
      const isCode = (code: string) => (e: unknown) => e instanceof CircuitError && e.code === code;
      assert.throws(() => w.evalPredicate(c.circuit.layers.length, GateKind.Lin, z, x, y), isCode("BAD_LAYER_INDEX"));
      assert.throws(() => w.evalPredicate(-1, GateKind.Lin, z, x, y), isCode("BAD_LAYER_INDEX"));
      assert.throws(() => w.evalPredicate(i, 7 as GateKind, z, x, y), isCode("BAD_GATE_KIND"));
      assert.throws(() => w.evalPredicate(i, GateKind.Lin, [...z, EXT_ZERO], x, y), isCode("BAD_POINT"));
      assert.throws(() => w.evalPredicate(i, GateKind.Lin, z, [...x, EXT_ZERO], y), isCode("BAD_POINT"));
      assert.throws(() => w.evalPredicate(i, GateKind.Mul, z, x, [...y, EXT_ZERO]), isCode("BAD_POINT"));
      assert.throws(() => w.evalConst(i, [...z, EXT_ZERO]), isCode("BAD_POINT"));
    }),
    { numRuns: 40 },
  );
});
