import { test } from "node:test";
import assert from "node:assert/strict";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/sync/types.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { DerivedRegularWiring } from "../../src/gkr/derived-wiring.js";
import { TableWiring } from "../../src/gkr/table-wiring.js";

/** Prepared circuits of one kind at depth 24 with each wiring (one compile and commitment). */
function preparedPair(kind: OpKind): { derived: PreparedSync; table: PreparedSync } {
  const derived = prepare(kind, { depth: 24 }, { wiring: (c) => new DerivedRegularWiring(c.circuit, c.tags) });
  const table: PreparedSync = Object.freeze({ ...derived, wiring: new TableWiring(derived.circuit) });
  return { derived, table };
}

for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
  test(`golden proof of F(${kind}, 24, 5) verifies with the derived wiring; tampered bytes get the table wiring's verdict`, () => {
    const { derived, table } = preparedPair(kind);
    assert.ok(derived.wiring instanceof DerivedRegularWiring);
    assert.equal((derived.wiring as DerivedRegularWiring).stats.residueGates, 0);
    const request = goldenFixture(kind, 24, 5n);
    const bytes = encodeSyncResult(derived, provePrepared(derived, request));
    assert.deepEqual(verifyEncoded(derived, request, bytes), { ok: true });
    // Flips spread over the proof body (round coefficients of many layers, evals): same verdicts.
    for (let k = 0; k < 12; k++) {
      const off = 175 + Math.floor(((k + 0.5) / 12) * (bytes.length - 176));
      const t = bytes.slice();
      t[off] ^= 0x01;
      const a = verifyEncoded(derived, request, t), b = verifyEncoded(table, request, t);
      assert.equal(a.ok, false, `flip at ${off} accepted`);
      assert.deepEqual(a, b, `flip at ${off}: derived and table verdicts differ`);
    }
  });
}
