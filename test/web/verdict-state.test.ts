/**
 * The verifier page's verdict states, in Node (the page renders them; test/web/browser.test.ts
 * checks the rendering in Chromium): a pinned ACCEPT, an unpinned ACCEPT and a REJECT are three
 * states, and the words always name the proof's own statement, never the name asked for.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { checkProofBody } from "../../src/counterparty/body.js";
import { parseRoot } from "../../src/counterparty/claim.js";
import { proveNameRead } from "../../src/counterparty/prove.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { verdictState } from "../../src/web/verdict-state.js";
import { freshDir, makeRegistry, RECORDS, removeDir } from "./support.js";

let dir: string;
let store: NameStore;

before(() => {
  dir = freshDir("ssgkr-verdict-state-");
  store = makeRegistry(dir, 12);
});

after(async () => {
  await store?.close();
  if (dir) removeDir(dir);
});

const bodyOf = (name: string) => {
  const p = proveNameRead(store, name);
  return { statement: p.statement, request: p.request, proof: Buffer.from(p.proof).toString("base64") };
};

test("verdict state: an unpinned ACCEPT is its own state (word, data-trust, headline), not a pinned ACCEPT with a notice", () => {
  const body = bodyOf(RECORDS.live);
  const root = parseRoot(body.statement.root);
  const pinned = verdictState(checkProofBody(body, RECORDS.live, root));
  const unpinned = verdictState(checkProofBody(body, RECORDS.live));
  assert.deepEqual([pinned.verdict, pinned.trust, pinned.word], ["ACCEPT", "pinned", "ACCEPT"]);
  assert.deepEqual([unpinned.verdict, unpinned.trust, unpinned.word], ["ACCEPT", "unpinned", "ACCEPT — UNPINNED"]);
  assert.match(unpinned.headline, /^Not checked against a root you trust/);
  assert.match(unpinned.what, /^Matches its own statement: "left-pad" is registered/);
  assert.match(pinned.what, /^Proved: "left-pad" is registered/);
  assert.notEqual(pinned.headline, unpinned.headline);
  const wrong = root.slice();
  wrong[0] = (wrong[0]! + 1) % 2130706433;
  const rejected = verdictState(checkProofBody(body, RECORDS.live, wrong));
  assert.deepEqual([rejected.verdict, rejected.trust, rejected.word], ["REJECT", "none", "REJECT"]);
});

test("verdict state: a proof about another name than the one asked for is rejected (NAME_MISMATCH) and the words name only the proof's name", () => {
  const other = bodyOf(RECORDS.scoped);
  const v = checkProofBody(other, RECORDS.live, parseRoot(other.statement.root));
  assert.equal(v.ok, false);
  assert.equal(v.code, "NAME_MISMATCH");
  assert.match(v.statement, /^"@scope\/pkg" is registered/);
  assert.doesNotMatch(v.statement, /left-pad/);
  assert.match(verdictState(v).what, /^Claimed: "@scope\/pkg"/);
  // a statement relabelled with the asked name does not verify for it
  const relabelled = { ...other, statement: { ...other.statement, name: RECORDS.live } };
  const r = checkProofBody(relabelled, RECORDS.live, parseRoot(other.statement.root));
  assert.equal(r.ok, false);
  assert.match(r.statement, /^"left-pad"/);
});

test("verdict state: a REJECT's headline says its cause; ROOT_NOT_TRUSTED says the proof is valid for another root when it verifies there", () => {
  const body = bodyOf(RECORDS.live);
  const own = checkProofBody(body, RECORDS.live);
  assert.equal(own.ok, true);
  const wrong = parseRoot(body.statement.root).slice();
  wrong[0] = (wrong[0]! + 1) % 2130706433;
  const v = checkProofBody(body, RECORDS.live, wrong);
  assert.equal(v.code, "ROOT_NOT_TRUSTED");
  const valid = verdictState(v, { ok: own.ok, root: own.trustedRoot! });
  assert.equal(valid.verdict, "REJECT");
  assert.match(
    valid.headline,
    /^The proof is valid, but for another root \([0-9a-f]{64}\), not the root you trust \([0-9a-f]{64}\)/,
  );
  assert.ok(valid.headline.includes(body.statement.root), "names the proof's own root");
  assert.doesNotMatch(valid.headline, /does not show what its statement says/);
  assert.match(verdictState(v, { ok: false }).headline, /another root .* does not verify for that root either/);
  assert.match(verdictState(v).headline, /^The proof is for another root than the one you trust/);
  // other causes keep their own words
  const forged = {
    ...body,
    proof: Buffer.from(Buffer.from(body.proof, "base64").map((b, i) => (i === 200 ? b ^ 1 : b))).toString("base64"),
  };
  const broken = checkProofBody(forged, RECORDS.live, parseRoot(body.statement.root));
  assert.equal(broken.ok, false);
  assert.equal(verdictState(broken).headline, "The proof does not show what its statement says.");
  const otherName = checkProofBody(bodyOf(RECORDS.scoped), RECORDS.live);
  assert.equal(verdictState(otherName).headline, "The proof is about another name than the one you asked for.");
  const notABody = checkProofBody("x", RECORDS.live);
  assert.match(verdictState(notABody).headline, /^This is not a usable proof body or root/);
});
