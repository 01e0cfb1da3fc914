import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkOperation, type VerdictCode } from "../../src/smt/semantics.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { compile, type CompiledCircuit } from "../../src/smt/compile.js";
import { buildInputVector } from "../../src/smt/witness.js";
import { EMPTY, TOMBSTONE, hashLeaf, occupied, type Leaf } from "../../src/smt/leaf.js";
import type { OpRequest, Operation } from "../../src/smt/operation.js";
import { computeRoot } from "../../src/smt/path.js";
import { SparseMerkleTree } from "../../src/smt/tree.js";
import { evaluateCircuit } from "../../src/gkr/circuit.js";
import { P } from "../../src/field/koalabear.js";
import { OpKind } from "../../src/statement/types.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];
const bump = (d: Uint32Array, lane = 0) => {
  const c = d.slice();
  c[lane] = (c[lane]! + 1) % P;
  return c;
};
function verdict(r: OpRequest, depth: number): VerdictCode {
  return checkOperation(r, { depth }).code;
}

test("honest requests are VALID (golden fixtures at several depths; tree-derived updates)", () => {
  for (const depth of [1, 4, 24])
    for (const kind of KINDS) assert.equal(verdict(goldenFixture(kind, depth, 1n), depth), "VALID");
  const tree = new SparseMerkleTree({ depth: 5 });
  const id = new Uint8Array(32).fill(8);
  const records = [tree.insert(9n, [1, 2], id), tree.replace(9n, [3], id), tree.delete(9n), tree.restore(9n, [4], id)];
  for (const r of records) {
    const req: OpRequest = {
      operation: { kind: OpKind.Update, key: r.key, oldLeaf: r.oldLeaf, newLeaf: r.newLeaf },
      witness: { leaf: r.oldLeaf, siblings: r.siblings },
      publicInputs: {
        oldRoot: r.oldRoot,
        newRoot: r.newRoot,
        opKindTag: 2,
        assetId: r.key,
        valueDigest: hashLeaf(r.newLeaf),
      },
    };
    assert.equal(verdict(req, 5), "VALID");
  }
});

