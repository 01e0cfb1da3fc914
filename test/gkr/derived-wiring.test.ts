import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, EXT_ZERO, extMul, extRandom, type Ext } from "../../src/field/extension.js";
import { eqTable } from "../../src/sumcheck/mle.js";
import { CircuitBuilder, type CircuitTags, type NodeId } from "../../src/gkr/builder.js";
import { GateKind, inputBitsOf, makeLayer, type Circuit } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { DerivedRegularWiring, type DerivedWiringOptions } from "../../src/gkr/wiring/derived.js";
import { deriveLayerForm, type LayerForm } from "../../src/gkr/wiring/block-pattern.js";
import { auditLayerForm } from "../../src/gkr/wiring/block-pattern-audit.js";
import { SplitEqCache, splitEqTables } from "../../src/gkr/wiring/split-eq.js";
import type { Claim } from "../../src/gkr/claims.js";
import { compile } from "../../src/smt/compile.js";
import { OpKind } from "../../src/statement/types.js";
import { arbCircuitCase, arbFe } from "./random-circuit.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc
  .oneof(fc.tuple(fe, fe, fe, fe), fc.constantFrom([0, 0, 0, 0], [1, 0, 0, 0], [P - 1, 0, 0, 0]))
  .map((t) => t as unknown as Ext);
const pointOf = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
const randomPoint = (n: number): Ext[] => Array.from({ length: n }, () => extRandom());

/** Both oracles agree on every combined, per-kind and constant evaluation of layer i. */
function assertSameLayer(
  circuit: Circuit,
  a: TableWiring,
  b: DerivedRegularWiring,
  i: number,
  claims: Claim[],
  x: Ext[],
  y: Ext[],
  what: string,
): void {
  assert.deepEqual(b.evalCombined(i, claims, x, y), a.evalCombined(i, claims, x, y), `${what}: layer ${i} combined`);
  assert.deepEqual(
    b.evalConstCombined(i, claims),
    a.evalConstCombined(i, claims),
    `${what}: layer ${i} const combined`,
  );
  const z = claims[0]!.point;
  for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3]) {
    assert.deepEqual(
      b.evalPredicate(i, kind, z, x, y),
      a.evalPredicate(i, kind, z, x, y),
      `${what}: layer ${i} kind ${kind}`,
    );
  }
  assert.deepEqual(b.evalConst(i, z), a.evalConst(i, z), `${what}: layer ${i} const`);
  void circuit;
}

/** Random claims (1..3) for layer i, random x and y. */
function randomQuery(circuit: Circuit, i: number): { claims: Claim[]; x: Ext[]; y: Ext[] } {
  const so = circuit.layers[i]!.widthBits,
    s = inputBitsOf(circuit, i);
  const k = 1 + Math.floor(Math.random() * 3);
  return {
    claims: Array.from({ length: k }, () => ({ point: randomPoint(so), coeff: extRandom() })),
    x: randomPoint(s),
    y: randomPoint(s),
  };
}

const compiled = new Map<string, ReturnType<typeof compile>>();
function compiledCircuit(kind: OpKind, depth: number) {
  const key = `${kind}/${depth}`;
  if (!compiled.has(key)) compiled.set(key, compile(kind, { depth }));
  return compiled.get(key)!;
}

for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
  test(`compat circuit kind ${kind}, depths 1..4: derived predicates equal the table wiring on every layer (strict audit)`, () => {
    for (let depth = 1; depth <= 4; depth++) {
      const c = compiledCircuit(kind, depth);
      const table = new TableWiring(c.circuit);
      const derived = new DerivedRegularWiring(c.circuit, c.tags, { strict: true });
      assert.equal(derived.stats.residueGates, 0, "every group of a compiled circuit fits");
      assert.equal(derived.stats.auditedGroups, derived.stats.groups);
      for (let i = 0; i < c.circuit.layers.length; i++) {
        const q = randomQuery(c.circuit, i);
        assertSameLayer(c.circuit, table, derived, i, q.claims, q.x, q.y, `kind ${kind} d${depth}`);
      }
    }
  });
}

