import { test } from "node:test";
import assert from "node:assert/strict";
import { compile } from "../../src/smt/compile.js";
import { expectedEncodedSize } from "../../src/codec/size.js";
import { shapeInputBits, shapeOf } from "../../src/gkr/shape.js";
import { CompileError } from "../../src/smt/errors.js";
import { syncConfig } from "../../src/smt/config.js";
import { layerCountFor, MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS, maxProofBytes } from "../../src/sync/limits.js";
import { PreparedCache } from "../../src/sync/prepared-cache.js";
import { prepare } from "../../src/sync/prepared.js";
import { parseRequest, RequestError } from "../../src/sync/request.js";
import { OpKind } from "../../src/statement/types.js";

const unsupported = (field: string) => (e: unknown) =>
  e instanceof CompileError && e.code === "UNSUPPORTED_CONFIG" && e.details.field === field;

test("configuration limits: depth 1..64 and leaf bound 10..63, checked before anything is compiled", () => {
  assert.equal(MAX_CONFIG_DEPTH, 64);
  assert.equal(MAX_CONFIG_LEAF_MAX_FIELDS, 63);
  assert.equal(syncConfig({ depth: 64, leafMaxFields: 63 }).leafMaxFields, 63);
  for (const leafMaxFields of [64, 2000, 65535, 65536]) {
    assert.throws(() => syncConfig({ leafMaxFields }), unsupported("leafMaxFields"), String(leafMaxFields));
    assert.throws(() => compile(OpKind.Membership, { leafMaxFields }), unsupported("leafMaxFields"));
    assert.throws(() => prepare("membership", { leafMaxFields }), unsupported("leafMaxFields"));
  }
  assert.throws(() => syncConfig({ depth: 65 }), unsupported("depth"));
  // A cache refuses before its prepare function is ever called.
  let calls = 0;
  const cache = new PreparedCache({
    prepare: () => {
      calls++;
      throw new Error("must not prepare");
    },
  });
  assert.throws(() => cache.get("update", { leafMaxFields: 65535 }), unsupported("leafMaxFields"));
  assert.throws(() => cache.get("update", { depth: 0 }), unsupported("depth"));
  assert.equal(calls, 0);
});

test("request files: leaf_max_fields above the limit is a schema error naming the path and the rule", () => {
  const base = {
    kind: "nonmembership",
    depth: 1,
    key: 0,
    old_leaf: { tag: 0, payload: [], identity: "00".repeat(32) },
    new_leaf: { tag: 0, payload: [], identity: "00".repeat(32) },
    siblings: [new Array(8).fill(1)],
    old_root: new Array(8).fill(1),
    new_root: new Array(8).fill(1),
    value_digest: new Array(8).fill(1),
  };
  assert.equal(parseRequest({ ...base, leaf_max_fields: 63 }).leafMaxFields, 63);
  for (const leaf_max_fields of [64, 2000, 65535]) {
    assert.throws(
      () => parseRequest({ ...base, leaf_max_fields }),
      (e: unknown) =>
        e instanceof RequestError &&
        e.code === "REQUEST_SCHEMA" &&
        e.details.path === "$.leaf_max_fields" &&
        /\$\.leaf_max_fields: must be an integer in \[10, 63\]/.test(e.message),
    );
  }
});

test("maxProofBytes bounds the real proof size of every kind over depths and leaf bounds, and is at most twice it", () => {
  const configs: [number, number][] = [
    [1, 10],
    [2, 15],
    [5, 23],
    [16, 31],
    [24, 31],
    [31, 39],
    [33, 47],
    [48, 31],
    [64, 31],
    [64, 63],
  ];
  for (const [depth, leafMaxFields] of configs) {
    for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
      const shape = shapeOf(compile(kind, { depth, leafMaxFields }).circuit);
      assert.equal(shape.layerWidthBits.length, layerCountFor(leafMaxFields));
      const actual = expectedEncodedSize(shape.layerWidthBits.map((_, i) => shapeInputBits(shape, i)));
      const bound = maxProofBytes(kind, { depth, leafMaxFields });
      assert.ok(actual <= bound, `kind ${kind} d${depth} B${leafMaxFields}: proof ${actual} > bound ${bound}`);
      assert.ok(bound <= 2 * actual, `kind ${kind} d${depth} B${leafMaxFields}: bound ${bound} is loose for ${actual}`);
    }
  }
});
