import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { dummyRequest } from "../../../src/smt/v2/dummy.js";
import { checkStatement } from "../../../src/smt/semantics.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { OpKind } from "../../../src/statement/types.js";
import { SyncError } from "../../../src/statement/errors.js";
import { decodeAggregateV2, decodeProofV2 } from "../../../src/codec/v2/decode.js";
import { V2DecodeError } from "../../../src/codec/v2/errors.js";
import {
  type PreparedV2,
  prepareV2,
  proveAggregate,
  statementCheck,
  statementChecks,
  verifyAggregate,
} from "../../../src/sync/v2/index.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];
const DEPTH = 3;
const prepared = new Map<OpKind, PreparedV2>();
function prep(kind: OpKind): PreparedV2 {
  if (!prepared.has(kind)) prepared.set(kind, prepareV2(kind, { depth: DEPTH }));
  return prepared.get(kind)!;
}
const reqs = (kind: OpKind, n: number): OpRequest[] =>
  Array.from({ length: n }, (_, i) => goldenFixture(kind, DEPTH, BigInt(i % 8)));

test("the dummy operation is a valid statement of every kind, depth and leaf bound", () => {
  for (const kind of KINDS)
    for (const depth of [1, 24])
      for (const leafMaxFields of [10, 31]) {
        const v = checkStatement(
          dummyRequest(kind, prepareV2(kind, { depth: Math.min(depth, 4), leafMaxFields }).config),
          { depth: Math.min(depth, 4), leafMaxFields },
        );
        assert.ok(v.valid, `kind ${kind} depth ${depth} B ${leafMaxFields}: ${JSON.stringify(v)}`);
      }
});

test("honest aggregates of 1, 3, 4 and 5 operations of every kind verify; a partial batch is padded", () => {
  for (const kind of KINDS) {
    for (const n of [1, 3, 4, 5]) {
      const rs = reqs(kind, n);
      let copies = 0;
      const bytes = proveAggregate(prep(kind), rs, (t) => {
        copies = t.copies;
      });
      assert.equal(copies, n <= 1 ? 1 : n <= 4 ? 4 : 8);
      assert.deepEqual(verifyAggregate(prep(kind), rs, bytes), { ok: true }, `kind ${kind} n ${n}`);
      assert.equal(decodeAggregateV2(bytes).statementChecks.length, n);
      assert.throws(
        () => decodeProofV2(bytes),
        (e) => e instanceof V2DecodeError && e.code === "UnsupportedProofKind",
      );
    }
  }
});

test("aggregate tamper battery: swapped, dropped, added or replaced operations, changed statement bytes and changed fields are rejected, naming the operation", () => {
  const kind = OpKind.Update;
  const rs = reqs(kind, 4);
  const bytes = proveAggregate(prep(kind), rs);
  const p = prep(kind);
  const code = (v: ReturnType<typeof verifyAggregate>) => (v.ok ? "ok" : v.code);
  // order is part of the statement
  assert.equal(code(verifyAggregate(p, [rs[1]!, rs[0]!, rs[2]!, rs[3]!], bytes)), "PUBLIC_INPUTS_MISMATCH");
  assert.equal(code(verifyAggregate(p, rs.slice(0, 3), bytes)), "OPERATION_COUNT");
  assert.equal(code(verifyAggregate(p, [...rs, rs[0]!], bytes)), "OPERATION_COUNT");
  const other = goldenFixture(kind, DEPTH, 7n);
  const v = verifyAggregate(p, [rs[0]!, rs[1]!, other, rs[3]!], bytes);
  assert.equal(code(v), "PUBLIC_INPUTS_MISMATCH");
  assert.equal((v as { operation?: number }).operation, 2);
  // a changed sibling of operation 3 (public inputs unchanged): caught by the GKR input claim
  const bad = {
    ...rs[3]!,
    witness: {
      ...rs[3]!.witness,
      siblings: rs[3]!.witness.siblings.map((s, l) => (l === 1 ? s.map((x) => (x + 1) % P) : s)),
    },
  };
  assert.match(code(verifyAggregate(p, [rs[0]!, rs[1]!, rs[2]!, bad as OpRequest], bytes)), /^(INPUT_CLAIM_|GKR_)/);
  // every statement byte and bytes across the proof
  const statementsEnd = 61 + 4 + 8 * 4;
  for (let at = 0; at < statementsEnd; at++) {
    const b = bytes.slice();
    b[at] = b[at]! ^ 1;
    assert.equal(verifyAggregate(p, rs, b).ok, false, `byte ${at}`);
  }
  for (let at = statementsEnd; at < bytes.length; at += 97) {
    const b = bytes.slice();
    b[at] = b[at]! ^ 4;
    assert.equal(verifyAggregate(p, rs, b).ok, false, `byte ${at}`);
  }
});

