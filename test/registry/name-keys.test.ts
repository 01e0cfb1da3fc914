/**
 * `nameKeys` (the batched Keccak-256 kernel) gives every name the key `nameKey` gives it one by
 * one, at several depths, for ASCII, scoped, non-ASCII and long names; a malformed name is refused
 * as `nameKey` refuses it. `checkedNameKeys` (names already checked, encoded into one buffer)
 * gives the same keys as `nameKey` for any name `nameBytes` accepts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkedNameKeys, nameKeys } from "../../src/registry/hashing/name-keys.js";
import { nameBytes } from "../../src/registry/mapping.js";
import { nameKey } from "../../src/registry/name-key.js";

test("nameKeys equals nameKey name by name at depths 1, 16, 24, 47 and 48", () => {
  const names = [
    "left-pad",
    "@scope/pkg",
    "é",
    "名前",
    "x".repeat(214),
    ...Array.from({ length: 500 }, (_, i) => `pkg-${i * 7919}`),
  ];
  for (const depth of [1, 16, 24, 47, 48])
    assert.deepEqual(
      [...nameKeys(names, depth)],
      names.map((n) => nameKey(n, depth)),
      `depth ${depth}`,
    );
  assert.deepEqual([...nameKeys([], 48)], []);
  assert.throws(() => nameKeys(["ok", ""], 48), { code: "BAD_NAME" });
  assert.throws(() => nameKeys(["\ud800"], 48), { code: "BAD_NAME" });
});

test("checkedNameKeys equals nameKey for every name nameBytes accepts", () => {
  const names = ["left-pad", "@scope/pkg", "é", "名前", "emoji 🎉", "x".repeat(1024), "ü".repeat(512), "€".repeat(341)];
  for (const depth of [1, 24, 48])
    assert.deepEqual(
      [...checkedNameKeys(names, depth)],
      names.map((n) => nameKey(n, depth)),
    );
  assert.deepEqual([...checkedNameKeys([], 48)], []);
  fc.assert(
    fc.property(fc.array(fc.string({ minLength: 1, maxLength: 60, unit: "grapheme" }), { maxLength: 40 }), (raw) => {
      const ok = raw.filter((n) => {
        try {
          nameBytes(n);
          return true;
        } catch {
          return false;
        }
      });
      assert.deepEqual(
        [...checkedNameKeys(ok, 48)],
        ok.map((n) => nameKey(n, 48)),
      );
    }),
    { numRuns: 300 },
  );
});
