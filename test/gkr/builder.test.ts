import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CircuitBuilder, type NodeId, type CircuitTags } from "../../src/gkr/builder.js";
import { GateKind, evaluateCircuit, gateAt, validateCircuit, type Circuit } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { P, add, mul, cube } from "../../src/field/koalabear.js";

function gates(circuit: Circuit, layer: number) {
  const l = circuit.layers[layer]!;
  return Array.from({ length: l.gateKind.length }, (_, g) => gateAt(l, g));
}
function consts(circuit: Circuit, layer: number) {
  const l = circuit.layers[layer]!;
  return Array.from({ length: l.constWire.length }, (_, c) => ({ wire: l.constWire[c]!, value: l.constValue[c]! }));
}

test("a small circuit: levels, lifting, wires, emission order and evaluation", () => {
  const b = new CircuitBuilder();
  const x0 = b.input(0),
    x1 = b.input(1),
    x2 = b.input(2);
  const m = b.mul(x0, x1);
  const s = b.affine(
    [
      [m, 3],
      [x2, 5],
    ],
    7,
  );
  assert.deepEqual([b.level(x0), b.level(m), b.level(s)], [0, 1, 2]);
  const { circuit, outputCount, nodeCount } = b.build([s]);
  assert.equal(outputCount, 1);
  assert.equal(nodeCount, 6, "one identity copy of x2 at level 1");
  assert.equal(circuit.layers.length, 2);
  assert.equal(circuit.inputWidthBits, 2);
  assert.deepEqual(gates(circuit, 0), [
    { kind: GateKind.Lin, out: 0, in1: 0, in2: 0, coeff: 3 },
    { kind: GateKind.Lin, out: 0, in1: 1, in2: 1, coeff: 5 },
  ]);
  assert.deepEqual(consts(circuit, 0), [{ wire: 0, value: 7 }]);
  assert.deepEqual(gates(circuit, 1), [
    { kind: GateKind.Mul, out: 0, in1: 0, in2: 1, coeff: 1 },
    { kind: GateKind.Lin, out: 1, in1: 2, in2: 2, coeff: 1 },
  ]);
  assert.equal(circuit.layers[1]!.widthBits, 1);
  validateCircuit(circuit);
  assert.equal(evaluateCircuit(circuit, [2, 3, 4])[0]![0], 45);
});

test("wire numbering groups tagged nodes by family then block with power-of-two strides; untagged last", () => {
  const b = new CircuitBuilder();
  const x = [b.input(0), b.input(1), b.input(2)];
  b.scope(7, 2);
  const n1 = b.affine([[x[0]!, 1]]),
    n2 = b.affine([[x[1]!, 1]]),
    n3 = b.affine([[x[2]!, 1]]);
  b.scope(7, 0);
  const n4 = b.affine([[x[0]!, 2]]);
  b.scope(3, 9);
  const n5 = b.affine([[x[1]!, 3]]);
  b.clearScope();
  const n6 = b.affine([[x[2]!, 4]]);
  assert.deepEqual(b.tag(n1), { family: 7, block: 2 });
  assert.deepEqual(b.tag(n6), { family: -1, block: -1 });
  const top = b.sum([n1, n2, n3, n4, n5, n6]);
  const { circuit, tags } = b.build([top]);
  const l1 = circuit.layers[1]!;
  assert.equal(l1.widthBits, 4, "13 wires → 4 bits");
  const outOf = (k: number) => l1.gateOut[k];
  // Emission is in id order: n1, n2, n3, n4, n5, n6 (one gate each).
  assert.deepEqual([0, 1, 2, 3, 4, 5].map(outOf), [8, 9, 10, 4, 0, 12]);
  assert.deepEqual(
    gates(circuit, 0).map((g) => g.in1),
    [8, 9, 10, 4, 0, 12],
  );
  const t1 = tags.layers[1]!;
  assert.deepEqual(t1.families, [
    { family: 3, base: 0, stride: 1, blocks: [9], blockSizes: [1] },
    { family: 7, base: 4, stride: 4, blocks: [0, 2], blockSizes: [1, 3] },
  ]);
  assert.equal(t1.untaggedBase, 12);
  assert.deepEqual(Array.from(t1.gateFamily), [7, 7, 7, 7, 3, -1]);
  assert.deepEqual(Array.from(t1.gateBlock), [2, 2, 2, 0, 9, -1]);
  assert.equal(evaluateCircuit(circuit, [1, 10, 100])[0]![0], 1 + 10 + 100 + 2 + 30 + 400);
});

