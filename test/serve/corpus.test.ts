import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/index.js";
import { checkOperation } from "../../src/smt/semantics.js";
import { computeRoot } from "../../src/smt/path.js";
import { EMPTY, LeafTag, hashLeaf } from "../../src/smt/leaf.js";
import { SplitMix64, corpus, corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { OpKind, opKindTag, type OpKindTag } from "../../src/statement/types.js";
import { SsgkrError } from "../../src/errors.js";

const MASK = (1n << 64n) - 1n;

/** Plain BigInt SplitMix64 (the reference of the u32-pair implementation). */
function referenceStream(seed: bigint, count: number): bigint[] {
  let state = seed & MASK;
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    out.push(z ^ (z >> 31n));
  }
  return out;
}

function stream(hi: number, lo: number, count: number): bigint[] {
  const g = new SplitMix64(hi, lo);
  return Array.from({ length: count }, () => {
    const lo32 = g.next();
    return (BigInt(g.hi) << 32n) | BigInt(lo32);
  });
}

test("SplitMix64 from seed 0 gives the well-known first outputs", () => {
  assert.deepEqual(stream(0, 0, 3), [0xe220a8397b1dcdafn, 0x6e789e6aa1b965f4n, 0x06c45d188009454fn]);
});

test("SplitMix64 on u32 pairs equals the BigInt reference for any seed", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: MASK }), (seed) => {
      const hi = Number(seed >> 32n),
        lo = Number(seed & 0xffffffffn);
      assert.deepEqual(stream(hi, lo, 40), referenceStream(seed, 40));
    }),
    { numRuns: 200 },
  );
});

test("the corpus seed is 0x5353474b52202026 ⊕ (depth << 32) ⊕ (t << 56) ⊕ i", () => {
  for (const [t, depth, i] of [
    [0, 24, 0],
    [1, 24, 767],
    [2, 32, 5],
    [2, 1, 0],
    [1, 64, 0xfffffffe],
  ] as const) {
    const seed = 0x5353474b52202026n ^ (BigInt(depth) << 32n) ^ (BigInt(t) << 56n) ^ BigInt(i);
    const g = SplitMix64.forCorpus(t, depth, i);
    const ref = referenceStream(seed, 5);
    for (const r of ref) {
      const lo = g.next();
      assert.equal((BigInt(g.hi) << 32n) | BigInt(lo), r);
    }
  }
});

test("corpus draws: siblings, identity, two sync fields (Update: two more), key = i + 1", () => {
  const depth = 5;
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const i = 7;
    const seed = 0x5353474b52202026n ^ (BigInt(depth) << 32n) ^ (BigInt(opKindTag(kind)) << 56n) ^ BigInt(i);
    const draws = referenceStream(seed, depth * 8 + 32 + 4);
    const r = corpusRequest(kind, i, { depth });
    assert.equal(r.operation.key, 8n);
    assert.equal(r.fixtureId, 7);
    assert.equal(r.publicInputs.assetId, 8n);
    assert.equal(r.publicInputs.opKindTag, opKindTag(kind));
    const low24 = (k: number) => Number(draws[k]! & 0xffffffn);
    for (let l = 0; l < depth; l++)
      for (let lane = 0; lane < 8; lane++) assert.equal(r.witness.siblings[l]![lane], low24(8 * l + lane));
    const identity = Uint8Array.from({ length: 32 }, (_, j) => Number(draws[8 * depth + j]! & 0xffn));
    const fields = [low24(8 * depth + 32), low24(8 * depth + 33)];
    const newFields = [low24(8 * depth + 34), low24(8 * depth + 35)];
    const op = r.operation;
    if (op.kind === OpKind.Membership) {
      assert.deepEqual([...op.leaf.payload], fields);
      assert.deepEqual(op.leaf.identity, identity);
      assert.deepEqual(r.witness.leaf, op.leaf);
      assert.deepEqual(r.publicInputs.valueDigest, hashLeaf(op.leaf));
    } else if (op.kind === OpKind.NonMembership) {
      assert.equal(r.witness.leaf.tag, LeafTag.Empty);
      assert.deepEqual(r.publicInputs.valueDigest, hashLeaf(EMPTY));
      assert.deepEqual(r.publicInputs.oldRoot, computeRoot(EMPTY, 8n, r.witness.siblings, depth));
    } else {
      assert.ok(op.oldLeaf.tag === LeafTag.Occupied && op.newLeaf.tag === LeafTag.Occupied);
      assert.deepEqual([...op.oldLeaf.payload], fields);
      assert.deepEqual([...op.newLeaf.payload], newFields);
      assert.deepEqual(op.newLeaf.identity, identity);
      assert.deepEqual(op.oldLeaf.identity, identity);
      assert.deepEqual(r.publicInputs.newRoot, computeRoot(op.newLeaf, 8n, r.witness.siblings, depth));
    }
  }
});

test("corpus requests are valid under the native semantics, with canonical values", () => {
  for (const depth of [1, 3, 8, 24]) {
    for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
      const count = Math.min(6, 2 ** depth - 1);
      for (const r of corpus(kind, count, { depth })) {
        const v = checkOperation(r, { depth });
        assert.equal(v.code, "VALID", `kind ${kind} depth ${depth} index ${r.fixtureId}: ${v.message}`);
        for (const s of r.witness.siblings) for (const x of s) assert.ok(x < P);
      }
    }
  }
  fc.assert(
    fc.property(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 2 ** 24 - 2 }), (kind, i) => {
      assert.equal(checkOperation(corpusRequest(kind, i), { depth: 24 }).code, "VALID");
    }),
    { numRuns: 30 },
  );
});

test("the corpus is deterministic and differs across kinds, indices and depths", () => {
  assert.deepEqual(corpusRequest("update", 3, { depth: 24 }), corpusRequest(OpKind.Update, 3, { depth: 24 }));
  const sib = (kind: OpKind | OpKindTag, i: number, depth: number) =>
    Array.from(corpusRequest(kind, i, { depth }).witness.siblings[0]!);
  assert.notDeepEqual(sib(0, 3, 24), sib(1, 3, 24));
  assert.notDeepEqual(sib(0, 3, 24), sib(0, 4, 24));
  assert.notDeepEqual(sib(0, 3, 24), sib(0, 3, 28));
});

test("bad corpus arguments are typed errors", () => {
  const code = (f: () => unknown, c: string) =>
    assert.throws(f, (e: unknown) => e instanceof SsgkrError && e.code === c);
  code(() => corpusRequest(0, -1), "BAD_CORPUS_INDEX");
  code(() => corpusRequest(0, 1.5), "BAD_CORPUS_INDEX");
  code(() => corpusRequest(0, 2 ** 32), "BAD_CORPUS_INDEX");
  code(() => corpusRequest(0, 3, { depth: 2 }), "KEY_OUT_OF_RANGE");
  code(() => corpusRequest(3 as OpKindTag, 0), "BAD_KIND");
  code(() => corpusRequest(0, 0, { depth: 0 }), "UNSUPPORTED_CONFIG");
  code(() => corpus(0, -1), "BAD_CORPUS_INDEX");
  assert.deepEqual(corpus(0, 0), []);
});
