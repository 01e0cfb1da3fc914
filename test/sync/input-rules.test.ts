import { test } from "node:test";
import assert from "node:assert/strict";
import { requestFromInput, INPUT_REASONS, type JobInput, type WireLeaf } from "../../src/serve/protocol/index.js";
import { checkLeafRules, type LeafFields } from "../../src/sync/input-rules.js";
import { parseRequest, RequestError, type RequestLeaf } from "../../src/sync/request.js";
import { toOpRequest } from "../../src/sync/request-convert.js";
import type { OpKindName } from "../../src/statement/types.js";

const DEPTH = 3;
const zero32 = new Array<number>(32).fill(0);
const LEAVES: Record<string, WireLeaf> = {
  empty: { tag: 0, payload: [], identity: zero32 },
  tombstone: { tag: 2, payload: [], identity: zero32 },
  a: { tag: 1, payload: [42, 7], identity: new Array<number>(32).fill(9) },
  aOtherPayload: { tag: 1, payload: [42, 8], identity: new Array<number>(32).fill(9) },
  aOtherIdentity: { tag: 1, payload: [42, 7], identity: [...new Array<number>(31).fill(9), 8] },
  aLonger: { tag: 1, payload: [42, 7, 0], identity: new Array<number>(32).fill(9) },
};

function jobInput(kind: OpKindName, oldLeaf: WireLeaf, newLeaf: WireLeaf): JobInput {
  const d = new Array<number>(8).fill(5);
  return {
    kind,
    key: 3n,
    old_leaf: oldLeaf,
    new_leaf: newLeaf,
    siblings: Array.from({ length: DEPTH }, () => d),
    old_root: d,
    new_root: d,
    value_digest: d,
  };
}

function requestJson(kind: OpKindName, oldLeaf: WireLeaf, newLeaf: WireLeaf): unknown {
  const j = jobInput(kind, oldLeaf, newLeaf);
  return { ...j, key: 3, depth: DEPTH };
}

/** Does the request-file path (parseRequest → toOpRequest) accept the pair? */
function fileAccepts(
  kind: OpKindName,
  oldLeaf: WireLeaf,
  newLeaf: WireLeaf,
): { ok: true } | { ok: false; path: unknown; message: string } {
  try {
    toOpRequest(parseRequest(requestJson(kind, oldLeaf, newLeaf)));
    return { ok: true };
  } catch (err) {
    assert.ok(err instanceof RequestError, String(err));
    return { ok: false, path: err.details.path, message: err.message };
  }
}

test("one leaf rule for request files and server jobs: every pair is accepted or refused alike, naming the path and the rule", () => {
  const names = Object.keys(LEAVES);
  let refused = 0;
  for (const kind of ["membership", "nonmembership", "update"] as const) {
    for (const o of names) {
      for (const n of names) {
        const oldLeaf = LEAVES[o]!;
        const newLeaf = LEAVES[n]!;
        const rule = checkLeafRules(kind, oldLeaf, newLeaf);
        const server = requestFromInput(jobInput(kind, oldLeaf, newLeaf), DEPTH);
        const file = fileAccepts(kind, oldLeaf, newLeaf);
        const what = `${kind} ${o} → ${n}`;
        assert.equal(server.ok, rule === null, `server, ${what}`);
        assert.equal(file.ok, rule === null, `request file, ${what}`);
        if (rule !== null && !server.ok && !file.ok) {
          refused++;
          assert.equal(
            server.reason,
            kind === "membership" ? INPUT_REASONS.invalidMembership : INPUT_REASONS.invalidAbsence,
            what,
          );
          assert.equal(file.path, rule.path, what);
          assert.ok(
            file.message.startsWith(`${rule.path}: `) && file.message.includes(rule.message),
            `${what}: ${file.message}`,
          );
        }
      }
    }
  }
  // Update never trips a leaf rule; membership accepts the 4 Occupied leaves repeated, non-membership the 2 absent ones.
  assert.equal(refused, 2 * names.length ** 2 - 4 - 2);
});

test("the cases of the report: non-membership with an Occupied or Tombstone new_leaf is an input error everywhere", () => {
  for (const newLeaf of [LEAVES["a"]!, LEAVES["tombstone"]!]) {
    const r = fileAccepts("nonmembership", LEAVES["empty"]!, newLeaf);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.message, /^\$\.new_leaf: a nonmembership changes nothing: new_leaf must equal old_leaf/);
    const s = requestFromInput(jobInput("nonmembership", LEAVES["empty"]!, newLeaf), DEPTH);
    assert.equal(!s.ok && s.reason, INPUT_REASONS.invalidAbsence);
  }
  const m = fileAccepts("membership", LEAVES["empty"]!, LEAVES["empty"]!);
  assert.equal(!m.ok && m.path, "$.old_leaf.tag");
  const n = fileAccepts("nonmembership", LEAVES["a"]!, LEAVES["a"]!);
  assert.equal(!n.ok && n.path, "$.old_leaf.tag");
});

test("leaf equality is on parsed values: the hex and byte forms of one identity are the same leaf", () => {
  const hex: RequestLeaf = { tag: 1, payload: [1], identity: Uint8Array.from(new Array(32).fill(0xab)) };
  const bytes: LeafFields = { tag: 1, payload: [1], identity: new Array(32).fill(0xab) };
  assert.equal(checkLeafRules("membership", hex, bytes), null);
  const json = {
    ...(requestJson("membership", LEAVES["a"]!, LEAVES["a"]!) as object),
    old_leaf: { tag: 1, payload: [42, 7], identity: "09".repeat(32) },
  };
  assert.doesNotThrow(() => toOpRequest(parseRequest(json)));
});
