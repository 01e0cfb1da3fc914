import { test } from "node:test";
import assert from "node:assert/strict";
import { compile, type CompiledCircuit } from "../../src/smt/compile.js";
import { buildInputVector } from "../../src/smt/witness.js";
import { goldenFixture, type GoldenFixture } from "../../src/smt/fixture.js";
import { hashLeaf, occupied } from "../../src/smt/leaf.js";
import { computeRoot } from "../../src/smt/path.js";
import { SmtError } from "../../src/smt/errors.js";
import { evaluateCircuit } from "../../src/gkr/circuit.js";
import { P } from "../../src/field/koalabear.js";
import { OpKind } from "../../src/statement/types.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];

function outputs(c: CompiledCircuit, input: Uint32Array): Uint32Array {
  return evaluateCircuit(c.circuit, input)[0]!;
}
function nonZero(v: Uint32Array): number[] {
  const idx: number[] = [];
  v.forEach((x, i) => x !== 0 && idx.push(i));
  return idx;
}

const cache = new Map<string, CompiledCircuit>();
function circuitFor(kind: OpKind, depth: number): CompiledCircuit {
  const k = `${kind}/${depth}`;
  if (!cache.has(k)) cache.set(k, compile(kind, { depth }));
  return cache.get(k)!;
}

test("honest F(kind, d, key) requests evaluate to all-zero outputs (d = 1, 2, 3, 4, 24)", () => {
  for (const depth of [1, 2, 3, 4, 24]) {
    const keys = depth === 24 ? [5n] : [0n, (1n << BigInt(depth)) - 1n, 5n % (1n << BigInt(depth))];
    for (const kind of KINDS) {
      const c = circuitFor(kind, depth);
      for (const key of keys) {
        const f = goldenFixture(kind, depth, key);
        const input = buildInputVector(kind, f.config, f);
        assert.equal(input.length, 2 ** c.circuit.inputWidthBits);
        const out = outputs(c, input);
        assert.equal(out.length, 2 ** c.circuit.layers[0]!.widthBits);
        assert.deepEqual(nonZero(out), [], `kind ${kind} depth ${depth} key ${key}`);
      }
    }
  }
});

test("depth 64 (key 2^64 − 1) and a large leaf bound also evaluate to all-zero outputs", () => {
  for (const kind of [OpKind.Membership, OpKind.Update]) {
    const c = compile(kind, { depth: 64 });
    const f = goldenFixture(kind, 64, (1n << 64n) - 1n);
    assert.deepEqual(nonZero(outputs(c, buildInputVector(kind, f.config, f))), [], `kind ${kind}`);
  }
  const c = compile(OpKind.NonMembership, { depth: 2, leafMaxFields: 47 });
  assert.equal(c.circuit.layers.length, 2 + 29 * 6);
  const f = goldenFixture(OpKind.NonMembership, 2, 3n);
  const cfg = c.config;
  // Recompute the public inputs for B = 47 (the fold width changes h_leaf).
  const leaf = f.witness.leaf;
  const root = computeRoot(leaf, 3n, f.witness.siblings, 2, 47);
  const req = {
    ...f,
    publicInputs: { ...f.publicInputs, oldRoot: root, newRoot: root, valueDigest: hashLeaf(leaf, 47) },
  };
  assert.deepEqual(nonZero(outputs(c, buildInputVector(OpKind.NonMembership, cfg, req))), []);
});

function withSibling(f: GoldenFixture, l: number, lane: number): GoldenFixture {
  const siblings = f.witness.siblings.map((s) => s.slice());
  siblings[l]![lane] = (siblings[l]![lane]! + 1) % P;
  return { ...f, witness: { ...f.witness, siblings } };
}