test("compat circuits at depth 2: derived equals table at fast-check points, including 0/1/p−1 coordinates", () => {
  const cases = [OpKind.Membership, OpKind.NonMembership, OpKind.Update].map((k) => {
    const c = compiledCircuit(k, 2);
    return { c, table: new TableWiring(c.circuit), derived: new DerivedRegularWiring(c.circuit, c.tags) };
  });
  const arb = fc.nat(2).chain((k) => {
    const { c } = cases[k]!;
    return fc.nat(c.circuit.layers.length - 1).chain((i) => {
      const so = c.circuit.layers[i]!.widthBits,
        s = inputBitsOf(c.circuit, i);
      return fc.tuple(
        fc.constant(k),
        fc.constant(i),
        fc.array(fc.tuple(pointOf(so), arbExt), { minLength: 1, maxLength: 2 }),
        pointOf(s),
        pointOf(s),
      );
    });
  });
  fc.assert(
    fc.property(arb, ([k, i, raw, x, y]) => {
      const { c, table, derived } = cases[k]!;
      assertSameLayer(
        c.circuit,
        table,
        derived,
        i,
        raw.map(([point, coeff]) => ({ point, coeff })),
        x,
        y,
        `kind ${k}`,
      );
    }),
    { numRuns: 150 },
  );
});

for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
  test(`compat circuit kind ${kind}, depth 24: derived equals table on every layer along a verifier-like chain of points`, () => {
    const c = compiledCircuit(kind, 24);
    const table = new TableWiring(c.circuit);
    const derived = new DerivedRegularWiring(c.circuit, c.tags, { strict: true });
    assert.equal(derived.stats.residueGates, 0);
    // As in the verifier: the claims of layer i + 1 are (x*, 1), (y*, r) of layer i (same arrays).
    let claims: Claim[] = [{ point: randomPoint(c.circuit.layers[0]!.widthBits), coeff: EXT_ONE }];
    for (let i = 0; i < c.circuit.layers.length; i++) {
      const s = inputBitsOf(c.circuit, i);
      const x = randomPoint(s),
        y = randomPoint(s);
      assert.deepEqual(derived.evalConstCombined(i, claims), table.evalConstCombined(i, claims), `layer ${i} const`);
      assert.deepEqual(derived.evalCombined(i, claims, x, y), table.evalCombined(i, claims, x, y), `layer ${i}`);
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: extRandom() },
      ];
    }
  });
}

test("random IR circuits (no tags): derived equals table for every tile size", () => {
  const arb = arbCircuitCase({ maxBits: 5, maxGates: 40 }).chain((c) =>
    fc.tuple(
      fc.constant(c),
      fc.nat(c.circuit.layers.length - 1),
      fc.integer({ min: 0, max: 7 }),
      fc.array(arbExt, { minLength: 30, maxLength: 30 }),
    ),
  );
  fc.assert(
    fc.property(arb, ([c, i, loBits, coords]) => {
      const so = c.circuit.layers[i]!.widthBits,
        s = inputBitsOf(c.circuit, i);
      const claims = [
        { point: coords.slice(0, so), coeff: coords[29]! },
        { point: coords.slice(so, 2 * so), coeff: coords[28]! },
      ];
      const x = coords.slice(10, 10 + s),
        y = coords.slice(18, 18 + s);
      const derived = new DerivedRegularWiring(c.circuit, undefined, { loBits, strict: true });
      assertSameLayer(c.circuit, new TableWiring(c.circuit), derived, i, claims, x, y, `loBits ${loBits}`);
    }),
    { numRuns: 200 },
  );
});

/** A random builder circuit with random scope changes, and its built form. */
const arbBuilderCircuit = fc
  .record({
    inputs: fc.integer({ min: 1, max: 12 }),
    steps: fc.array(
      fc.record({
        op: fc.integer({ min: 0, max: 5 }),
        picks: fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }),
        coeffs: fc.array(arbFe, { minLength: 5, maxLength: 5 }),
        cubes: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        constant: fc.oneof(fc.constant(0), arbFe),
        scope: fc.option(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 6 })), { nil: null }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
    outputs: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ inputs, steps, outputs }) => {
    const b = new CircuitBuilder();
    const nodes: NodeId[] = [];
    for (let k = 0; k < inputs; k++) nodes.push(b.input(k));
    for (const st of steps) {
      if (st.scope === null) b.clearScope();
      else b.scope(st.scope[0], st.scope[1]);
      const pick = (j: number) => nodes[st.picks[j % st.picks.length]! % nodes.length]!;
      switch (st.op) {
        case 0:
          nodes.push(
            b.affine(
              st.picks.map((_, j) => [pick(j), st.coeffs[j]!] as const),
              st.constant,
            ),
          );
          break;
        case 1:
          nodes.push(b.mul(pick(0), pick(1)));
          break;
        case 2:
          nodes.push(b.pow3(pick(0)));
          break;
        case 3:
          nodes.push(
            b.combine(
              st.picks.map((_, j) => ({ node: pick(j), coeff: st.coeffs[j]!, cube: st.cubes[j]! })),
              st.constant,
            ),
          );
          break;
        case 4:
          nodes.push(b.sub(pick(0), pick(1)));
          break;
        default:
          nodes.push(b.input(st.picks[0]! % (inputs + 3)));
          break;
      }
    }
    // The highest node must be an output (no node may sit above every output).
    let top = nodes[0]!;
    for (const n of nodes) if (b.level(n) > b.level(top)) top = n;
    const outs = [...new Set([...nodes.slice(-outputs), top])];
    return b.build(outs);
  });

