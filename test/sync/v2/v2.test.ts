import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { occupied, TOMBSTONE } from "../../../src/smt/leaf.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { OpKind } from "../../../src/statement/types.js";
import { decodeProof } from "../../../src/codec/decode.js";
import { DecodeError } from "../../../src/codec/errors.js";
import { decodeProofV2 } from "../../../src/codec/v2/decode.js";
import { prepare } from "../../../src/sync/prepared.js";
import { provePrepared } from "../../../src/sync/prove.js";
import { encodeSyncResult } from "../../../src/sync/encoded.js";
import {
  type PreparedV2,
  encodeV2,
  prepareV2,
  proveV2,
  verifyEncodedV2,
  verifyV2,
  v2CircuitCommitment,
  assetIdLimbs,
} from "../../../src/sync/v2/index.js";
import { compileV2 } from "../../../src/smt/v2/compile.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];
const cache = new Map<string, PreparedV2>();
function prep(kind: OpKind, depth: number, wiring: "closed-form" | "table" = "closed-form"): PreparedV2 {
  const k = `${kind}/${depth}/${wiring}`;
  if (!cache.has(k)) cache.set(k, prepareV2(kind, { depth }, { wiring }));
  return cache.get(k)!;
}

test("honest v2 proofs of every kind verify (d4 and d24, closed-form and table wiring), encoded and in memory", () => {
  for (const depth of [4, 24]) {
    for (const kind of KINDS) {
      const p = prep(kind, depth);
      const req = goldenFixture(kind, depth, 5n);
      const result = proveV2(p, req);
      assert.deepEqual(verifyV2(p, req, result), { ok: true });
      assert.deepEqual(verifyV2(prep(kind, depth, "table"), req, result), { ok: true });
      const bytes = encodeV2(p, result);
      assert.deepEqual(verifyEncodedV2(p, req, bytes), { ok: true });
      assert.equal(decodeProofV2(bytes).proof.layers.length, 31);
      if (depth === 24 && kind === OpKind.Membership) assert.ok(bytes.length < 0.35 * 176948, `${bytes.length} bytes`);
    }
  }
});

test("v2 proofs are deterministic and differ from v1's; the v1 decoder refuses them and the v2 decoder refuses v1 proofs", () => {
  const p = prep(OpKind.Membership, 4);
  const req = goldenFixture(OpKind.Membership, 4, 5n);
  const a = encodeV2(p, proveV2(p, req));
  const b = encodeV2(p, proveV2(p, req));
  assert.deepEqual(a, b);
  assert.throws(
    () => decodeProof(a),
    (e) => e instanceof DecodeError && e.code === "UnsupportedProofEncodingVersion" && e.details.version === 2,
  );
  const v1 = prepare(OpKind.Membership, { depth: 4 });
  const v1bytes = encodeSyncResult(v1, provePrepared(v1, req));
  assert.deepEqual(verifyEncodedV2(p, req, v1bytes).ok, false);
  assert.equal((verifyEncodedV2(p, req, v1bytes) as { code: string }).code, "DECODE_UnsupportedProofEncodingVersion");
});

test("the commitment binds the circuit: kinds, depths and leaf bounds give different commitments; it is stable across compilations", () => {
  const seen = new Set<string>();
  for (const kind of KINDS)
    for (const depth of [4, 5])
      for (const leafMaxFields of [31, 15]) {
        const c = v2CircuitCommitment(compileV2(kind, { depth, leafMaxFields }));
        assert.deepEqual(c, v2CircuitCommitment(compileV2(kind, { depth, leafMaxFields })));
        seen.add(Array.from(c).join(","));
      }
  assert.equal(seen.size, 12);
});

test("asset_id limbs are injective where v1's halves alias (keys differing by p in the low half)", () => {
  const a = 5n,
    b = 5n + BigInt(P);
  assert.notDeepEqual(assetIdLimbs(a), assetIdLimbs(b));
  assert.deepEqual(assetIdLimbs(0xffffffffffffffffn), [0xffff, 0xffff, 0xffff, 0xffff]);
});

function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const c = bytes.slice();
  c[at] = c[at]! ^ 1;
  return c;
}

