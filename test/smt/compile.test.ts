import { test } from "node:test";
import assert from "node:assert/strict";
import { compile } from "../../src/smt/compile.js";
import { inputLayout } from "../../src/smt/layout.js";
import { CompileError } from "../../src/smt/errors.js";
import { GateKind, validateCircuit, type Circuit } from "../../src/gkr/circuit.js";
import { OpKind } from "../../src/statement/types.js";

function counts(c: Circuit) {
  let gates = 0;
  let consts = 0;
  for (const l of c.layers) {
    gates += l.gateKind.length;
    consts += l.constWire.length;
  }
  return { gates, consts };
}

function mulLayers(c: Circuit): number[] {
  const out: number[] = [];
  c.layers.forEach((l, i) => {
    if (l.gateKind.some((k) => k === GateKind.Mul)) out.push(i);
  });
  return out;
}

const d24 = new Map([OpKind.Membership, OpKind.NonMembership, OpKind.Update].map((k) => [k, compile(k)]));

test("§18: d24 gate and const counts; 118 layers; output counts 240 / 241 / 448", () => {
  const expected = [
    [OpKind.Membership, 240_208, 4_144, 240],
    [OpKind.NonMembership, 240_328, 4_144, 241],
    [OpKind.Update, 476_584, 8_288, 448],
  ] as const;
  for (const [kind, gates, consts, outputs] of expected) {
    const c = d24.get(kind)!;
    assert.deepEqual(counts(c.circuit), { gates, consts }, `kind ${kind}`);
    assert.equal(c.circuit.layers.length, 118);
    assert.equal(c.outputCount, outputs);
    validateCircuit(c.circuit);
  }
});

test("§9.7: d24 Membership layer width bits (0–29: 8, 30–85: 9, 86–117: 10; input 9); Update input 10", () => {
  const c = d24.get(OpKind.Membership)!.circuit;
  const want = c.layers.map((_, i) => (i <= 29 ? 8 : i <= 85 ? 9 : 10));
  assert.deepEqual(
    c.layers.map((l) => l.widthBits),
    want,
  );
  assert.equal(c.inputWidthBits, 9);
  assert.equal(d24.get(OpKind.Update)!.circuit.inputWidthBits, 10);
});

test("§9.7: Mul gates only in layers 116 (mux products) and 117 (booleanity and tag squares)", () => {
  for (const c of d24.values()) assert.deepEqual(mulLayers(c.circuit), [116, 117]);
  const m = d24.get(OpKind.Membership)!.circuit;
  const mulsIn = (i: number) => m.layers[i]!.gateKind.filter((k) => k === GateKind.Mul).length;
  assert.equal(mulsIn(116), 24 * 16);
  assert.equal(mulsIn(117), 24);
  const n = d24.get(OpKind.NonMembership)!.circuit;
  assert.equal(n.layers[117]!.gateKind.filter((k) => k === GateKind.Mul).length, 25);
});

test("118 layers at depths 24, 28 and 32 for every kind; outputs 8d + 24 + d (+1), Update 16d + 40 + d", () => {
  for (const depth of [28, 32]) {
    for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
      const c = compile(kind, { depth });
      assert.equal(c.circuit.layers.length, 118, `kind ${kind} depth ${depth}`);
      const outs =
        kind === OpKind.Update
          ? 16 * depth + 40 + depth
          : 8 * depth + 24 + depth + (kind === OpKind.NonMembership ? 1 : 0);
      assert.equal(c.outputCount, outs);
      assert.deepEqual(mulLayers(c.circuit), [116, 117]);
    }
  }
});

test("layer count 2 + 29·Lw/8 for other leaf bounds; depth adds width, not layers", () => {
  assert.equal(compile(OpKind.Membership, { depth: 1, leafMaxFields: 10 }).circuit.layers.length, 2 + 29 * 2);
  assert.equal(compile(OpKind.Update, { depth: 3, leafMaxFields: 23 }).circuit.layers.length, 2 + 29 * 3);
  assert.equal(compile(OpKind.NonMembership, { depth: 2, leafMaxFields: 39 }).circuit.layers.length, 2 + 29 * 5);
  assert.equal(compile(OpKind.Membership, { depth: 1 }).circuit.layers.length, 118);
});

test("§9.1 input layout totals: Lw + 17d + 24 and 2Lw + 25d + 40", () => {
  const m = inputLayout(OpKind.Membership, 24, 31);
  assert.equal(m.total, 464);
  assert.deepEqual(
    [m.leafPre, m.acc, m.siblings, m.keyBits, m.root, m.valueDigest],
    [0, 32, 32 + 200, 32 + 8 * 49, 32 + 8 * 49 + 24, 32 + 8 * 49 + 32],
  );
  const u = inputLayout(OpKind.Update, 24, 31);
  assert.equal(u.total, 704);
  assert.deepEqual([u.leafPre2, u.acc, u.acc2, u.siblings, u.keyBits], [32, 64, 64 + 200, 64 + 400, 64 + 8 * 74]);
  assert.equal(u.valueDigest, u.total - 8);
  assert.equal(inputLayout(OpKind.NonMembership, 7, 15).total, 16 + 17 * 7 + 24);
});

test("compilation is deterministic (same node order → same circuit)", () => {
  const a = compile(OpKind.Update, { depth: 2 }).circuit;
  const b = compile(OpKind.Update, { depth: 2 }).circuit;
  assert.deepEqual(a, b);
});

test("UnsupportedConfig: strategy ≠ A, depth 0 or > 64, B < 10; bad kind", () => {
  const code = (c: string) => (e: unknown) => e instanceof CompileError && e.code === c;
  assert.throws(() => compile(OpKind.Membership, { strategy: { id: 1, arg: 4 } }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(OpKind.Membership, { strategy: { id: 2, arg: 0 } }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(OpKind.Membership, { depth: 0 }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(OpKind.Membership, { depth: 65 }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(OpKind.Membership, { depth: 2.5 }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(OpKind.Membership, { leafMaxFields: 9 }), code("UNSUPPORTED_CONFIG"));
  assert.throws(() => compile(3 as unknown as OpKind), code("BAD_KIND"));
});