test("random builder circuits with random scopes: derived (with tags, without, with wrong tags) equals table", () => {
  fc.assert(
    fc.property(arbBuilderCircuit, fc.integer({ min: 0, max: 6 }), (built, loBits) => {
      const { circuit, tags } = built;
      const table = new TableWiring(circuit);
      // Tags shifted by one layer are wrong hints (and mismatched lengths are ignored).
      const wrong: CircuitTags = { layers: tags.layers.map((_, i) => tags.layers[(i + 1) % tags.layers.length]!) };
      const oracles = [tags, undefined, wrong].map(
        (t) => new DerivedRegularWiring(circuit, t, { loBits, strict: true }),
      );
      for (let i = 0; i < circuit.layers.length; i++) {
        const q = randomQuery(circuit, i);
        for (const d of oracles) assertSameLayer(circuit, table, d, i, q.claims, q.x, q.y, `loBits ${loBits}`);
      }
    }),
    { numRuns: 120 },
  );
});

/** Fault injections into a derived form; each must fail the audit of some group. */
const corruptions: { name: string; apply: (f: LayerForm) => LayerForm | null }[] = [
  {
    name: "a pattern coefficient changed",
    apply: (f) => {
      const p = f.patterns.find((q) => q.coeff.length > 0);
      if (!p) return null;
      const coeff = p.coeff.slice();
      coeff[0] = (coeff[0]! + 1) % P;
      return { ...f, patterns: f.patterns.map((q) => (q === p ? { ...q, coeff } : q)) };
    },
  },
  {
    name: "a placement moved to another output tile",
    apply: (f) => {
      const gi = f.groups.findIndex((g) => g.oh.length > 0);
      if (gi < 0 || f.outBits === f.outLo) return null;
      const g = f.groups[gi]!;
      const oh = g.oh.slice();
      oh[0] = oh[0]! ^ 1;
      return { ...f, groups: f.groups.map((h, j) => (j === gi ? { ...h, oh } : h)) };
    },
  },
  {
    name: "a placement dropped",
    apply: (f) => {
      const gi = f.groups.findIndex((g) => g.pattern.length > 0);
      if (gi < 0) return null;
      const g = f.groups[gi]!;
      return {
        ...f,
        groups: f.groups.map((h, j) =>
          j === gi
            ? { ...h, pattern: g.pattern.slice(1), oh: g.oh.slice(1), ih: g.ih.slice(1), ih2: g.ih2.slice(1) }
            : h,
        ),
      };
    },
  },
  {
    name: "a pattern entry's input offset changed",
    apply: (f) => {
      if (f.inLo === 0) return null;
      const p = f.patterns.find((q) => q.b.length > 0);
      if (!p) return null;
      const b = p.b.slice(),
        c = p.c.slice();
      b[0] = b[0]! ^ 1;
      if (p.kind !== GateKind.Mul) c[0] = b[0]!;
      return { ...f, patterns: f.patterns.map((q) => (q === p ? { ...q, b, c } : q)) };
    },
  },
  {
    name: "a gate left out of every group",
    apply: (f) => {
      const gi = f.groups.findIndex((g) => g.gates.length > 0);
      if (gi < 0) return null;
      return { ...f, groups: f.groups.map((h, j) => (j === gi ? { ...h, gates: h.gates.slice(1) } : h)) };
    },
  },
  {
    name: "a constant value changed",
    apply: (f) => {
      const p = f.constPatterns[0];
      if (!p) return null;
      const value = p.value.slice();
      value[0] = (value[0]! + 5) % P;
      return { ...f, constPatterns: f.constPatterns.map((q) => (q === p ? { ...q, value } : q)) };
    },
  },
];

