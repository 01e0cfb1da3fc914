import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRequest, parseRequestText, requestToJson, RequestError } from "../../src/sync/request.js";
import { P } from "../../src/field/index.js";

function base(depth = 2): Record<string, unknown> {
  return {
    kind: "membership",
    depth,
    key: 1,
    old_leaf: { tag: 1, payload: [42, 1], identity: "09".repeat(32) },
    new_leaf: { tag: 1, payload: [42, 1], identity: new Array(32).fill(9) },
    siblings: Array.from({ length: depth }, (_, l) => new Array(8).fill(13 * l + 1)),
    old_root: new Array(8).fill(1),
    new_root: new Array(8).fill(1),
    value_digest: new Array(8).fill(2),
  };
}

function rejects(value: unknown, path: string, code = "REQUEST_SCHEMA") {
  assert.throws(
    () => parseRequest(value),
    (e: unknown) =>
      e instanceof RequestError && e.code === code && e.details.path === path && e.message.startsWith(path),
  );
}

test("a valid request parses; defaults; identity hex and byte forms agree; round trip", () => {
  const r = parseRequest(base());
  assert.equal(r.kind, "membership");
  assert.equal(r.leafMaxFields, 31);
  assert.equal(r.key, 1n);
  assert.deepEqual(r.oldLeaf.identity, r.newLeaf.identity);
  assert.deepEqual(parseRequest(requestToJson(r)), r);
  const noDepth = base(24);
  delete noDepth.depth;
  assert.equal(parseRequest(noDepth).depth, 24);
});

test("keys: safe integers, decimal strings for any u64; unsafe integers rejected", () => {
  assert.equal(parseRequest({ ...base(), key: "18446744073709551615" }).key, (1n << 64n) - 1n);
  rejects({ ...base(), key: 2 ** 60 }, "$.key");
  rejects({ ...base(), key: "18446744073709551616" }, "$.key");
  rejects({ ...base(), key: -1 }, "$.key");
});

test("the first offending field is named by its JSON path", () => {
  const b = base();
  (b.siblings as number[][])[1]![3] = P;
  rejects(b, "$.siblings[1][3]");
  rejects({ ...base(), siblings: [new Array(8).fill(0)] }, "$.siblings");
  rejects({ ...base(), old_root: [1, 2] }, "$.old_root");
  rejects({ ...base(), kind: "delete" }, "$.kind");
  rejects({ ...base(), value_digest: "x" }, "$.value_digest");
  rejects({ ...base(), old_leaf: { tag: 3, payload: [], identity: "00".repeat(32) } }, "$.old_leaf.tag");
  rejects({ ...base(), new_leaf: { tag: 1, payload: [1.5], identity: "00".repeat(32) } }, "$.new_leaf.payload[0]");
  rejects({ ...base(), extra: 1 }, "$");
});

test("invalid JSON is a typed error", () => {
  assert.throws(
    () => parseRequestText("{"),
    (e: unknown) => e instanceof RequestError && e.code === "REQUEST_JSON",
  );
});

test("a bad key is a typed error naming $.key and the rule, never a SyntaxError", () => {
  for (const [key, rule] of [
    ["abc", /must be a u64: a JSON integer or a string of 1 to 20 decimal digits, got "abc"/],
    ["12a", /got "12a"/],
    ["", /got ""/],
    [true, /must be a u64/],
    [null, /must be a u64/],
    [1.5, /must be an integer/],
    [-3, /non-negative/],
    ["18446744073709551616", /exceeds u64/],
  ] as const) {
    assert.throws(
      () => parseRequest({ ...base(), key }),
      (e: unknown) =>
        e instanceof RequestError &&
        e.code === "REQUEST_SCHEMA" &&
        e.details.path === "$.key" &&
        e.message.startsWith("$.key: ") &&
        rule.test(e.message),
      String(key),
    );
  }
  assert.equal(parseRequest({ ...base(), key: "18446744073709551615" }).key, (1n << 64n) - 1n);
});

test("a missing field is named as required; a non-object is not a request", () => {
  const { key: _drop, ...noKey } = base();
  rejects(noKey, "$.key");
  assert.throws(() => parseRequest(noKey), /\$\.key: is required/);
  assert.throws(
    () => parseRequest([1]),
    (e: unknown) => e instanceof RequestError && e.message === "$: a request must be a JSON object",
  );
});
