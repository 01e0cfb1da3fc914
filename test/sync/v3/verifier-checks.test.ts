/**
 * Every check of the v3 verifiers with its code, in order, on messages built for it: the circuit
 * identity field by field, the count, each statement's kind and form (naming the operation), the
 * commitment's set and shape, an opening of another set or shape, malformed arguments; and the
 * provers' refusals of requests they cannot prove.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { decodeV3Message, encodeV3Message } from "../../../src/codec/v3/message.js";
import { encodeWhirCommitment } from "../../../src/pcs/codec.js";
import { whirCommit } from "../../../src/pcs/api.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { TOMBSTONE } from "../../../src/smt/leaf.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3Statement } from "../../../src/smt/v3/statement.js";
import { OpKind } from "../../../src/statement/types.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  v3Identity,
  type V3Timings,
} from "../../../src/sync/v3/index.js";
import { blockFixture, blockUpdates, verdictCode } from "./support.js";

const DEPTH = 4;
const p = prepareV3(OpKind.Membership, { depth: DEPTH });
const requests = [1n, 6n, 11n].map((k) => goldenFixture(OpKind.Membership, DEPTH, k));
const statements = requests.map((r) => v3StatementOf(r));
// proved in a hook, so that a prover that throws fails the tests instead of the file's import
let BYTES: Uint8Array;
let M: ReturnType<typeof decodeV3Message>;
before(() => {
  BYTES = proveAggregateV3(p, requests);
  M = decodeV3Message(BYTES);
});

const verify = (st: unknown, bytes?: Uint8Array, options = {}) =>
  verdictCode(verifyAggregateV3(p, st as V3Statement[], bytes ?? BYTES, options));

function patched(at: number, values: number[]): Uint8Array {
  const b = BYTES.slice();
  b.set(values, at);
  return b;
}

function u32(x: number): number[] {
  return [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff];
}

test("the circuit identity is checked field by field: op kind, depth, leaf bound, circuit commitment", () => {
  assert.equal(verify(statements), "ok");
  assert.equal(verify(statements, patched(17, [1])), "IDENTITY_MISMATCH", "op kind tag");
  assert.equal(verify(statements, patched(18, u32(DEPTH + 1))), "IDENTITY_MISMATCH", "depth");
  assert.equal(verify(statements, patched(26, [30, 0])), "IDENTITY_MISMATCH", "leaf bound");
  for (const i of [0, 7]) {
    const c = Uint32Array.from(M.identity.commitment);
    c[i] = (c[i]! + 1) % P;
    assert.equal(
      verify(statements, encodeV3Message({ ...M, identity: { ...M.identity, commitment: c } })),
      "IDENTITY_MISMATCH",
      `commitment word ${i}`,
    );
  }
  // the identity comes before the count and the statements
  assert.equal(verify(statements.slice(1), patched(18, u32(DEPTH + 1))), "IDENTITY_MISMATCH");
  assert.deepEqual(v3Identity(p), M.identity);
  // another prepared circuit of the same kind and depth but another leaf bound refuses the proof
  assert.equal(
    verdictCode(
      verifyAggregateV3(prepareV3(OpKind.Membership, { depth: DEPTH, leafMaxFields: 30 }), statements, BYTES),
    ),
    "IDENTITY_MISMATCH",
  );
});

test("the count, then each statement's kind and form, then its check, naming the operation", () => {
  assert.equal(verify(statements.slice(0, 2)), "OPERATION_COUNT");
  assert.equal(verify([...statements, statements[0]]), "OPERATION_COUNT");
  assert.equal(verify("three statements"), "OPERATION_COUNT");
  assert.equal(verify(null), "OPERATION_COUNT");
  const nonMembership = v3StatementOf(goldenFixture(OpKind.NonMembership, DEPTH, 6n));
  const s1 = statements[1]! as Extract<V3Statement, { kind: OpKind.Membership }>;
  const cases: [string, unknown][] = [
    ["WRONG_KIND@1", nonMembership],
    ["WRONG_KIND@1", null],
    ["WRONG_KIND@1", 7],
    ["BAD_STATEMENT@1", { ...s1, key: 1n << BigInt(DEPTH) }],
    ["BAD_STATEMENT@1", { ...s1, key: -1n }],
    ["BAD_STATEMENT@1", { ...s1, key: 6 }],
    ["BAD_STATEMENT@1", { ...s1, root: s1.root.subarray(0, 7) }],
    ["BAD_STATEMENT@1", { ...s1, root: Uint32Array.from([P, 0, 0, 0, 0, 0, 0, 0]) }],
    ["BAD_STATEMENT@1", { ...s1, leaf: TOMBSTONE }],
    ["PUBLIC_INPUTS_MISMATCH@1", { ...s1, key: 7n }],
  ];
  for (const [want, s] of cases) assert.equal(verify([statements[0], s, statements[2]]), want, want);
  // the first bad statement is the one named, and a bad form comes before any check is compared
  assert.equal(verify([statements[1], statements[0], nonMembership]), "WRONG_KIND@2");
  assert.equal(verify([statements[1], { ...s1, key: 99n }, statements[2]]), "BAD_STATEMENT@1");
  assert.equal(verify([statements[0], statements[2], statements[1]]), "PUBLIC_INPUTS_MISMATCH@1");
  // each of the two check elements is compared
  for (const j of [0, 1] as const) {
    const checks = M.statementChecks.map((c, i): readonly [number, number] =>
      i !== 2 ? c : j === 0 ? [(c[0] + 1) % P, c[1]] : [c[0], (c[1] + 1) % P],
    );
    assert.equal(
      verify(statements, encodeV3Message({ ...M, statementChecks: checks })),
      "PUBLIC_INPUTS_MISMATCH@2",
      `check element ${j}`,
    );
  }
});

test("the commitment's set and shape, and an opening of another set or shape", () => {
  const layout = p.compiled.layout;
  const m0 = 2 + layout.inputBits - 1;
  // a commitment to a polynomial of another size, or of extension values
  const bigger = encodeWhirCommitment(whirCommit(new Uint32Array(2 ** (m0 + 1))).commitment);
  const smaller = encodeWhirCommitment(whirCommit(new Uint32Array(2 ** (m0 - 1))).commitment);
  const wide = encodeWhirCommitment(whirCommit(new Uint32Array(4 * 2 ** m0), { width: 4 }).commitment);
  for (const [what, commitment] of [
    ["bigger", bigger],
    ["smaller", smaller],
    ["width 4", wide],
  ] as const) {
    assert.equal(verify(statements, encodeV3Message({ ...M, commitment })), "COMMITMENT_SHAPE", what);
  }
  // a commitment in a set the verifier does not accept comes first
  const weak = encodeWhirCommitment(whirCommit(new Uint32Array(2 ** (m0 + 1)), { set: "cb90-r4" }).commitment);
  assert.equal(verify(statements, encodeV3Message({ ...M, commitment: weak })), "PCS_SET_NOT_ACCEPTED");
  assert.equal(
    verify(statements, encodeV3Message({ ...M, commitment: weak }), { alsoAccept: ["cb90-r4"] }),
    "COMMITMENT_SHAPE",
  );
  // the opening of a proof in another (accepted) set
  const ud = decodeV3Message(proveAggregateV3(p, requests, { pcsSet: "ud100-r4" }));
  assert.equal(verify(statements, encodeV3Message(ud)), "ok");
  assert.equal(verify(statements, encodeV3Message({ ...M, opening: ud.opening })), "PCS_SET_NOT_ACCEPTED");
  assert.equal(verify(statements, encodeV3Message({ ...ud, opening: M.opening })), "PCS_SET_NOT_ACCEPTED");
  // the opening of a proof with another copy count (another number of variables)
  const one = decodeV3Message(proveAggregateV3(p, requests.slice(0, 1)));
  assert.equal(verify(statements, encodeV3Message({ ...M, opening: one.opening })), "PCS_SHAPE");
  // a malformed verifier option is a verdict, not an exception
  assert.equal(verify(statements, BYTES, { accept: "everything" }), "MALFORMED_REQUEST");
});

test("the block verifier: empty, malformed roots and updates are verdicts", () => {
  const u = prepareV3(OpKind.Update, { depth: DEPTH });
  const { updates, rules, fromRoot, toRoot } = blockFixture(DEPTH, 3);
  const bytes = proveBlockV3(u, updates, { rules });
  const list = blockUpdates(updates, rules);
  const v = (roots: unknown, l: unknown, b: Uint8Array = bytes) =>
    verdictCode(verifyBlockV3(u, roots as { fromRoot: Uint32Array; toRoot: Uint32Array }, l as typeof list, b));
  assert.equal(v({ fromRoot, toRoot }, list), "ok");
  assert.equal(v({ fromRoot, toRoot }, "updates"), "EMPTY_BLOCK");
  assert.equal(v({ fromRoot, toRoot }, []), "EMPTY_BLOCK");
  assert.equal(v(null, list), "MALFORMED_REQUEST");
  assert.equal(v({ fromRoot: fromRoot.subarray(0, 4), toRoot }, list), "BAD_STATEMENT@0");
  assert.equal(v({ fromRoot, toRoot: toRoot.subarray(0, 4) }, list), "BAD_STATEMENT@2");
  assert.equal(v({ fromRoot, toRoot }, [list[0], null, list[2]]), "MALFORMED_REQUEST");
  assert.equal(
    v({ fromRoot, toRoot }, [list[0], { ...list[1]!, oldLeaf: { rule: "some" } }, list[2]]),
    "BAD_STATEMENT@1",
  );
  assert.equal(v({ fromRoot, toRoot }, list, bytes.subarray(0, 16)), "DECODE_HeaderTooShort");
  assert.equal(v({ fromRoot, toRoot }, list, "bytes" as unknown as Uint8Array), "DECODE_NotBytes");
  // a block's roots count is checked against the list before the statements are built
  const m = decodeV3Message(bytes);
  assert.equal(v({ fromRoot, toRoot }, list.slice(0, 2)), "OPERATION_COUNT");
  assert.equal(m.roots.length, 2);
});

test("the provers refuse what they cannot prove, naming the request", () => {
  const code = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      const err = e as { code?: string; details?: Record<string, unknown> };
      return `${err.code}${err.details?.["operation"] === undefined ? "" : `@${String(err.details["operation"])}`}`;
    }
    return "proved";
  };
  assert.equal(
    code(() => proveAggregateV3(p, [])),
    "BAD_AGGREGATE",
  );
  assert.equal(
    code(() => proveAggregateV3(p, "requests" as unknown as OpRequest[])),
    "BAD_AGGREGATE",
  );
  assert.equal(
    code(() =>
      proveAggregateV3(
        p,
        Array.from({ length: 4097 }, () => requests[0]!),
      ),
    ),
    "BAD_AGGREGATE",
  );
  const nm = goldenFixture(OpKind.NonMembership, DEPTH, 6n);
  assert.equal(
    code(() => proveAggregateV3(p, [requests[0]!, nm])),
    "WRONG_KIND@1",
  );
  assert.equal(
    code(() => proveAggregateV3(p, [requests[0]!, null as unknown as OpRequest])),
    "WRONG_KIND@1",
  );
  const short = {
    ...requests[2]!,
    witness: { ...requests[2]!.witness, siblings: requests[2]!.witness.siblings.slice(1) },
  };
  assert.equal(
    code(() => proveAggregateV3(p, [requests[0]!, requests[1]!, short])),
    "WITNESS@2",
  );
  const u = prepareV3(OpKind.Update, { depth: DEPTH });
  const { updates, rules } = blockFixture(DEPTH, 3);
  assert.equal(
    code(() => proveBlockV3(p, requests)),
    "WRONG_KIND",
  );
  assert.equal(
    code(() => proveBlockV3(u, [])),
    "BAD_BLOCK",
  );
  assert.equal(
    code(() => proveBlockV3(u, [updates[0]!, updates[2]!])),
    "BAD_BLOCK@1",
  );
  assert.equal(
    code(() => proveBlockV3(u, [updates[0]!, updates[1]!, updates[0]!])),
    "BAD_BLOCK@2",
  );
  // the rule of operation i is the i-th rule; timings name the operations and copies
  let timings: V3Timings | undefined;
  const bytes = proveAggregateV3(u, updates, { rules, onTimings: (t) => (timings = t) });
  assert.equal(
    verdictCode(
      verifyAggregateV3(
        u,
        updates.map((r, i) => v3StatementOf(r, rules[i])),
        bytes,
      ),
    ),
    "ok",
  );
  assert.equal(
    verdictCode(
      verifyAggregateV3(
        u,
        updates.map((r) => v3StatementOf(r)),
        bytes,
      ),
    ),
    "PUBLIC_INPUTS_MISMATCH@0",
  );
  assert.equal(timings?.operations, 3);
  assert.equal(timings?.copies, 4);
  for (const key of ["witnessMs", "commitMs", "evaluateMs", "gkrMs", "openMs", "encodeMs"] as const)
    assert.ok(timings![key] >= 0, key);
});
