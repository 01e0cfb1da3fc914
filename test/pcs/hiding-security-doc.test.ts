/**
 * docs/pcs.md §12.7 is the table `whirHidingSecurity` computes, and §12.2's least hiding sizes
 * are `minHidingVariables`. Regenerate the rows from `render` after an intended change of the
 * parameters or the analysis.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  maxVariables,
  minHidingVariables,
  whirHidingSchedule,
  whirHidingSecurity,
  whirParameterSets,
  whirSecurity,
} from "../../src/pcs/index.js";

export function render(): string[] {
  const rows: string[] = [
    "| set | least m | m | t = 2^(k_0)·q_0 | grinding before ρ | batching term | pcs §5 at m + 1 | ε_WHIR′ (bits) | weakest term |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const set of whirParameterSets()) {
    const least = minHidingVariables(set);
    for (const m of [least, 16, 20, maxVariables(set) - 1]) {
      const r = whirHidingSecurity(set, m);
      rows.push(
        `| ${set.id} | ${least} | ${m} | ${r.maskCoefficients} | ${r.batchPowBits} | ${r.batchBits.toFixed(1)} | ${r.whirBits.toFixed(1)} | ${r.bits.toFixed(1)} | ${r.weakest} |`,
      );
    }
  }
  return rows;
}

function docTable(): string[] {
  const doc = readFileSync(join(process.cwd(), "docs", "pcs.md"), "utf8");
  const start = doc.indexOf("<!-- hiding-security-table:start -->\n");
  const end = doc.indexOf("<!-- hiding-security-table:end -->");
  assert.ok(start >= 0 && end > start, "docs/pcs.md has the hiding-security-table markers");
  return doc
    .slice(start + "<!-- hiding-security-table:start -->\n".length, end)
    .trim()
    .split("\n");
}

test("docs/pcs.md §12.7 is the table whirHidingSecurity computes", () => {
  if (process.env.PRINT_HIDING_TABLE) console.log(render().join("\n"));
  assert.deepEqual(docTable(), render());
});

test("every offered set hides at every m from its least size up, reaching its target within the grinding limit", () => {
  for (const set of whirParameterSets()) {
    const least = minHidingVariables(set);
    assert.throws(() => whirHidingSchedule(set, least - 1), { code: "PCS_TOO_SMALL_TO_HIDE" }, set.id);
    for (let m = least; m + 1 <= maxVariables(set); m++) {
      const h = whirHidingSchedule(set, m);
      const first = h.schedule.rounds[0]!;
      assert.equal(h.maskCoefficients, first.queries << first.foldingFactor, `${set.id} m=${m}`);
      assert.ok(h.maskCoefficients <= 2 ** m, `${set.id} m=${m}: t fits below 2^m`);
      const r = whirHidingSecurity(set, m);
      assert.ok(r.bits >= set.securityBits - 0.05, `${set.id} m=${m}: ${r.bits} bits (weakest ${r.weakest})`);
      assert.equal(r.whirBits, whirSecurity(set, m + 1).bits);
      assert.ok(r.batchPowBits <= 16, `${set.id} m=${m}: ${r.batchPowBits} grinding bits before ρ`);
    }
    assert.throws(() => whirHidingSchedule(set, maxVariables(set)), { code: "PCS_TOO_LARGE" }, set.id);
  }
});
