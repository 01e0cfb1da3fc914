import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { goldenFixture } from "../../src/smt/fixture.js";
import { prepare } from "../../src/sync/prepared.js";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { OpKind } from "../../src/statement/types.js";
import { createSyncPool } from "../../src/sync/parallel/pool.js";

/** compat-v1 §18: the reference engine's golden proofs of F(kind, 24, 5). */
const GOLDEN: Record<string, { length: number; sha256: string }> = {
  [OpKind.Membership]: { length: 176948, sha256: "35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587" },
  [OpKind.NonMembership]: {
    length: 181646,
    sha256: "1873091159ec39569a49090dc209a675cd9373ac2bfee69e04c62411de99f1fa",
  },
  [OpKind.Update]: { length: 186992, sha256: "aa4b5d5844e2fdeb70b04601f42383d7ff72d920bdf0ba0e2ba0acfb29cb8a20" },
};

test("depth 24 on two workers: the three golden proofs are reproduced and every proof verifies", async () => {
  const kinds = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];
  const pool = createSyncPool({ workers: 2 });
  try {
    const batches = kinds.map((kind) => ({
      kind,
      prepared: prepare(kind, { depth: 24 }),
      jobs: [goldenFixture(kind, 24, 5n), corpusRequest(kind, 0, { depth: 24 })],
    }));
    const proved = await Promise.all(batches.map((b) => pool.proveBatch(b.prepared, b.jobs)));
    for (const [i, b] of batches.entries()) {
      const bytes = proved[i]!.map((o) => {
        assert.ok(o.ok, o.ok ? "" : o.error.message);
        return o.bytes;
      });
      assert.equal(bytes[0]!.length, GOLDEN[b.kind]!.length);
      assert.equal(createHash("sha256").update(bytes[0]!).digest("hex"), GOLDEN[b.kind]!.sha256, `kind ${b.kind}`);
      const verified = await pool.verifyBatch(
        b.prepared,
        b.jobs.map((request, j) => ({ request, bytes: bytes[j]! })),
      );
      assert.deepEqual(
        verified.map((o) => o.ok && o.verdict),
        [{ ok: true }, { ok: true }],
      );
    }
  } finally {
    await pool.close();
  }
});