test("battery: forged cases get their stable codes", () => {
  const d = 4;
  const m = goldenFixture(OpKind.Membership, d, 5n);
  const n = goldenFixture(OpKind.NonMembership, d, 5n);
  const u = goldenFixture(OpKind.Update, d, 5n);
  const cases: [string, OpRequest, VerdictCode][] = [
    ["op kind tag", { ...m, publicInputs: { ...m.publicInputs, opKindTag: 1 } }, "OP_KIND_MISMATCH"],
    ["asset id", { ...m, publicInputs: { ...m.publicInputs, assetId: 6n } }, "ASSET_ID_MISMATCH"],
    [
      "read-only root change",
      { ...m, publicInputs: { ...m.publicInputs, newRoot: bump(m.publicInputs.newRoot) } },
      "ROOT_CHANGED",
    ],
    [
      "key out of range",
      { ...m, operation: { ...m.operation, key: 16n }, publicInputs: { ...m.publicInputs, assetId: 16n } },
      "KEY_OUT_OF_RANGE",
    ],
    [
      "wrong value digest",
      { ...m, publicInputs: { ...m.publicInputs, valueDigest: bump(m.publicInputs.valueDigest, 3) } },
      "VALUE_DIGEST_MISMATCH",
    ],
    [
      "non-membership digest of an occupied leaf",
      { ...n, publicInputs: { ...n.publicInputs, valueDigest: m.publicInputs.valueDigest } },
      "VALUE_DIGEST_MISMATCH",
    ],
    [
      "payload over the bound",
      { ...m, operation: { ...m.operation, leaf: occupied(new Array(22).fill(1), new Uint8Array(32)) } } as OpRequest,
      "LEAF_ENCODING",
    ],
    [
      "occupied witness claimed absent",
      { ...n, witness: { ...n.witness, leaf: m.witness.leaf } },
      "WITNESS_NOT_ABSENT",
    ],
    [
      "update witness ≠ old_leaf",
      { ...u, witness: { ...u.witness, leaf: occupied([101], new Uint8Array(32).fill(3)) } },
      "WITNESS_NOT_OLD_LEAF",
    ],
    ["path length", { ...m, witness: { ...m.witness, siblings: m.witness.siblings.slice(1) } }, "PATH_LENGTH_MISMATCH"],
    [
      "wrong sibling",
      { ...m, witness: { ...m.witness, siblings: m.witness.siblings.map((s, l) => (l === 2 ? bump(s, 5) : s)) } },
      "OLD_ROOT_MISMATCH",
    ],
    [
      "wrong root (both)",
      {
        ...n,
        publicInputs: {
          ...n.publicInputs,
          oldRoot: bump(n.publicInputs.oldRoot),
          newRoot: bump(n.publicInputs.newRoot),
        },
      },
      "OLD_ROOT_MISMATCH",
    ],
    [
      "update wrong new root",
      { ...u, publicInputs: { ...u.publicInputs, newRoot: bump(u.publicInputs.newRoot, 7) } },
      "NEW_ROOT_MISMATCH",
    ],
    [
      "update wrong old root",
      { ...u, publicInputs: { ...u.publicInputs, oldRoot: bump(u.publicInputs.oldRoot, 7) } },
      "OLD_ROOT_MISMATCH",
    ],
    [
      "update with a long old leaf",
      {
        ...u,
        operation: { ...u.operation, oldLeaf: occupied(new Array(30).fill(0), new Uint8Array(32)) },
        witness: { ...u.witness, leaf: occupied(new Array(30).fill(0), new Uint8Array(32)) },
      } as OpRequest,
      "LEAF_ENCODING",
    ],
    ["tombstone witness with Empty digest", { ...n, witness: { ...n.witness, leaf: TOMBSTONE } }, "OLD_ROOT_MISMATCH"],
    [
      "non-canonical sibling",
      {
        ...m,
        witness: {
          ...m.witness,
          siblings: m.witness.siblings.map((s, l) => (l === 1 ? new Uint32Array(8).fill(P) : s)),
        },
      },
      "MALFORMED_REQUEST",
    ],
    [
      "bad operation kind",
      { ...m, operation: { ...m.operation, kind: 7 } } as unknown as OpRequest,
      "MALFORMED_REQUEST",
    ],
    ["number key", { ...m, operation: { ...m.operation, key: 5 } } as unknown as OpRequest, "MALFORMED_REQUEST"],
    ["missing witness", { ...m, witness: null } as unknown as OpRequest, "MALFORMED_REQUEST"],
  ];
  for (const [name, req, code] of cases) assert.equal(verdict(req, d), code, name);

  // Membership whose witness leaf differs from the payload leaf, with a root that matches the witness leaf.
  const other = occupied([42, 6], new Uint8Array(32).fill(9));
  const otherRoot = computeRoot(other, 5n, m.witness.siblings, d);
  const swapped: OpRequest = {
    ...m,
    witness: { ...m.witness, leaf: other },
    publicInputs: { ...m.publicInputs, oldRoot: otherRoot, newRoot: otherRoot },
  };
  assert.equal(verdict(swapped, d), "WITNESS_DIGEST_MISMATCH");
  // A tombstone slot proven absent with the Tombstone digest.
  const tombRoot = computeRoot(TOMBSTONE, 5n, n.witness.siblings, d);
  const tomb: OpRequest = {
    ...n,
    witness: { ...n.witness, leaf: TOMBSTONE },
    publicInputs: { ...n.publicInputs, oldRoot: tombRoot, newRoot: tombRoot, valueDigest: hashLeaf(TOMBSTONE) },
  };
  assert.equal(verdict(tomb, d), "VALID");
  const bad = checkOperation(swapped, { depth: d });
  assert.equal(bad.valid, false);
  assert.match(bad.message, /value_digest/);
});

/** Codes for rules the verifier checks natively, outside the circuit (§13.2 steps 2–7). */
const NATIVE_ONLY = new Set<VerdictCode>([
  "OP_KIND_MISMATCH",
  "ASSET_ID_MISMATCH",
  "ROOT_CHANGED",
  "KEY_OUT_OF_RANGE",
  "VALUE_DIGEST_MISMATCH",
  "WITNESS_NOT_ABSENT",
  "WITNESS_NOT_OLD_LEAF",
]);

