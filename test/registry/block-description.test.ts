import { test } from "node:test";
import assert from "node:assert/strict";
import { RegistryError } from "../../src/registry/errors.js";
import { parseBlockDescription, verifyRegistryBlock } from "../../src/registry/verify-block.js";

const good = {
  profile: "v2",
  depth: 16,
  leaf_max_fields: 20,
  updates: [{ op: "insert", name: "left-pad", value: "x" }],
};
const text = (o: unknown): string => JSON.stringify(o);

test("parseBlockDescription reads a v2 block description", () => {
  const d = parseBlockDescription(text(good));
  assert.equal(d.depth, 16);
  assert.equal(d.leafMaxFields, 20);
  assert.deepEqual(
    d.updates.map((u) => [u.op, u.name]),
    [["insert", "left-pad"]],
  );
});

test("parseBlockDescription rejects a malformed block.json with RegistryError BAD_BLOCK naming the field", () => {
  const cases: [string, RegExp][] = [
    ["{", /^not valid JSON: /],
    ["[1]", /must be a JSON object/],
    ["null", /must be a JSON object/],
    [text({ ...good, profile: "v1" }), /"profile" must be "v2" or "v3", got "v1"/],
    [text({ ...good, depth: 0 }), /"depth" must be an integer in \[1, 64\], got 0/],
    [text({ ...good, depth: 1.5 }), /"depth"/],
    [text({ ...good, leaf_max_fields: 64 }), /"leaf_max_fields" must be an integer in \[10, 63\], got 64/],
    [text({ ...good, updates: {} }), /"updates" must be an array/],
    [text({ ...good, updates: [] }), /at least one update/],
  ];
  for (const [t, message] of cases) {
    assert.throws(
      () => parseBlockDescription(t),
      (e: unknown) => e instanceof RegistryError && e.code === "BAD_BLOCK" && message.test(e.message),
      t,
    );
  }
  assert.throws(
    () => parseBlockDescription(text({ ...good, updates: [{ op: "fly", name: "n" }] })),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_RECORD",
  );
});

test("verifyRegistryBlock answers a malformed block.json with the verdict BLOCK_JSON and the parser's message", () => {
  const roots = { fromRoot: new Uint32Array(8), toRoot: new Uint32Array(8) };
  const v = verifyRegistryBlock(roots, {
    blockJson: text({ ...good, depth: 65 }),
    requestsJson: "[]",
    proof: new Uint8Array(0),
  });
  assert.equal(v.ok, false);
  assert.ok(
    !v.ok && v.code === "BLOCK_JSON" && /^block\.json: "depth" must be an integer in \[1, 64\], got 65$/.test(v.reason),
    JSON.stringify(v),
  );
});
