import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { goldenFixture } from "../../src/smt/fixture.js";
import { prepare } from "../../src/sync/prepared.js";
import { corpusRequest } from "../../src/sync/corpus.js";
import { OpKind } from "../../src/sync/types.js";
import { createSyncPool } from "../../src/sync/parallel/pool.js";

/** compat-v1 §18: the reference engine's golden proof of F(Membership, 24, 5). */
const GOLDEN_MEMBERSHIP = { length: 176948, sha256: "35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587" };

test("depth 24 on two workers: the golden membership proof is reproduced and every proof verifies", async () => {
  const prepared = prepare(OpKind.Membership, { depth: 24 });
  const jobs = [goldenFixture(OpKind.Membership, 24, 5n), corpusRequest(OpKind.Membership, 0, { depth: 24 })];
  const pool = createSyncPool({ workers: 2 });
  try {
    const proved = await pool.proveBatch(prepared, jobs);
    const bytes = proved.map((o) => {
      assert.ok(o.ok, o.ok ? "" : o.error.message);
      return o.bytes;
    });
    assert.equal(bytes[0]!.length, GOLDEN_MEMBERSHIP.length);
    assert.equal(createHash("sha256").update(bytes[0]!).digest("hex"), GOLDEN_MEMBERSHIP.sha256);
    const verified = await pool.verifyBatch(prepared, jobs.map((request, i) => ({ request, bytes: bytes[i]! })));
    assert.deepEqual(verified.map((o) => o.ok && o.verdict), [{ ok: true }, { ok: true }]);
  } finally {
    await pool.close();
  }
});
