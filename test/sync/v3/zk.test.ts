import { test } from "node:test";
import assert from "node:assert/strict";
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import type { Leaf } from "../../../src/smt/leaf.js";
import { computeRoot } from "../../../src/smt/path.js";
import { updateRequestOf } from "../../../src/sync/v2/index.js";
import { buildV3Inputs, v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3OldLeafRule } from "../../../src/smt/v3/statement.js";
import { prepareV3 } from "../../../src/sync/v3/prepared.js";
import {
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  type V3BlockUpdate,
  type V3Verdict,
} from "../../../src/sync/v3/index.js";
import { decodeV3Message, decodeV3ZkMessage, hasV3ZkEncoding } from "../../../src/codec/v3/message.js";
import { V3DecodeError } from "../../../src/codec/v3/errors.js";
import { whirSeededRandomSource } from "../../../src/pcs/random.js";
import { decodeWhirHidingCommitment, decodeWhirHidingProof } from "../../../src/pcs/hiding-codec.js";

const DEPTH = 4;
const id = (b: number) => new Uint8Array(32).fill(b);
const code = (v: V3Verdict) => (v.ok ? "ok" : `${v.code}${v.operation === undefined ? "" : `@${v.operation}`}`);

function ruleOf(old: Leaf): V3OldLeafRule {
  if (old.tag === 0) return { rule: "empty" };
  if (old.tag === 2) return { rule: "tombstone" };
  return { rule: "record", identity: old.identity };
}

function block(): { updates: OpRequest[]; rules: V3OldLeafRule[]; fromRoot: Uint32Array; toRoot: Uint32Array } {
  const tree = new SparseMerkleTree({ depth: DEPTH });
  tree.insert(9n, [1], id(1));
  const fromRoot = tree.root();
  const records = [tree.insert(3n, [7, 8], id(2)), tree.replace(9n, [2], id(1)), tree.delete(3n)];
  const updates = records.map((r) => updateRequestOf(r));
  return {
    updates,
    rules: updates.map((u) => ruleOf((u.operation as { oldLeaf: Leaf }).oldLeaf)),
    fromRoot,
    toRoot: tree.root(),
  };
}

function blockUpdates(updates: readonly OpRequest[], rules: readonly V3OldLeafRule[]): V3BlockUpdate[] {
  return updates.map((u, i) => {
    const op = u.operation as { key: bigint; newLeaf: Leaf };
    return { key: op.key, newLeaf: op.newLeaf, oldLeaf: rules[i]! };
  });
}

test("v3-zk aggregates of each kind prove and verify from the statements alone; the v3 decoder refuses them", () => {
  for (const kind of ["membership", "nonmembership", "update"] as const) {
    const p = prepareV3(kind, { depth: 8 });
    const requests = [1n, 2n, 7n].map((key) => goldenFixture(kind, 8, key));
    const statements = requests.map((r) => v3StatementOf(r));
    const bytes = proveAggregateV3(p, requests, { zk: true });
    assert.ok(hasV3ZkEncoding(bytes), kind);
    assert.equal(code(verifyAggregateV3(p, statements, bytes)), "ok", kind);
    assert.throws(() => decodeV3Message(bytes), V3DecodeError);
    decodeV3ZkMessage(bytes);
    const other = v3StatementOf(goldenFixture(kind, 8, 3n));
    assert.equal(code(verifyAggregateV3(p, [other, ...statements.slice(1)], bytes)), "PUBLIC_INPUTS_MISMATCH@0", kind);
  }
});

test("a v3-zk block verifies from its two roots and the update list; a changed list or root is rejected", () => {
  const prepared = prepareV3("update", { depth: DEPTH });
  const { updates, rules, fromRoot, toRoot } = block();
  const bytes = proveBlockV3(prepared, updates, { rules, zk: true });
  const list = blockUpdates(updates, rules);
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, bytes)), "ok");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot: toRoot, toRoot }, list, bytes)), "PUBLIC_INPUTS_MISMATCH@0");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list.slice(0, 2), bytes)), "OPERATION_COUNT");
  const flipped = bytes.slice();
  flipped[bytes.length - 40]! ^= 1;
  assert.equal(verifyBlockV3(prepared, { fromRoot, toRoot }, list, flipped).ok, false);
});

