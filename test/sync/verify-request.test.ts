import { test } from "node:test";
import assert from "node:assert/strict";
import { OFFSET } from "../../src/codec/layout.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { maxProofBytes } from "../../src/sync/limits.js";
import { PreparedCache } from "../../src/sync/prepared-cache.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { OpKind } from "../../src/statement/types.js";
import type { SyncConfig } from "../../src/smt/config.js";
import { declaredIdentityDifferences, verifyRequestProof } from "../../src/sync/verify-request.js";

const DEPTH = 4;

/** A cache that counts how often it prepares, per key. */
function countingCache(capacity = 3): { cache: PreparedCache; prepared: string[] } {
  const prepared: string[] = [];
  const cache = new PreparedCache({
    capacity,
    prepare: (kind, config) => {
      prepared.push(`${kind}/${config.depth}/${config.leafMaxFields}`);
      return prepare(kind, config);
    },
  });
  return { cache, prepared };
}

const honest = new Map<OpKind, { prepared: PreparedSync; bytes: Uint8Array }>();
function honestProof(kind: OpKind) {
  let h = honest.get(kind);
  if (!h) {
    const prepared = prepare(kind, { depth: DEPTH });
    h = { prepared, bytes: encodeSyncResult(prepared, provePrepared(prepared, goldenFixture(kind, DEPTH, 5n))) };
    honest.set(kind, h);
  }
  return h;
}

function patched(bytes: Uint8Array, edit: (v: DataView) => void): Uint8Array {
  const out = bytes.slice();
  edit(new DataView(out.buffer));
  return out;
}

test("verifyRequestProof accepts honest proofs and prepares each configuration once (LRU cache)", () => {
  const { cache, prepared } = countingCache();
  for (let round = 0; round < 3; round++) {
    for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
      assert.deepEqual(
        verifyRequestProof(goldenFixture(kind, DEPTH, 5n), honestProof(kind).bytes, { depth: DEPTH }, { cache }),
        { ok: true },
      );
    }
  }
  assert.deepEqual(prepared, [`membership/${DEPTH}/31`, `nonmembership/${DEPTH}/31`, `update/${DEPTH}/31`]);
  assert.deepEqual(cache.stats, { hits: 6, prepares: 3, evictions: 0 });
  // The prepared circuit is the one `prepare` makes: same identity as the fresh path.
  assert.deepEqual(cache.get(OpKind.Update, { depth: DEPTH }).identity, honestProof(OpKind.Update).prepared.identity);
});

test("the LRU cache keeps at most `capacity` circuits and drops the least recently used", () => {
  const { cache, prepared } = countingCache(2);
  const a = cache.get("membership", { depth: 2 });
  cache.get("membership", { depth: 3 });
  assert.equal(cache.get("membership", { depth: 2 }), a); // hit: depth 3 is now the oldest
  cache.get("membership", { depth: 1 }); // evicts depth 3
  assert.equal(cache.size, 2);
  assert.ok(
    cache.has("membership", { depth: 2 }) &&
      cache.has("membership", { depth: 1 }) &&
      !cache.has("membership", { depth: 3 }),
  );
  cache.get("membership", { depth: 3 });
  assert.deepEqual(prepared, ["membership/2/31", "membership/3/31", "membership/1/31", "membership/3/31"]);
  assert.equal(cache.stats.evictions, 2);
  cache.clear();
  assert.deepEqual([cache.size, cache.stats.prepares], [0, 0]);
  assert.throws(() => new PreparedCache({ capacity: 0 }), RangeError);
});

test("a pinned circuit is never evicted nor counted in the capacity; get answers it without preparing", () => {
  const { cache, prepared } = countingCache(1);
  const pinned = prepare("membership", { depth: 2 });
  cache.pin(pinned);
  for (const depth of [1, 3, 1, 3]) cache.get("membership", { depth });
  assert.equal(cache.get("membership", { depth: 2 }), pinned);
  assert.ok(cache.has("membership", { depth: 2 }));
  cache.put(prepare("membership", { depth: 2 }));
  assert.equal(cache.get("membership", { depth: 2 }), pinned, "put does not replace a pinned circuit");
  assert.deepEqual(
    prepared,
    ["membership/1/31", "membership/3/31", "membership/1/31", "membership/3/31"],
    "only the unpinned ones thrash",
  );
  assert.deepEqual([cache.size, cache.stats.hits, cache.stats.evictions], [2, 2, 3]);
  cache.clear();
  assert.equal(cache.has("membership", { depth: 2 }), false, "clear drops pinned circuits too");
});

test("a proof declaring another kind, depth, leaf bound or strategy is IDENTITY_MISMATCH before anything is prepared", () => {
  const m = honestProof(OpKind.Membership).bytes;
  const request = goldenFixture(OpKind.Membership, DEPTH, 5n);
  const cases: [string, Uint8Array, Partial<SyncConfig>, RegExp][] = [
    ["depth", patched(m, (v) => v.setUint32(OFFSET.depth, 0xffffffff, true)), { depth: DEPTH }, /depth 4294967295 ≠ 4/],
    [
      "leaf bound",
      patched(m, (v) => v.setUint16(OFFSET.leafMaxFields, 0xffff, true)),
      { depth: DEPTH },
      /leaf_max_fields 65535 ≠ 31/,
    ],
    ["request's leaf bound", m, { depth: DEPTH, leafMaxFields: 63 }, /leaf_max_fields 31 ≠ 63/],
    ["request's depth", m, { depth: 64 }, /depth 4 ≠ 64/],
    ["kind", honestProof(OpKind.Update).bytes, { depth: DEPTH }, /op_kind_tag 2 ≠ 0/],
  ];
  for (const [name, bytes, config, reason] of cases) {
    const { cache, prepared } = countingCache();
    const v = verifyRequestProof(request, bytes, config, { cache });
    assert.equal(v.ok, false, name);
    if (!v.ok) {
      assert.equal(v.code, "IDENTITY_MISMATCH", name);
      assert.match(v.reason, reason, name);
    }
    assert.deepEqual(prepared, [], `${name}: nothing prepared`);
  }
  // Strategy: the decoder already refuses anything but strategy A.
  const { cache, prepared } = countingCache();
  const s = verifyRequestProof(
    request,
    patched(m, (v) => v.setUint8(OFFSET.strategyId, 1)),
    { depth: DEPTH },
    { cache },
  );
  assert.equal(!s.ok && s.code, "UnsupportedLayerStrategy");
  assert.deepEqual(prepared, []);
});

