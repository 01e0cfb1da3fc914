import { test } from "node:test";
import assert from "node:assert/strict";
import { RegistryError } from "../../src/registry/errors.js";
import { oldLeafRule, v3BlockUpdate, v3BlockUpdates } from "../../src/registry/block-v3.js";
import type { BlockUpdate } from "../../src/registry/name-block.js";
import { nameIdentity } from "../../src/registry/mapping.js";
import { leafEquals } from "../../src/smt/leaf.js";

const UPDATES: BlockUpdate[] = [
  { op: "insert", name: "left-pad", value: "git+https://github.com/left-pad/left-pad.git" },
  { op: "insert", name: "ünïcode-näme", value: null },
  { op: "replace", name: "fields-package", value: { fields: [1, 2, 3] } },
  { op: "delete", name: "gone" },
  { op: "restore", name: "back", value: "https://gitlab.com/x/y" },
  { op: "replace", name: "emoji-✨", value: "✨ text value ✨" },
  { op: "insert", name: "empty-fields", value: { fields: [] } },
  { op: "insert", name: "astral-𝒳-name", value: "astral 𝒳 value, then more text".repeat(4) },
  { op: "insert", name: "n".repeat(300), value: "" },
];

test("v3BlockUpdates (one batched Keccak call) equals v3BlockUpdate per update: keys, new leaves, old-leaf rules", () => {
  for (const depth of [1, 16, 24, 48]) {
    const batched = v3BlockUpdates(UPDATES, depth, 31);
    UPDATES.forEach((u, i) => {
      const one = v3BlockUpdate(u, i, depth, 31);
      const b = batched[i]!;
      assert.equal(b.key, one.key, `key of ${u.name} at depth ${depth}`);
      assert.ok(leafEquals(b.newLeaf, one.newLeaf), `new leaf of ${u.name}`);
      assert.deepEqual(b.oldLeaf, one.oldLeaf, `rule of ${u.name}`);
    });
  }
});

test("the old-leaf rules follow the ops: insert Empty, restore Tombstone, replace and delete the name's record", () => {
  assert.deepEqual(oldLeafRule({ op: "insert", name: "a", value: null }), { rule: "empty" });
  assert.deepEqual(oldLeafRule({ op: "restore", name: "a" }), { rule: "tombstone" });
  assert.deepEqual(oldLeafRule({ op: "replace", name: "a", value: null }), {
    rule: "record",
    identity: nameIdentity("a"),
  });
  assert.deepEqual(oldLeafRule({ op: "delete", name: "a" }), { rule: "record", identity: nameIdentity("a") });
});

test("v3BlockUpdates and v3BlockUpdate agree on a value with a lone surrogate and refuse a name with one alike", () => {
  const odd: BlockUpdate[] = [UPDATES[0]!, { op: "insert", name: "lone", value: "a\ud800b" }];
  const outcome = (f: () => unknown): string => {
    try {
      f();
      return "ok";
    } catch (e) {
      return e instanceof RegistryError ? e.code : String(e);
    }
  };
  const single = outcome(() => odd.map((u, i) => v3BlockUpdate(u, i, 24, 31)));
  assert.equal(
    outcome(() => v3BlockUpdates(odd, 24, 31)),
    single,
  );
  if (single === "ok") {
    const b = v3BlockUpdates(odd, 24, 31);
    assert.ok(leafEquals(b[1]!.newLeaf, v3BlockUpdate(odd[1]!, 1, 24, 31).newLeaf));
  }
  const badName: BlockUpdate[] = [UPDATES[0]!, { op: "insert", name: "x\udc00", value: null }];
  assert.throws(
    () => v3BlockUpdates(badName, 24, 31),
    (e) => e instanceof RegistryError && outcome(() => v3BlockUpdate(badName[1]!, 1, 24, 31)) === e.code,
  );
});

test("v3BlockUpdates refuses what v3BlockUpdate refuses, naming the update", () => {
  const bad: BlockUpdate[] = [
    UPDATES[0]!,
    { op: "insert", name: "too-many", value: { fields: Array.from({ length: 30 }, (_, i) => i) } },
  ];
  assert.throws(
    () => v3BlockUpdates(bad, 24, 31),
    (e) => e instanceof RegistryError && e.code === "BAD_BLOCK" && e.details.update === 1,
  );
  assert.throws(
    () => v3BlockUpdates([{ op: "insert", name: "no-value" }], 24, 31),
    (e) => e instanceof RegistryError && e.code === "BAD_BLOCK" && e.details.update === 0,
  );
});