test("two v3-zk proofs of one statement differ; with one seed they are the same bytes", () => {
  const p = prepareV3("membership", { depth: 8 });
  const requests = [goldenFixture("membership", 8, 5n)];
  const a = proveAggregateV3(p, requests, { zk: true });
  const b = proveAggregateV3(p, requests, { zk: true });
  assert.notDeepEqual(a, b);
  const s1 = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource(1) });
  const s2 = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource(1) });
  assert.deepEqual(s1, s2);
  assert.equal(
    code(
      verifyAggregateV3(
        p,
        requests.map((r) => v3StatementOf(r)),
        s1,
      ),
    ),
    "ok",
  );
});

/** The 4-byte little-endian words of `values`, searched at every byte offset of `bytes`. */
function occurrences(bytes: Uint8Array, word: number): number {
  let hits = 0;
  const b0 = word & 255,
    b1 = (word >>> 8) & 255,
    b2 = (word >>> 16) & 255,
    b3 = word >>> 24;
  for (let i = 0; i + 3 < bytes.length; i++)
    if (bytes[i] === b0 && bytes[i + 1] === b1 && bytes[i + 2] === b2 && bytes[i + 3] === b3) hits++;
  return hits;
}

/** The golden request of `kind` with random siblings (real-looking digests) and the roots they give. */
function randomPathRequest(kind: "membership" | "nonmembership" | "update", depth: number, key: bigint): OpRequest {
  const f = goldenFixture(kind, depth, key);
  const random = whirSeededRandomSource(`siblings/${kind}`);
  const siblings = Array.from({ length: depth }, () => {
    const d = new Uint32Array(8);
    random(d);
    return d;
  });
  const B = f.config.leafMaxFields;
  const op = f.operation as { newLeaf?: Leaf };
  const oldRoot = computeRoot(f.witness.leaf, key, siblings, depth, B);
  const newRoot = op.newLeaf ? computeRoot(op.newLeaf, key, siblings, depth, B) : oldRoot.slice();
  return {
    operation: f.operation,
    witness: { leaf: f.witness.leaf, siblings },
    publicInputs: { ...f.publicInputs, oldRoot, newRoot },
  };
}

test("no sibling digest, accumulator or other committed witness value appears in a v3-zk proof's bytes", () => {
  for (const kind of ["membership", "nonmembership", "update"] as const) {
    const p = prepareV3(kind, { depth: 8 });
    const request = randomPathRequest(kind, 8, 6n);
    const bytes = proveAggregateV3(p, [request], {
      zk: true,
      random: whirSeededRandomSource(`witness-search/${kind}`),
    });
    assert.equal(code(verifyAggregateV3(p, [v3StatementOf(request)], bytes)), "ok", `${kind}: a true statement`);
    const layout = p.compiled.layout;
    const input = buildV3Inputs(layout, [request], [v3StatementOf(request)]);
    const committed = input.subarray(0, layout.committedUsed);
    // every word of every sibling digest, and every committed value that is not a small constant
    const words = new Set<number>();
    for (const s of request.witness.siblings) for (const w of s) words.add(w);
    for (const v of committed) if (v >= 1 << 16) words.add(v);
    assert.ok(words.size > 8 * 8, `${kind}: the search covers the siblings and accumulators`);
    const found = [...words].filter((w) => occurrences(bytes, w) > 0);
    assert.deepEqual(found, [], `${kind}: witness words in the proof bytes`);
  }
});

/** Every extension element of a decoded v3-zk message's layers and opening, as text. */
function valuesOf(bytes: Uint8Array): string[] {
  const m = decodeV3ZkMessage(bytes);
  const out: string[] = [];
  for (const l of m.proof.layers)
    for (const e of [l.maskSum, ...l.rounds.flat(), l.evalX, l.evalY, l.maskValue]) out.push(e.join(","));
  const o = decodeWhirHidingProof(m.opening);
  for (const e of [...o.maskedValues, ...o.oodAnswers]) out.push(e.join(","));
  for (const r of o.rounds) {
    for (const [a, b] of r.sumcheck) out.push(a.join(","), b.join(","));
    for (let i = 0; i + 1 < r.rows.length; i += 2) out.push(`row ${r.rows[i]},${r.rows[i + 1]}`);
  }
  out.push(decodeWhirHidingCommitment(m.commitment).root.join(","));
  return out;
}

test("two v3-zk proofs of one statement share no value but the statement's", () => {
  const p = prepareV3("nonmembership", { depth: 8 });
  const requests = [goldenFixture("nonmembership", 8, 9n)];
  const a = valuesOf(proveAggregateV3(p, requests, { zk: true }));
  const b = new Set(valuesOf(proveAggregateV3(p, requests, { zk: true })));
  assert.ok(a.length > 1000);
  const shared = a.filter((v) => b.has(v) && v !== "0,0,0,0" && v !== "row 0,0");
  assert.deepEqual(shared, []);
});