test("tamper battery: every identity and statement byte, and bytes across the round polynomials, are rejected", () => {
  const p = prep(OpKind.Update, 4);
  const req = goldenFixture(OpKind.Update, 4, 5n);
  const bytes = encodeV2(p, proveV2(p, req));
  for (let at = 0; at < 170; at++) assert.equal(verifyEncodedV2(p, req, flipped(bytes, at)).ok, false, `byte ${at}`);
  for (let at = 170; at < bytes.length; at += 37)
    assert.equal(verifyEncodedV2(p, req, flipped(bytes, at)).ok, false, `byte ${at}`);
  assert.equal(verifyEncodedV2(p, req, bytes.subarray(0, bytes.length - 1)).ok, false);
});

test("tamper battery: each operation field and public input of the request is checked", () => {
  for (const kind of KINDS) {
    const p = prep(kind, 4);
    const req = goldenFixture(kind, 4, 5n);
    const bytes = encodeV2(p, proveV2(p, req));
    const pub = req.publicInputs;
    const bump = (d: Uint32Array, i = 0) => {
      const c = d.slice();
      c[i] = (c[i]! + 1) % P;
      return c;
    };
    const variants: [string, OpRequest][] = [
      ["old_root", { ...req, publicInputs: { ...pub, oldRoot: bump(pub.oldRoot, 3) } }],
      ["new_root", { ...req, publicInputs: { ...pub, newRoot: bump(pub.newRoot, 7) } }],
      ["value_digest", { ...req, publicInputs: { ...pub, valueDigest: bump(pub.valueDigest, 5) } }],
      [
        "asset_id",
        {
          ...req,
          publicInputs: { ...pub, assetId: 6n },
          operation: { ...req.operation, key: 6n } as OpRequest["operation"],
        },
      ],
      [
        "sibling",
        {
          ...req,
          witness: { ...req.witness, siblings: req.witness.siblings.map((s, l) => (l === 2 ? bump(s, 1) : s)) },
        },
      ],
    ];
    if (kind === OpKind.Membership) {
      const leaf = occupied([43, 5], new Uint8Array(32).fill(9));
      variants.push([
        "leaf payload",
        { ...req, operation: { kind, key: 5n, leaf }, witness: { ...req.witness, leaf } },
      ]);
    }
    if (kind === OpKind.NonMembership)
      variants.push(["absent leaf", { ...req, witness: { ...req.witness, leaf: TOMBSTONE } }]);
    if (kind === OpKind.Update && req.operation.kind === OpKind.Update) {
      variants.push([
        "new leaf",
        { ...req, operation: { ...req.operation, newLeaf: occupied([1], new Uint8Array(32)) } },
      ]);
    }
    for (const [what, v] of variants) {
      const verdict = verifyEncodedV2(p, v, bytes);
      assert.equal(verdict.ok, false, `kind ${kind}: changed ${what} accepted`);
    }
  }
});

test("a proof for one kind or depth does not verify under another prepared circuit", () => {
  const req = goldenFixture(OpKind.Membership, 4, 5n);
  const bytes = encodeV2(prep(OpKind.Membership, 4), proveV2(prep(OpKind.Membership, 4), req));
  assert.equal((verifyEncodedV2(prep(OpKind.Membership, 5), req, bytes) as { code: string }).code, "IDENTITY_MISMATCH");
  assert.equal(verifyEncodedV2(prep(OpKind.NonMembership, 4), req, bytes).ok, false);
});

test("forged proofs: a proof of a different statement, or a GKR proof made with a wrong witness, is rejected", () => {
  const p = prep(OpKind.Membership, 4);
  const honest = goldenFixture(OpKind.Membership, 4, 5n);
  const other = goldenFixture(OpKind.Membership, 4, 6n);
  // a valid proof of another key, presented for this request
  const result6 = proveV2(p, other);
  assert.equal(verifyV2(p, honest, { ...result6, publicInputs: honest.publicInputs }).ok, false);
  // a proof of a false statement (wrong root): the prover proves the actual non-zero outputs
  const lie: OpRequest = {
    ...honest,
    publicInputs: { ...honest.publicInputs, oldRoot: other.publicInputs.oldRoot, newRoot: other.publicInputs.oldRoot },
  };
  const forged = proveV2(p, lie);
  const v = verifyV2(p, lie, forged);
  assert.equal(v.ok, false);
  assert.match((v as { code: string }).code, /^GKR_/);
});
