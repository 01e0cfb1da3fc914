import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { evaluateCircuit } from "../../../src/gkr/circuit.js";
import {
  circuitGateTerms,
  evaluateStructuredCircuit,
  validateStructuredCircuit,
} from "../../../src/gkr/structured/linear.js";
import { compile } from "../../../src/smt/compile.js";
import { buildInputVector } from "../../../src/smt/witness.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { EMPTY, TOMBSTONE, hashLeaf, occupied, type Leaf } from "../../../src/smt/leaf.js";
import { computeRoot } from "../../../src/smt/path.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { SmtError } from "../../../src/smt/errors.js";
import { CompileError } from "../../../src/smt/errors.js";
import { compileV2 } from "../../../src/smt/v2/compile.js";
import { buildV2Input } from "../../../src/smt/v2/input.js";
import { OpKind, opKindTag } from "../../../src/statement/types.js";
import { Rng } from "../../gkr/random-structured.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];

function allZero(v: Uint32Array): boolean {
  return v.every((x) => x === 0);
}

test("v2 circuits have 31 layers at every depth and leaf bound, and validate", () => {
  for (const kind of KINDS) {
    for (const [depth, leafMaxFields] of [
      [1, 10],
      [4, 31],
      [24, 31],
      [32, 31],
      [48, 31],
      [24, 63],
    ] as const) {
      const c = compileV2(kind, { depth, leafMaxFields });
      assert.equal(c.circuit.layers.length, 31, `kind ${kind} d ${depth} B ${leafMaxFields}`);
      validateStructuredCircuit(c.circuit);
    }
  }
  assert.throws(
    () => compileV2("bogus" as OpKind),
    (e) => e instanceof CompileError && e.code === "BAD_KIND",
  );
  assert.throws(
    () => compileV2(OpKind.Membership, { depth: 0 }),
    (e) => e instanceof CompileError && e.code === "UNSUPPORTED_CONFIG",
  );
});

test("d24 sizes: layers, widths and gate terms against compat-v1", () => {
  const rows = KINDS.map((kind) => {
    const v2 = compileV2(kind);
    const v1 = compile(kind);
    const v1Gates = v1.circuit.layers.reduce((a, l) => a + l.gateKind.length, 0);
    return {
      kind,
      v2Layers: v2.circuit.layers.length,
      v1Layers: v1.circuit.layers.length,
      v2Terms: circuitGateTerms(v2.circuit),
      v1Gates,
      perms: v2.layout.permutations,
    };
  });
  for (const r of rows) {
    assert.equal(r.v1Layers, 118);
    assert.equal(r.v2Layers, 31);
    // every permutation costs 1,968 terms; carry, multiplexer and checks add under 20 %
    assert.ok(r.v2Terms < 1.2 * 1968 * r.perms, JSON.stringify(r));
    assert.ok(r.v2Terms < 0.3 * r.v1Gates, JSON.stringify(r));
  }
  assert.deepEqual(
    rows.map((r) => r.perms),
    [28, 28, 56],
  );
});

function leafOf(rng: Rng): Leaf {
  const r = rng.int(3);
  if (r === 0) return EMPTY;
  if (r === 1) return TOMBSTONE;
  const payload = Array.from({ length: rng.int(4) }, () => rng.fe());
  return occupied(
    payload,
    Uint8Array.from({ length: 32 }, () => rng.int(256)),
  );
}

