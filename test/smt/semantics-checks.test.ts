/**
 * The statement checks of the native semantics (src/smt/semantics.ts, compat-v1 §13.2 steps 2–7)
 * one condition at a time: each case passes every other check, so only the condition named
 * decides the code.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { EMPTY, LeafTag, TOMBSTONE, hashLeaf, type Leaf } from "../../src/smt/leaf.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { checkOperation, checkStatement, type Verdict } from "../../src/smt/semantics.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind, type PublicInputs } from "../../src/statement/types.js";

const D = 4;
const m = goldenFixture(OpKind.Membership, D, 3n);
const n = goldenFixture(OpKind.NonMembership, D, 3n);
const u = goldenFixture(OpKind.Update, D, 3n);
const pubWith = (r: OpRequest, change: Partial<PublicInputs>): OpRequest => ({
  ...r,
  publicInputs: { ...r.publicInputs, ...change },
});
const both = (r: OpRequest): [Verdict, Verdict] => [checkStatement(r, { depth: D }), checkOperation(r, { depth: D })];

function expectCode(r: OpRequest, code: string, what: string): void {
  for (const v of both(r)) {
    assert.equal(v.code, code, what);
    assert.equal(v.valid, code === "VALID", what);
  }
}

test("honest fixtures and a Tombstone non-membership are VALID in both checks", () => {
  for (const r of [m, n, u]) expectCode(r, "VALID", `kind ${r.operation.kind}`);
  const tomb: OpRequest = {
    ...n,
    witness: { ...n.witness, leaf: TOMBSTONE },
    publicInputs: { ...n.publicInputs, valueDigest: hashLeaf(TOMBSTONE) },
  };
  assert.equal(checkStatement(tomb, { depth: D }).code, "VALID");
  const v = checkStatement(m, { depth: D });
  assert.equal(v.cause, undefined);
});

test("public-input values outside their types are MALFORMED_REQUEST, not a later mismatch", () => {
  expectCode(pubWith(m, { assetId: 1n << 64n }), "MALFORMED_REQUEST", "asset id 2^64");
  expectCode(pubWith(m, { assetId: -1n }), "MALFORMED_REQUEST", "asset id -1");
  expectCode(pubWith(m, { assetId: 3 as unknown as bigint }), "MALFORMED_REQUEST", "asset id as a number");
  expectCode(pubWith(m, { opKindTag: 7 as never }), "MALFORMED_REQUEST", "op kind tag 7");
  expectCode(pubWith(m, { opKindTag: -1 as never }), "MALFORMED_REQUEST", "op kind tag -1");
  // The largest u64 is a well-formed asset id: a mismatch, not a malformed value.
  expectCode(pubWith(m, { assetId: (1n << 64n) - 1n }), "ASSET_ID_MISMATCH", "asset id 2^64 - 1");
  // Each valid tag is well-formed: the mismatch is reported.
  expectCode(pubWith(m, { opKindTag: 1 }), "OP_KIND_MISMATCH", "tag 1");
  expectCode(pubWith(m, { opKindTag: 2 }), "OP_KIND_MISMATCH", "tag 2");
  expectCode(pubWith(n, { opKindTag: 0 }), "OP_KIND_MISMATCH", "tag 0");
});

test("a membership must carry an Occupied leaf, even with a digest that matches what it carries", () => {
  for (const leaf of [TOMBSTONE, EMPTY] as Leaf[]) {
    const r = {
      ...pubWith(m, { valueDigest: hashLeaf(leaf) }),
      operation: { ...m.operation, leaf },
      witness: { ...m.witness, leaf },
    } as OpRequest;
    expectCode(r, "MALFORMED_REQUEST", `membership of tag ${leaf.tag}`);
  }
  const noLeaf = { ...m, operation: { ...m.operation, leaf: null } } as unknown as OpRequest;
  expectCode(noLeaf, "MALFORMED_REQUEST", "membership without a leaf");
  const notObject = { ...m, operation: { ...m.operation, leaf: "leaf" } } as unknown as OpRequest;
  expectCode(notObject, "MALFORMED_REQUEST", "membership with a string leaf");
});

test("a non-membership witness leaf must be an Empty or Tombstone object", () => {
  const fnLeaf = Object.assign(() => undefined, { tag: LeafTag.Empty });
  for (const [leaf, what] of [
    [null, "null"],
    [fnLeaf, "a function with an Empty tag"],
    [{ tag: LeafTag.Occupied }, "an Occupied tag"],
  ] as const) {
    const r = { ...n, witness: { ...n.witness, leaf } } as unknown as OpRequest;
    assert.equal(checkStatement(r, { depth: D }).code, "WITNESS_NOT_ABSENT", what);
  }
});

test("an update witness leaf must equal old_leaf", () => {
  if (u.operation.kind !== OpKind.Update) throw new Error("fixture kind");
  expectCode({ ...u, witness: { ...u.witness, leaf: EMPTY } }, "WITNESS_NOT_OLD_LEAF", "empty witness");
  // The update circuit does not read the witness leaf: the circuit-level checks would pass.
  assert.equal(
    checkStatement({ ...u, witness: { ...u.witness, leaf: u.operation.newLeaf } }, { depth: D }).code,
    "WITNESS_NOT_OLD_LEAF",
  );
});

test("the key must be below 2^depth, at the boundary too", () => {
  const at = (key: bigint): OpRequest => ({ ...pubWith(m, { assetId: key }), operation: { ...m.operation, key } });
  // Key 15 is in range: the statement holds natively (its path is the circuit's business).
  assert.equal(checkStatement(at(15n), { depth: D }).code, "VALID");
  assert.equal(checkOperation(at(15n), { depth: D }).code, "OLD_ROOT_MISMATCH");
  assert.equal(checkStatement(at(16n), { depth: D }).code, "KEY_OUT_OF_RANGE");
  // At depth 64 every u64 key is in range.
  assert.notEqual(checkStatement(at((1n << 64n) - 1n), { depth: 64 }).code, "KEY_OUT_OF_RANGE");
});

test("causes: leaf-encoding and library errors carry the underlying code, type errors none", () => {
  if (m.operation.kind !== OpKind.Membership) throw new Error("fixture kind");
  const long = { ...m.operation.leaf, payload: new Array(40).fill(1) };
  const unhashable = {
    ...m,
    operation: { ...m.operation, leaf: long },
    witness: { ...m.witness, leaf: long },
  } as OpRequest;
  const v1 = checkStatement(unhashable, { depth: D });
  assert.deepEqual([v1.code, v1.cause], ["LEAF_ENCODING", "LEAF_ENCODING"]);
  // A non-canonical payload value is a field error, not a leaf-encoding one.
  const bad = { ...m.operation.leaf, payload: [P] };
  const nonCanonical = {
    ...m,
    operation: { ...m.operation, leaf: bad },
    witness: { ...m.witness, leaf: bad },
  } as OpRequest;
  const v2 = checkStatement(nonCanonical, { depth: D });
  assert.equal(v2.code, "MALFORMED_REQUEST");
  assert.ok(v2.cause !== undefined && v2.cause !== "LEAF_ENCODING", String(v2.cause));
  // A missing public-input object is a TypeError-free MALFORMED_REQUEST; a throwing getter's TypeError has no cause.
  const v3 = checkStatement({ ...m, publicInputs: null } as unknown as OpRequest, { depth: D });
  assert.equal(v3.code, "MALFORMED_REQUEST");
  const getter = {
    ...m,
    get witness(): never {
      throw new TypeError("no witness");
    },
  } as unknown as OpRequest;
  const v4 = checkStatement(getter, { depth: D });
  assert.deepEqual([v4.valid, v4.code, v4.cause], [false, "MALFORMED_REQUEST", undefined]);
  assert.match(v4.message, /no witness/);
  // Errors that are neither library nor type errors propagate.
  const boom = {
    ...m,
    get witness(): never {
      throw new Error("boom");
    },
  } as unknown as OpRequest;
  assert.throws(() => checkStatement(boom, { depth: D }), /boom/);
  assert.throws(() => checkOperation(boom, { depth: D }), /boom/);
});

test("an operation or witness that is a function carrying the right fields is MALFORMED_REQUEST", () => {
  const fnOp = Object.assign(() => undefined, m.operation);
  expectCode({ ...m, operation: fnOp } as unknown as OpRequest, "MALFORMED_REQUEST", "function operation");
  const fnWitness = Object.assign(() => undefined, m.witness);
  expectCode({ ...m, witness: fnWitness } as unknown as OpRequest, "MALFORMED_REQUEST", "function witness");
  const fnPub = Object.assign(() => undefined, m.publicInputs);
  expectCode({ ...m, publicInputs: fnPub } as unknown as OpRequest, "MALFORMED_REQUEST", "function public inputs");
});

test("checkStatement leaves roots and paths to the circuit; checkOperation checks them", () => {
  const wrongPath: OpRequest = { ...m, witness: { ...m.witness, siblings: m.witness.siblings.slice(1) } };
  assert.equal(checkStatement(wrongPath, { depth: D }).code, "VALID");
  assert.equal(checkOperation(wrongPath, { depth: D }).code, "PATH_LENGTH_MISMATCH");
  const movedRoot = pubWith(u, { newRoot: m.publicInputs.oldRoot });
  assert.equal(checkStatement(movedRoot, { depth: D }).code, "VALID");
  assert.equal(checkOperation(movedRoot, { depth: D }).code, "NEW_ROOT_MISMATCH");
});