test("differential: the oracle agrees with circuit evaluation on random forgeries (depth 3)", () => {
  const depth = 3;
  const circuits = new Map<OpKind, CompiledCircuit>(KINDS.map((k) => [k, compile(k, { depth })]));
  const leafArb: fc.Arbitrary<Leaf> = fc.oneof(
    fc.constant(EMPTY),
    fc.constant(TOMBSTONE),
    fc
      .record({ p: fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 2 }), b: fc.constantFrom(3, 9) })
      .map(({ p, b }) => occupied(p, new Uint8Array(32).fill(b))),
  );
  const mutation = fc.oneof(
    fc.record({
      t: fc.constant("sibling" as const),
      l: fc.integer({ min: 0, max: depth - 1 }),
      lane: fc.integer({ min: 0, max: 7 }),
    }),
    fc.record({ t: fc.constant("oldRoot" as const), alsoNew: fc.boolean() }),
    fc.record({ t: fc.constant("newRoot" as const) }),
    fc.record({ t: fc.constant("valueDigest" as const), leaf: leafArb }),
    fc.record({ t: fc.constant("witnessLeaf" as const), leaf: leafArb }),
    fc.record({ t: fc.constant("opLeaf" as const), leaf: leafArb, which: fc.boolean() }),
    fc.record({ t: fc.constant("key" as const), key: fc.bigInt({ min: 0n, max: 9n }), asset: fc.boolean() }),
    fc.record({ t: fc.constant("tag" as const), tag: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ t: fc.constant("none" as const) }),
  );
  fc.assert(
    fc.property(
      fc.constantFrom(...KINDS),
      fc.bigInt({ min: 0n, max: 7n }),
      fc.array(mutation, { minLength: 1, maxLength: 2 }),
      (kind, key, muts) => {
        const f = goldenFixture(kind, depth, key);
        let op: Operation = f.operation;
        let witness = f.witness;
        let pub = f.publicInputs;
        for (const m of muts) {
          switch (m.t) {
            case "sibling":
              witness = { ...witness, siblings: witness.siblings.map((s, l) => (l === m.l ? bump(s, m.lane) : s)) };
              break;
            case "oldRoot":
              pub = { ...pub, oldRoot: bump(pub.oldRoot), ...(m.alsoNew ? { newRoot: bump(pub.newRoot) } : {}) };
              break;
            case "newRoot":
              pub = { ...pub, newRoot: bump(pub.newRoot, 2) };
              break;
            case "valueDigest":
              pub = { ...pub, valueDigest: hashLeaf(m.leaf) };
              break;
            case "witnessLeaf":
              witness = { ...witness, leaf: m.leaf };
              break;
            case "opLeaf":
              if (op.kind === OpKind.Update) op = m.which ? { ...op, oldLeaf: m.leaf } : { ...op, newLeaf: m.leaf };
              else if (op.kind === OpKind.Membership && m.leaf.tag === 1) op = { ...op, leaf: m.leaf };
              break;
            case "key":
              op = { ...op, key: m.key };
              if (m.asset) pub = { ...pub, assetId: m.key };
              break;
            case "tag":
              pub = { ...pub, opKindTag: m.tag };
              break;
          }
        }
        const req: OpRequest = { operation: op, witness, publicInputs: pub };
        const v = checkOperation(req, { depth });
        let circuitAccepts = false;
        try {
          const out = evaluateCircuit(circuits.get(kind)!.circuit, buildInputVector(kind, f.config, req))[0]!;
          circuitAccepts = out.every((x) => x === 0);
        } catch {
          circuitAccepts = false;
        }
        if (v.valid) assert.ok(circuitAccepts, "a VALID request satisfies the circuit");
        if (!circuitAccepts) assert.equal(v.valid, false, "a circuit failure is never VALID");
        if (circuitAccepts && !v.valid) assert.ok(NATIVE_ONLY.has(v.code), `circuit accepts but oracle says ${v.code}`);
      },
    ),
    { numRuns: 150 },
  );
});