test("forged witnesses and statements give non-zero outputs at the expected residuals", () => {
  for (const depth of [3, 24]) {
    for (const kind of KINDS) {
      const c = circuitFor(kind, depth);
      const f = goldenFixture(kind, depth, 5n);
      const d = depth;
      const rootResiduals = Array.from({ length: 8 }, (_, i) => 8 + 8 * d + i);
      // Wrong sibling: the path no longer reaches old_root (and new_root for Update).
      const badSib = nonZero(outputs(c, buildInputVector(kind, f.config, withSibling(f, d - 1, 3))));
      assert.ok(
        badSib.length > 0 &&
          badSib.every((i) => rootResiduals.includes(i) || (kind === OpKind.Update && i >= 8 * d + 24)),
        `sibling, kind ${kind}`,
      );
      // Wrong root.
      const oldRoot = f.publicInputs.oldRoot.slice();
      oldRoot[0] = (oldRoot[0]! + 1) % P;
      const badRoot = nonZero(
        outputs(c, buildInputVector(kind, f.config, { ...f, publicInputs: { ...f.publicInputs, oldRoot } })),
      );
      assert.deepEqual(badRoot, [8 + 8 * d], `root, kind ${kind}`);
      // Wrong value digest.
      const valueDigest = f.publicInputs.valueDigest.slice();
      valueDigest[7] = (valueDigest[7]! + 5) % P;
      const vdIndex = (kind === OpKind.Update ? 16 * d + 32 : 8 * d + 16) + 7;
      assert.deepEqual(
        nonZero(
          outputs(c, buildInputVector(kind, f.config, { ...f, publicInputs: { ...f.publicInputs, valueDigest } })),
        ),
        [vdIndex],
      );
    }
  }
});

test("tampering the input vector directly trips the local residual", () => {
  const depth = 3;
  for (const kind of KINDS) {
    const c = circuitFor(kind, depth);
    const f = goldenFixture(kind, depth, 6n);
    const input = buildInputVector(kind, f.config, f);
    const L = c.layout;
    // An accumulator: node residual of the level below and the mux of its own level disagree.
    const acc = input.slice();
    acc[L.acc + 8 * 2 + 1] = (acc[L.acc + 8 * 2 + 1]! + 1) % P;
    const hit = nonZero(outputs(c, acc));
    assert.ok(hit.includes(8 + 8 * 1 + 1), `node residual of level 1, kind ${kind}`);
    // A non-boolean key bit.
    const bit = input.slice();
    bit[L.keyBits + 1] = 2;
    const boolIndex = (kind === OpKind.Update ? 16 * depth + 40 : 8 * depth + 24) + 1;
    assert.ok(nonZero(outputs(c, bit)).includes(boolIndex), `booleanity, kind ${kind}`);
    // A pre-image lane: the leaf hash residuals fire.
    const pre = input.slice();
    pre[L.leafPre + 20] = 1;
    assert.ok(nonZero(outputs(c, pre)).some((i) => i < 8));
  }
});

test("NonMembership: an Occupied witness leaf fails the tag residual t² − 2t even with consistent accumulators", () => {
  const depth = 2;
  const c = circuitFor(OpKind.NonMembership, depth);
  const f = goldenFixture(OpKind.Membership, depth, 1n);
  const forged = {
    ...f,
    operation: { kind: OpKind.NonMembership, key: 1n },
    publicInputs: { ...f.publicInputs, opKindTag: 1 },
  };
  const out = outputs(c, buildInputVector(OpKind.NonMembership, f.config, forged));
  assert.deepEqual(nonZero(out), [8 * depth + 24 + depth], "only the tag residual");
});

test("input vector errors: path length first, then the leaf encoding", () => {
  const f = goldenFixture(OpKind.Update, 3, 1n);
  const code = (c: string) => (e: unknown) => e instanceof SmtError && e.code === c;
  const long = occupied(new Array(30).fill(1), new Uint8Array(32));
  const short = {
    ...f,
    witness: { ...f.witness, siblings: f.witness.siblings.slice(1) },
    operation: { ...f.operation, oldLeaf: long },
  };
  assert.throws(() => buildInputVector(OpKind.Update, f.config, short as GoldenFixture), code("PATH_LENGTH_MISMATCH"));
  assert.throws(
    () =>
      buildInputVector(OpKind.Update, f.config, {
        ...f,
        operation: { ...f.operation, oldLeaf: long },
      } as GoldenFixture),
    code("LEAF_ENCODING"),
  );
  assert.throws(
    () =>
      buildInputVector(OpKind.Update, f.config, {
        ...f,
        operation: { ...f.operation, newLeaf: long },
      } as GoldenFixture),
    code("LEAF_ENCODING"),
  );
  const m = goldenFixture(OpKind.Membership, 3, 1n);
  assert.throws(() => buildInputVector(OpKind.Update, m.config, m), code("OP_KIND_MISMATCH"));
});