test("a false statement inside an aggregate (its proof made honestly from the lie) is rejected", () => {
  const kind = OpKind.Membership;
  const rs = reqs(kind, 4);
  const lie: OpRequest = {
    ...rs[2]!,
    publicInputs: {
      ...rs[2]!.publicInputs,
      oldRoot: rs[0]!.publicInputs.oldRoot,
      newRoot: rs[0]!.publicInputs.oldRoot,
    },
  };
  const forged = [rs[0]!, rs[1]!, lie, rs[3]!];
  const bytes = proveAggregate(prep(kind), forged);
  const v = verifyAggregate(prep(kind), forged, bytes);
  assert.equal(v.ok, false);
  assert.match((v as { code: string }).code, /^GKR_/);
});

test("proveAggregate refuses empty or oversized batches and requests of another kind", () => {
  assert.throws(
    () => proveAggregate(prep(OpKind.Membership), []),
    (e) => e instanceof SyncError && e.code === "BAD_AGGREGATE",
  );
  assert.throws(
    () => proveAggregate(prep(OpKind.Membership), [reqs(OpKind.Membership, 1)[0]!, reqs(OpKind.Update, 1)[0]!]),
    (e) => e instanceof SyncError && e.code === "WRONG_KIND" && e.details.operation === 1,
  );
  const v = verifyAggregate(prep(OpKind.Membership), reqs(OpKind.Membership, 2), new Uint8Array(10));
  assert.equal((v as { code: string }).code, "DECODE_HeaderTooShort");
});

test("statementChecks equals statementCheck per operation: every kind, random and edge statements, 0/1/5/17 operations; a malformed statement throws", () => {
  const rng = (seed: number) => () => (seed = (seed * 1103515245 + 12345) >>> 0) % P;
  const next = rng(11);
  const digestOf = (edge: number): number[] =>
    Array.from({ length: 8 }, () => (edge === 0 ? 0 : edge === 1 ? P - 1 : next()));
  for (const n of [0, 1, 5, 17]) {
    const pubs = Array.from({ length: n }, (_, i) => {
      if (i % 3 === 0) return goldenFixture(KINDS[i % 3]!, DEPTH, BigInt(i % 8)).publicInputs;
      const edge = i % 5;
      return {
        oldRoot: digestOf(edge),
        newRoot: digestOf(edge + 1),
        opKindTag: i % 3,
        assetId: edge === 0 ? 0n : edge === 1 ? (1n << 64n) - 1n : BigInt(next()) * 65537n,
        valueDigest: digestOf(edge + 2),
      };
    }) as unknown as Parameters<typeof statementChecks>[0];
    const batch = statementChecks(pubs);
    assert.equal(batch.length, 2 * n);
    pubs.forEach((p, i) => assert.deepEqual([batch[2 * i], batch[2 * i + 1]], statementCheck(p), `n ${n} op ${i}`));
  }
  const good = goldenFixture(OpKind.Membership, DEPTH, 1n).publicInputs;
  assert.throws(() => statementChecks([good, { ...good, oldRoot: [P] } as never]));
});

test("an aggregate with a malformed request keeps the reference's verdict: the earlier wrong kind is named first, else MALFORMED_REQUEST", () => {
  const rs = reqs(OpKind.Membership, 4);
  const bytes = proveAggregate(prep(OpKind.Membership), rs);
  const broken = { ...rs[3]!, publicInputs: { ...rs[3]!.publicInputs, oldRoot: [P] } } as never;
  const wrongKind = reqs(OpKind.Update, 2)[1]!;
  const v1 = verifyAggregate(prep(OpKind.Membership), [rs[0]!, wrongKind, rs[2]!, broken], bytes);
  assert.equal(v1.ok ? "ok" : `${v1.code}@${v1.operation}`, "WRONG_KIND@1");
  const v2 = verifyAggregate(prep(OpKind.Membership), [rs[0]!, rs[1]!, rs[2]!, broken], bytes);
  assert.equal(v2.ok ? "ok" : v2.code, "MALFORMED_REQUEST");
  const v3 = verifyAggregate(prep(OpKind.Membership), [rs[0]!, rs[2]!, rs[1]!, rs[3]!], bytes);
  assert.equal(v3.ok ? "ok" : `${v3.code}@${v3.operation}`, "PUBLIC_INPUTS_MISMATCH@1");
});