test("lift shares identity copies across uses and keeps the copied node's tag", () => {
  const b = new CircuitBuilder();
  b.scope(4, 1);
  const x = b.input(0);
  b.clearScope();
  const y = b.input(1);
  let deep = b.affine([[y, 1]]);
  for (let i = 0; i < 4; i++) deep = b.affine([[deep, 1]]); // level 5
  const a = b.affine([
    [x, 1],
    [deep, 1],
  ]); // level 6: x lifted to 5
  const c = b.affine([
    [x, 2],
    [b.affine([[y, 1]]), 1],
  ]); // level 2: x lifted to 1 (shared)
  const before = b.size;
  const l3 = b.lift(x, 3);
  assert.equal(b.size, before + 3);
  assert.equal(b.lift(x, 3), l3, "second lift reuses the copies");
  assert.deepEqual(b.tag(l3), { family: 4, block: 1 });
  assert.equal(b.level(l3), 3);
  assert.equal(b.lift(a, 2), a, "lifting below the node's level returns it");
  const { circuit, nodeCount } = b.build([a, c]);
  // Copies of x at levels 1..5 (five), c lifted from 2 to 6 (four); y's chain needs none.
  assert.equal(nodeCount, before + 5 + 4);
  const v = evaluateCircuit(circuit, [3, 5]);
  assert.deepEqual([v[0]![0], v[0]![1]], [8, 11]);
});

test("output remap: output k is on wire k of layer 0; every node is emitted", () => {
  const b = new CircuitBuilder();
  const x = b.input(0);
  const second = b.affine([[x, 2]]);
  const first = b.affine([[x, 3]], 1);
  const third = b.affine([[x, 5]]);
  const { circuit } = b.build([first, second, third]);
  assert.equal(circuit.layers[0]!.widthBits, 2);
  const v = evaluateCircuit(circuit, [5])[0]!;
  assert.deepEqual(Array.from(v), [16, 10, 25, 0]);
});

test("output remap is one simultaneous substitution: an unlisted output-level node keeps its list position", () => {
  const b = new CircuitBuilder();
  const x = b.input(0);
  b.affine([[x, 2]]); // list position 0, output 1
  b.affine([[x, 9]], 4); // list position 1, not an output
  const first = b.affine([[x, 3]], 1); // list position 2, output 0
  const { circuit } = b.build([first, 1]);
  assert.equal(gates(circuit, 0).length, 3, "the unused node is emitted too");
  const v = evaluateCircuit(circuit, [5])[0]!;
  // Wire 1 carries output 1 (10) plus the unlisted node (49), as in the reference builder.
  assert.deepEqual([v[0], v[1], v[2]], [16, 59, 0]);
});

test("coefficients and constants are stored reduced mod p; convenience constructors", () => {
  const b = new CircuitBuilder();
  const x = b.input(0);
  const n = b.affine(
    [
      [x, -1],
      [x, P + 2],
      [x, 0],
    ],
    -3,
  );
  const s = b.sub(x, x);
  const k = b.constant(5n + BigInt(P));
  const p3 = b.pow3(x);
  const cmb = b.combine(
    [
      { node: x, coeff: 2, cube: true },
      { node: x, coeff: -1, cube: false },
    ],
    0,
  );
  const { circuit } = b.build([n, s, k, p3, cmb]);
  const top = gates(circuit, 0);
  assert.deepEqual(
    top.map((g) => g.coeff),
    [P - 1, 2, 0, 1, P - 1, 1, 2, P - 1],
  );
  assert.deepEqual(
    top.map((g) => g.kind),
    [0, 0, 0, 0, 0, GateKind.Pow3, GateKind.Pow3, GateKind.Lin],
  );
  assert.deepEqual(consts(circuit, 0), [
    { wire: 0, value: P - 3 },
    { wire: 2, value: 5 },
  ]);
  const v = evaluateCircuit(circuit, [4])[0]!;
  assert.deepEqual(Array.from(v.slice(0, 5)), [(4 + P - 3) % P, 0, 5, 64, 2 * 64 - 4]);
});

test("typed errors", () => {
  const code = (c: string) => (e: unknown) => e instanceof CircuitError && e.code === c;
  const b = new CircuitBuilder();
  const x = b.input(0);
  assert.throws(() => b.affine([[99, 1]]), code("BAD_NODE"));
  assert.throws(() => b.mul(x, -1), code("BAD_NODE"));
  assert.throws(() => b.affine([[x, 1.5]]), code("BAD_COEFF"));
  assert.throws(() => b.input(-1), code("BAD_INPUT_INDEX"));
  assert.throws(() => b.scope(-1, 0), code("BAD_SCOPE"));
  assert.throws(() => b.build([]), code("NO_OUTPUTS"));
  const y = b.affine([[x, 1]]);
  assert.throws(() => b.build([y, y]), code("DUPLICATE_OUTPUT"));
  assert.throws(() => b.build([y], 0), code("INPUT_WIDTH"));
  const b2 = new CircuitBuilder();
  const z = b2.affine([[b2.affine([[b2.input(0), 1]]), 1]]);
  assert.throws(() => b2.build([b2.input(1)]), code("NODE_ABOVE_OUTPUTS"));
  void z;
  b.build([y]);
  assert.throws(() => b.input(1), code("BUILDER_CONSUMED"));
  assert.throws(() => b.build([y]), code("BUILDER_CONSUMED"));
});

