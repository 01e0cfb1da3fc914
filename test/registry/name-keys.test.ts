/**
 * `nameKeys` (the batched Keccak-256 kernel) gives every name the key `nameKey` gives it one by
 * one, at several depths, for ASCII, scoped, non-ASCII and long names; a malformed name is refused
 * as `nameKey` refuses it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { nameKeys } from "../../src/registry/hashing/name-keys.js";
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