/** A random request (honest or not) of a kind at a depth: random leaves, siblings, key and, sometimes, wrong public values. */
function randomRequest(rng: Rng, kind: OpKind, depth: number): OpRequest {
  const siblings = Array.from({ length: depth }, () => Uint32Array.from({ length: 8 }, () => rng.fe()));
  const key = BigInt(rng.int(2 ** depth));
  const a = leafOf(rng);
  const b = rng.int(2) === 0 ? a : leafOf(rng);
  const oldRoot = computeRoot(a, key, siblings, depth);
  const newRoot = kind === OpKind.Update ? computeRoot(b, key, siblings, depth) : oldRoot.slice();
  const valueDigest = hashLeaf(kind === OpKind.Update ? b : a);
  const tamper = rng.int(6);
  if (tamper === 1) oldRoot[rng.int(8)] = (oldRoot[0]! + 1) % P;
  if (tamper === 2) newRoot[rng.int(8)] = (newRoot[0]! + 1) % P;
  if (tamper === 3) valueDigest[rng.int(8)] = (valueDigest[0]! + 1) % P;
  const operation =
    kind === OpKind.Membership && a.tag === 1
      ? { kind, key, leaf: a }
      : kind === OpKind.Update
        ? { kind, key, oldLeaf: a, newLeaf: b }
        : { kind: OpKind.NonMembership, key };
  const op =
    kind === OpKind.Membership && a.tag !== 1 ? { kind, key, leaf: occupied([1], new Uint8Array(32)) } : operation;
  return {
    operation: op as OpRequest["operation"],
    witness: { leaf: a, siblings },
    publicInputs: { oldRoot, newRoot, opKindTag: opKindTag(kind), assetId: key, valueDigest },
  };
}

test("native-semantics agreement: v2 outputs are all zero exactly when compat-v1's are, on honest and tampered requests", () => {
  const rng = new Rng(2024);
  let honest = 0,
    rejected = 0;
  for (const depth of [1, 3, 5]) {
    for (const kind of KINDS) {
      const v1 = compile(kind, { depth });
      const v2 = compileV2(kind, { depth });
      for (let n = 0; n < 30; n++) {
        const req = randomRequest(rng, kind, depth);
        const ok1 = allZero(evaluateCircuit(v1.circuit, buildInputVector(kind, v1.config, req))[0]!);
        const ok2 = allZero(evaluateStructuredCircuit(v2.circuit, buildV2Input(v2.layout, req))[0]!);
        assert.equal(ok2, ok1, `kind ${kind} depth ${depth} request ${n}`);
        if (ok1) honest++;
        else rejected++;
      }
    }
  }
  assert.ok(honest > 50 && rejected > 50, `both outcomes occur (${honest} honest, ${rejected} rejected)`);
});

test("honest golden fixtures give all-zero outputs at d24 and d32; each changed input value gives a non-zero output", () => {
  for (const depth of [24, 32]) {
    for (const kind of KINDS) {
      const c = compileV2(kind, { depth });
      const f = goldenFixture(kind, depth, 5n);
      const input = buildV2Input(c.layout, f);
      assert.equal(input.length, 2 ** c.circuit.inputWidthBits);
      assert.ok(allZero(evaluateStructuredCircuit(c.circuit, input)[0]!), `kind ${kind} d ${depth}`);
      if (depth !== 24) continue;
      // every meaningful input value is checked by some output (key bits: flipping 0 ↔ 1 breaks the root)
      for (let k = 0; k < c.layout.inputTotal; k += 3) {
        const bad = input.slice();
        bad[k] = k >= c.layout.keyBits ? 1 - bad[k]! : (bad[k]! + 1) % P;
        assert.ok(!allZero(evaluateStructuredCircuit(c.circuit, bad)[0]!), `kind ${kind}: input ${k} unchecked`);
      }
    }
  }
});

test("the v2 input builder refuses wrong sibling counts, a kind mismatch and unencodable leaves", () => {
  const c = compileV2(OpKind.Update, { depth: 4 });
  const f = goldenFixture(OpKind.Update, 4, 5n);
  assert.throws(
    () => buildV2Input(c.layout, { ...f, witness: { ...f.witness, siblings: f.witness.siblings.slice(1) } }),
    (e) => e instanceof SmtError && e.code === "PATH_LENGTH_MISMATCH",
  );
  const m = goldenFixture(OpKind.Membership, 4, 5n);
  assert.throws(
    () => buildV2Input(c.layout, m),
    (e) => e instanceof SmtError && e.code === "OP_KIND_MISMATCH",
  );
  const big = occupied(
    Array.from({ length: 30 }, (_, i) => i),
    new Uint8Array(32),
  );
  const cm = compileV2(OpKind.Membership, { depth: 4 });
  assert.throws(
    () =>
      buildV2Input(cm.layout, {
        ...m,
        operation: { kind: OpKind.Membership, key: 5n, leaf: big },
        witness: { ...m.witness, leaf: big },
      }),
    (e) => e instanceof SmtError && e.code === "LEAF_ENCODING",
  );
});