test("declaredIdentityDifferences names every differing field and ignores the commitment", () => {
  const id = honestProof(OpKind.Membership).prepared.identity;
  const cfg = { depth: DEPTH, leafMaxFields: 31, strategy: { id: 0, arg: 0 } };
  assert.deepEqual(declaredIdentityDifferences({ ...id, commitment: new Uint32Array(8) }, OpKind.Membership, cfg), []);
  assert.deepEqual(
    declaredIdentityDifferences(
      { ...id, opKindTag: 1, depth: 5, circuitVersion: 2, leafEncodingVersion: 3, leafMaxFields: 30, strategyId: 1 },
      OpKind.Membership,
      cfg,
    ),
    [
      "op_kind_tag 1 ≠ 0",
      "depth 5 ≠ 4",
      "circuit_version 2 ≠ 1",
      "leaf_encoding_version 3 ≠ 1",
      "leaf_max_fields 30 ≠ 31",
      "strategy 1 ≠ 0",
    ],
  );
});

test("a proof that claims the request's configuration with a wrong commitment is prepared once, then IDENTITY_MISMATCH", () => {
  const bytes = patched(honestProof(OpKind.Membership).bytes, (v) =>
    v.setUint32(OFFSET.commitment, (v.getUint32(OFFSET.commitment, true) + 1) % 2130706433, true),
  );
  const { cache, prepared } = countingCache();
  const v = verifyRequestProof(goldenFixture(OpKind.Membership, DEPTH, 5n), bytes, { depth: DEPTH }, { cache });
  assert.equal(!v.ok && v.code, "IDENTITY_MISMATCH");
  assert.deepEqual(prepared, [`membership/${DEPTH}/31`]);
});

test("bytes above maxProofBytes are PROOF_TOO_LARGE before decoding, in verifyRequestProof and verifyEncoded", () => {
  const { prepared, bytes } = honestProof(OpKind.Membership);
  const request = goldenFixture(OpKind.Membership, DEPTH, 5n);
  const limit = maxProofBytes(OpKind.Membership, { depth: DEPTH, leafMaxFields: 31 });
  assert.ok(bytes.length <= limit);
  // A buffer one byte over the limit whose header is the honest one (the decoder would say DeclaredLengthMismatch).
  const over = new Uint8Array(limit + 1);
  over.set(bytes);
  const { cache, prepared: made } = countingCache();
  const a = verifyRequestProof(request, over, { depth: DEPTH }, { cache });
  assert.equal(!a.ok && a.code, "PROOF_TOO_LARGE");
  assert.deepEqual(made, []);
  const b = verifyEncoded(prepared, request, over);
  assert.equal(!b.ok && b.code, "PROOF_TOO_LARGE");
  // At the limit the decoder decides.
  const at = verifyEncoded(prepared, request, over.subarray(0, limit));
  assert.equal(!at.ok && at.code, "DeclaredLengthMismatch");
  assert.equal(verifyEncoded(prepared, request, bytes).ok, true);
});

test("verifyRequestProof never throws: bad configuration, request or bytes give verdicts", () => {
  const { cache, prepared } = countingCache();
  const request = goldenFixture(OpKind.Membership, DEPTH, 5n);
  const bytes = honestProof(OpKind.Membership).bytes;
  const code = (v: ReturnType<typeof verifyRequestProof>) => (v.ok ? "ACCEPT" : v.code);
  assert.equal(
    code(verifyRequestProof(request, bytes, { depth: DEPTH, leafMaxFields: 65535 }, { cache })),
    "UNSUPPORTED_CONFIG",
  );
  assert.equal(code(verifyRequestProof(request, bytes, { depth: 0 }, { cache })), "UNSUPPORTED_CONFIG");
  assert.equal(
    code(
      verifyRequestProof(
        { ...request, operation: { ...request.operation, kind: 7 } } as never,
        bytes,
        { depth: DEPTH },
        { cache },
      ),
    ),
    "WRONG_KIND",
  );
  assert.equal(code(verifyRequestProof(null as never, bytes, { depth: DEPTH }, { cache })), "WRONG_KIND");
  assert.equal(
    code(verifyRequestProof(request, [1, 2, 3] as unknown as Uint8Array, { depth: DEPTH }, { cache })),
    "NotBytes",
  );
  assert.equal(
    code(verifyRequestProof(request, bytes.subarray(0, 100), { depth: DEPTH }, { cache })),
    "DeclaredLengthMismatch",
  );
  assert.deepEqual(prepared, []);
  // A tampered statement is still caught by the composed verifier after the identity check.
  const other = goldenFixture(OpKind.Membership, DEPTH, 6n);
  assert.equal(code(verifyRequestProof(other, bytes, { depth: DEPTH }, { cache })), "PUBLIC_INPUTS_MISMATCH");
});