test("the audit catches every corrupted derivation: strict mode throws, otherwise the group is evaluated gate by gate", () => {
  const c = compiledCircuit(OpKind.NonMembership, 2);
  const table = new TableWiring(c.circuit);
  const caught = new Set<string>();
  for (const layer of [0, 1, c.circuit.layers.length - 2, c.circuit.layers.length - 1, 60]) {
    for (const { name, apply } of corruptions) {
      let applied = false;
      const options: DerivedWiringOptions = {
        adjustForm: (i, f) => {
          if (i !== layer) return f;
          const g = apply(f);
          if (g === null) return f;
          applied = true;
          return g;
        },
      };
      const strict = () => new DerivedRegularWiring(c.circuit, c.tags, { ...options, strict: true });
      applied = false;
      let threw = false;
      try {
        strict();
      } catch (e) {
        threw = e instanceof CircuitError && e.code === "DERIVATION_MISMATCH";
      }
      if (!applied) continue;
      assert.ok(threw, `${name} at layer ${layer}: strict derivation must fail`);
      caught.add(name);
      const lenient = new DerivedRegularWiring(c.circuit, c.tags, options);
      assert.ok(
        lenient.stats.auditedGroups < lenient.stats.groups || lenient.stats.residueConsts > 0,
        `${name}: a group fell back`,
      );
      const q = randomQuery(c.circuit, layer);
      assertSameLayer(c.circuit, table, lenient, layer, q.claims, q.x, q.y, name);
    }
  }
  assert.deepEqual(
    [...caught].sort(),
    corruptions.map((k) => k.name).sort(),
    "every corruption was injected somewhere",
  );
});

test("the audit accepts every honest derivation and checks the partition", () => {
  const c = compiledCircuit(OpKind.Update, 1);
  c.circuit.layers.forEach((layer, i) => {
    const form = deriveLayerForm(layer, inputBitsOf(c.circuit, i), 4, c.tags.layers[i]);
    const audit = auditLayerForm(layer, form);
    assert.ok(audit.partitionOk && audit.groupOk.every(Boolean) && audit.constGroupOk.every(Boolean), `layer ${i}`);
    // The same gate claimed by two groups breaks the partition.
    if (form.groups.length >= 2 && form.groups[0]!.gates.length > 0) {
      const dup = {
        ...form,
        groups: form.groups.map((g, j) =>
          j === 1 ? { ...g, gates: Uint32Array.from([...g.gates, form.groups[0]!.gates[0]!]) } : g,
        ),
      };
      assert.equal(auditLayerForm(layer, dup).partitionOk, false);
    }
  });
});

test("errors and conventions match the table wiring", () => {
  const c = compiledCircuit(OpKind.NonMembership, 1);
  const w = new DerivedRegularWiring(c.circuit, c.tags);
  const L = c.circuit.layers.length;
  const isCode = (code: string) => (e: unknown) => e instanceof CircuitError && e.code === code;
  for (const i of [0, L - 2, L - 1]) {
    const q = randomQuery(c.circuit, i);
    const z = q.claims[0]!.point;
    assert.deepEqual(w.evalPredicate(i, GateKind.Lin, z, q.x, []), w.evalPredicate(i, GateKind.Lin, z, q.x, q.y));
    assert.deepEqual(w.evalPredicate(i, GateKind.Pow3, z, q.x, []), w.evalPredicate(i, GateKind.Pow3, z, q.x, q.y));
    assert.throws(() => w.evalPredicate(L, GateKind.Lin, z, q.x, q.y), isCode("BAD_LAYER_INDEX"));
    assert.throws(() => w.evalPredicate(-1, GateKind.Lin, z, q.x, q.y), isCode("BAD_LAYER_INDEX"));
    assert.throws(() => w.evalConstCombined(1.5, q.claims), isCode("BAD_LAYER_INDEX"));
    assert.throws(() => w.evalPredicate(i, 7 as GateKind, z, q.x, q.y), isCode("BAD_GATE_KIND"));
    assert.throws(() => w.evalPredicate(i, GateKind.Lin, [...z, EXT_ZERO], q.x, q.y), isCode("BAD_POINT"));
    assert.throws(() => w.evalPredicate(i, GateKind.Lin, z, [...q.x, EXT_ZERO], q.y), isCode("BAD_POINT"));
    assert.throws(() => w.evalPredicate(i, GateKind.Mul, z, q.x, [...q.y, EXT_ZERO]), isCode("BAD_POINT"));
    assert.throws(() => w.evalConst(i, [...z, EXT_ZERO]), isCode("BAD_POINT"));
  }
  // The Mul layers need y in the combined evaluation.
  const mulLayer = L - 1;
  const q = randomQuery(c.circuit, mulLayer);
  assert.throws(() => w.evalCombined(mulLayer, q.claims, q.x, []), isCode("BAD_POINT"));
  assert.throws(() => new DerivedRegularWiring(c.circuit, c.tags, { loBits: 8 }), isCode("BAD_OPTION"));
  assert.throws(() => new DerivedRegularWiring({ layers: [], inputWidthBits: 0 }), isCode("EMPTY_CIRCUIT"));
});