/** Every gate of a non-output layer lies in its family's region, in the block its tag names. */
function checkTags(circuit: Circuit, tags: CircuitTags): void {
  assert.equal(tags.layers.length, circuit.layers.length);
  for (let i = 1; i < circuit.layers.length; i++) {
    const layer = circuit.layers[i]!;
    const t = tags.layers[i]!;
    for (let g = 0; g < layer.gateKind.length; g++) {
      const w = layer.gateOut[g]!;
      const f = t.gateFamily[g]!;
      if (f < 0) {
        assert.ok(w >= t.untaggedBase);
        continue;
      }
      const fp = t.families.find((x) => x.family === f)!;
      const rank = Math.floor((w - fp.base) / fp.stride);
      assert.ok(w >= fp.base && rank < fp.blocks.length, `layer ${i} gate ${g} outside its family region`);
      assert.equal(fp.blocks[rank], t.gateBlock[g]);
      assert.ok((w - fp.base) % fp.stride < fp.blockSizes[rank]!);
    }
  }
}

test("law: a random node graph evaluates to the same outputs natively and as a built circuit", () => {
  const op = fc.record({
    kind: fc.integer({ min: 0, max: 4 }),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
    coeffs: fc.array(fc.integer({ min: -5, max: P + 5 }), { minLength: 4, maxLength: 4 }),
    cubes: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    c: fc.integer({ min: 0, max: 3 }),
    tag: fc.option(fc.record({ family: fc.integer({ min: 0, max: 3 }), block: fc.integer({ min: 0, max: 5 }) })),
  });
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.array(op, { minLength: 1, maxLength: 25 }),
      fc.array(fc.integer({ min: 0, max: P - 1 }), { minLength: 5, maxLength: 5 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
      (nInputs, ops, inputValues, outPicks) => {
        const b = new CircuitBuilder();
        const value: number[] = [];
        const nodes: NodeId[] = [];
        const red = (k: number) => ((k % P) + P) % P;
        for (let i = 0; i < nInputs; i++) {
          nodes.push(b.input(i));
          value.push(inputValues[i]!);
        }
        for (const o of ops) {
          if (o.tag) b.scope(o.tag.family, o.tag.block);
          else b.clearScope();
          const ch = o.picks.map((p) => nodes[p % nodes.length]!);
          let id: NodeId;
          let v = 0;
          switch (o.kind) {
            case 0:
            case 1: {
              const terms = ch.map((n, t) => [n, o.coeffs[t]!] as const);
              id = b.affine(terms, o.c);
              v = o.c;
              terms.forEach(([n, k]) => (v = add(v, mul(red(k), value[n]!))));
              break;
            }
            case 2:
              id = b.mul(ch[0]!, ch[ch.length - 1]!);
              v = mul(value[ch[0]!]!, value[ch[ch.length - 1]!]!);
              break;
            case 3:
              id = b.pow3(ch[0]!);
              v = cube(value[ch[0]!]!);
              break;
            default: {
              const taps = ch.map((n, t) => ({ node: n, coeff: o.coeffs[t]!, cube: o.cubes[t]! }));
              id = b.combine(taps, o.c);
              v = o.c;
              taps.forEach((t) => (v = add(v, mul(red(t.coeff), t.cube ? cube(value[t.node]!) : value[t.node]!))));
            }
          }
          nodes.push(id);
          value.push(v);
        }
        const outs = [...new Set(outPicks.map((p) => nodes[p % nodes.length]!))];
        // Every node at the top level must be an output (otherwise it shares a remapped wire).
        let top = 1;
        for (const n of nodes) top = Math.max(top, b.level(n));
        for (const n of nodes) if (b.level(n) === top && !outs.includes(n)) outs.push(n);
        const { circuit, tags, outputCount } = b.build(outs);
        validateCircuit(circuit);
        checkTags(circuit, tags);
        assert.equal(outputCount, outs.length);
        const layer0 = evaluateCircuit(circuit, inputValues.slice(0, nInputs))[0]!;
        outs.forEach((n, k) => assert.equal(layer0[k], value[n], `output ${k}`));
      },
    ),
    { numRuns: 200 },
  );
});
