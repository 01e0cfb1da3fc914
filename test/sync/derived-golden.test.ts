import { test } from "node:test";
import assert from "node:assert/strict";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { DerivedRegularWiring } from "../../src/gkr/wiring/derived.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";

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
      t[off]! ^= 0x01;
      const a = verifyEncoded(derived, request, t),
        b = verifyEncoded(table, request, t);
      assert.equal(a.ok, false, `flip at ${off} accepted`);
      assert.deepEqual(a, b, `flip at ${off}: derived and table verdicts differ`);
    }
  });
}

test("prepare uses the derived wiring by default; the table wiring stays selectable and gives the same verdicts", () => {
  const request = goldenFixture(OpKind.Update, 4, 9n);
  const byDefault = prepare(OpKind.Update, { depth: 4 });
  assert.ok(byDefault.wiring instanceof DerivedRegularWiring);
  const explicit = prepare(OpKind.Update, { depth: 4 }, { wiring: (c) => new TableWiring(c.circuit) });
  assert.ok(explicit.wiring instanceof TableWiring);
  const bytes = encodeSyncResult(byDefault, provePrepared(byDefault, request));
  assert.deepEqual(
    encodeSyncResult(explicit, provePrepared(explicit, request)),
    bytes,
    "the wiring does not affect proofs",
  );
  assert.deepEqual(verifyEncoded(byDefault, request, bytes), { ok: true });
  assert.deepEqual(verifyEncoded(explicit, request, bytes), { ok: true });
  const t = bytes.slice();
  t[t.length - 20]! ^= 0x04;
  assert.deepEqual(verifyEncoded(byDefault, request, t), verifyEncoded(explicit, request, t));
});
