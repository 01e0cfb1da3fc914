/**
 * Circuit identity comparison (src/codec/identity.ts, compat-v1 §13.3): each of the seven fields
 * decides on its own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { identityEquals } from "../../src/codec/identity.js";
import type { CircuitIdentity } from "../../src/statement/types.js";

const id: CircuitIdentity = {
  opKindTag: 1,
  depth: 24,
  circuitVersion: 1,
  leafEncodingVersion: 1,
  leafMaxFields: 31,
  strategyId: 0,
  commitment: Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
};

test("equal identities (distinct objects) are equal", () => {
  assert.equal(identityEquals(id, { ...id, commitment: id.commitment.slice() }), true);
  assert.equal(identityEquals(id, id), true);
});

test("a difference in any one field makes identities differ, in both directions", () => {
  const changes: Partial<CircuitIdentity>[] = [
    { opKindTag: 2 },
    { depth: 25 },
    { circuitVersion: 2 },
    { leafEncodingVersion: 2 },
    { leafMaxFields: 32 },
    { strategyId: 1 },
    { commitment: Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 9]) },
    { commitment: Uint32Array.from([0, 2, 3, 4, 5, 6, 7, 8]) },
  ];
  for (const change of changes) {
    const other = { ...id, ...change };
    assert.equal(identityEquals(id, other), false, JSON.stringify(change));
    assert.equal(identityEquals(other, id), false, JSON.stringify(change));
  }
});

test("a commitment that is not eight elements never matches, not even itself", () => {
  for (const commitment of [
    Uint32Array.from([1, 2, 3, 4, 5, 6, 7]),
    Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]),
    new Uint32Array(0),
  ]) {
    const odd = { ...id, commitment };
    assert.equal(identityEquals(odd, { ...odd, commitment: commitment.slice() }), false, `length ${commitment.length}`);
    assert.equal(identityEquals(id, odd), false);
  }
});
