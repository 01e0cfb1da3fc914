import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  DEFAULT_HIDING_WHIR_SET,
  DEFAULT_WHIR_SET,
  PROVABLE_HIDING_WHIR_SET,
  PROVABLE_WHIR_SET,
} from "../../../src/pcs/index.js";
import { prepareV3, v3Soundness, v3ZkSoundness } from "../../../src/sync/v3/index.js";

const doc = readFileSync(new URL("../../../../docs/profile-v3.md", import.meta.url), "utf8");

/** The cells of the rows of the table between `<!-- marker:start -->` and `<!-- marker:end -->`, whose header names the default and the provable set. */
function tableRows(marker: string, [conjectured, provable]: readonly [string, string]): string[][] {
  const table = doc.split(`<!-- ${marker}:start -->`)[1]!.split(`<!-- ${marker}:end -->`)[0]!;
  const lines = table.trim().split("\n");
  assert.ok(
    lines[0]!.includes(`${conjectured} bits`) && lines[0]!.includes(`${provable} bits`),
    `the ${marker} table names the default and the provable set`,
  );
  return lines.slice(2).map((l) =>
    l
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

test("docs/profile-v3.md §8.2: the soundness table is what v3Soundness computes for d48 updates", () => {
  const rows = tableRows("v3-soundness", [DEFAULT_WHIR_SET, PROVABLE_WHIR_SET]);
  assert.ok(rows.length >= 2, "the table has rows");
  const prepared = prepareV3("update", { depth: 48 });
  const num = (t: string) => Number(t.replace(/,/g, "").replace("−", "-"));
  for (const [ops, m, gkr, cbBits, cbTotal, udBits, udTotal] of rows) {
    const cb = v3Soundness(prepared, num(ops!), DEFAULT_WHIR_SET);
    const ud = v3Soundness(prepared, num(ops!), PROVABLE_WHIR_SET);
    assert.equal(cb.pcsVariables, num(m!), `m at ${ops}`);
    assert.equal(cb.gkrLog2Error.toFixed(1), num(gkr!).toFixed(1), `GKR at ${ops}`);
    assert.equal(cb.pcsBits.toFixed(1), num(cbBits!).toFixed(1), `cb100 at ${ops}`);
    assert.equal(cb.bits.toFixed(1), num(cbTotal!).toFixed(1), `cb100 total at ${ops}`);
    assert.equal(ud.pcsBits.toFixed(1), num(udBits!).toFixed(1), `ud100 at ${ops}`);
    assert.equal(ud.bits.toFixed(1), num(udTotal!).toFixed(1), `ud100 total at ${ops}`);
    assert.ok(cb.bits >= 99.99 && ud.bits >= 99.99, "both sets give 100 bits to two decimals");
  }
});

test("docs/profile-v3.md §11.7: the v3-zk soundness table is what v3ZkSoundness computes at depth 48", () => {
  const rows = tableRows("v3zk-soundness", [DEFAULT_HIDING_WHIR_SET, PROVABLE_HIDING_WHIR_SET]);
  assert.ok(rows.length >= 3, "the table has rows");
  const kinds: Record<string, "membership" | "nonmembership" | "update"> = {
    membership: "membership",
    "non-membership": "nonmembership",
    update: "update",
  };
  const num = (t: string) => Number(t.replace(/,/g, "").replace("−", "-"));
  for (const [kind, ops, m, layout, gkr, cbBits, udBits] of rows) {
    const prepared = prepareV3(kinds[kind!]!, { depth: 48 });
    const cb = v3ZkSoundness(prepared, num(ops!), DEFAULT_HIDING_WHIR_SET);
    const ud = v3ZkSoundness(prepared, num(ops!), PROVABLE_HIDING_WHIR_SET);
    assert.equal(cb.pcsVariables, num(m!), `m_z of ${kind} × ${ops}`);
    assert.equal(cb.hidingLayout, layout, `the default hiding layout of ${kind} × ${ops}`);
    assert.equal(ud.hidingLayout, layout, `the default hiding layout of ${kind} × ${ops} (provable set)`);
    assert.equal(cb.gkrLog2Error.toFixed(1), num(gkr!).toFixed(1), `GKR of ${kind} × ${ops}`);
    assert.equal(cb.bits.toFixed(1), num(cbBits!).toFixed(1), `cb100 of ${kind} × ${ops}`);
    assert.equal(ud.bits.toFixed(1), num(udBits!).toFixed(1), `ud100 of ${kind} × ${ops}`);
    assert.ok(cb.bits >= 99.99 && ud.bits >= 99.99, "both sets give 100 bits to two decimals");
  }
});