test("split eq tables equal the full eq table; the cache notices a mutated point", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 9 }).chain((n) => pointOf(n)),
      fc.integer({ min: 0, max: 7 }),
      (point, lo) => {
        const t = splitEqTables(point, lo);
        const full = eqTable(point);
        const L = t.loBits;
        assert.equal(L, Math.min(lo, point.length));
        for (let w = 0; w < full.length; w++) {
          // eq(z, w) = hi[w >> L]·lo[w mod 2^L]
          assert.deepEqual(extMul(t.hi.get(w >> L), t.lo.get(w & ((1 << L) - 1))), full.get(w));
        }
        assert.deepEqual(t.lo.data, eqTable(point.slice(point.length - L)).data);
      },
    ),
    { numRuns: 60 },
  );
  const cache = new SplitEqCache(2);
  const p = randomPoint(6);
  const a = cache.get(p, 3);
  assert.equal(cache.get(p, 3), a, "same array, same values: cached");
  p[2] = extRandom();
  const b = cache.get(p, 3);
  assert.notEqual(b, a, "mutated array: rebuilt");
  assert.deepEqual(b.hi.data, splitEqTables(p, 3).hi.data);
});

test("layers with the same gates reuse one audited gate part; their own constants still count", () => {
  const gates = [
    { kind: GateKind.Lin, out: 0, in1: 1, in2: 1, coeff: 5 },
    { kind: GateKind.Mul, out: 1, in1: 0, in2: 1, coeff: 1 },
    { kind: GateKind.Pow3, out: 1, in1: 1, in2: 1, coeff: 7 },
  ];
  const circuit: Circuit = {
    inputWidthBits: 1,
    layers: [
      makeLayer(1, gates, [{ wire: 0, value: 3 }]),
      makeLayer(1, gates, [{ wire: 1, value: 9 }]),
      makeLayer(
        1,
        gates.map((g) => ({ ...g, coeff: g.coeff + 1 })),
        [],
      ),
    ],
  };
  const derived = new DerivedRegularWiring(circuit, undefined, { strict: true });
  assert.equal(derived.stats.reusedLayers, 1, "layer 1 has layer 0's gates; layer 2 differs in a coefficient");
  const table = new TableWiring(circuit);
  for (let i = 0; i < 3; i++) {
    const q = randomQuery(circuit, i);
    assertSameLayer(circuit, table, derived, i, q.claims, q.x, q.y, "reuse");
  }
  assert.ok(
    compiledCircuit(OpKind.Membership, 24) &&
      new DerivedRegularWiring(compiledCircuit(OpKind.Membership, 24).circuit).stats.reusedLayers > 50,
  );
});

test("many claims in one evaluation (more points than the table cache holds) and repeated calls stay exact", () => {
  const c = compiledCircuit(OpKind.Membership, 3);
  const table = new TableWiring(c.circuit);
  const derived = new DerivedRegularWiring(c.circuit, c.tags);
  for (const i of [0, 5, c.circuit.layers.length - 1]) {
    const so = c.circuit.layers[i]!.widthBits,
      s = inputBitsOf(c.circuit, i);
    const claims = Array.from({ length: 9 }, () => ({ point: randomPoint(so), coeff: extRandom() }));
    const x = randomPoint(s),
      y = randomPoint(s);
    for (let rep = 0; rep < 3; rep++) {
      assert.deepEqual(
        derived.evalCombined(i, claims, x, y),
        table.evalCombined(i, claims, x, y),
        `layer ${i} rep ${rep}`,
      );
      assert.deepEqual(derived.evalConstCombined(i, claims), table.evalConstCombined(i, claims));
      // Interleave single-claim queries that push other points through the cache.
      const q = randomQuery(c.circuit, i);
      assert.deepEqual(derived.evalCombined(i, q.claims, q.x, q.y), table.evalCombined(i, q.claims, q.x, q.y));
    }
  }
});
