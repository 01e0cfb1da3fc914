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

/** §12.10's table: the layout "top-block" (f′ and g′ at f's m variables, τ in the top 2^j values). */
export function renderTopBlock(): string[] {
  const rows: string[] = [
    "| set | least m | m | j | t | grinding before ρ | batching term | pcs §5 at m | ε_WHIR′ (bits) | weakest term |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const set of whirParameterSets()) {
    const least = minHidingVariables(set, "top-block");
    for (const m of [least, 16, 20, maxVariables(set)]) {
      const r = whirHidingSecurity(set, m, "top-block");
      const j = whirHidingSchedule(set, m, "top-block").maskBlockVariables;
      rows.push(
        `| ${set.id} | ${least} | ${m} | ${j} | ${r.maskCoefficients} | ${r.batchPowBits} | ${r.batchBits.toFixed(1)} | ${r.whirBits.toFixed(1)} | ${r.bits.toFixed(1)} | ${r.weakest} |`,
      );
    }
  }
  return rows;
}

function docTable(marker: string): string[] {
  const doc = readFileSync(join(process.cwd(), "docs", "pcs.md"), "utf8");
  const start = doc.indexOf(`<!-- ${marker}:start -->\n`);
  const end = doc.indexOf(`<!-- ${marker}:end -->`);
  assert.ok(start >= 0 && end > start, `docs/pcs.md has the ${marker} markers`);
  return doc
    .slice(start + `<!-- ${marker}:start -->\n`.length, end)
    .trim()
    .split("\n");
}

test("docs/pcs.md §12.7 and §12.10 are the tables whirHidingSecurity computes", () => {
  if (process.env.PRINT_HIDING_TABLE) console.log([...render(), "", ...renderTopBlock()].join("\n"));
  assert.deepEqual(docTable("hiding-security-table"), render());
  assert.deepEqual(docTable("hiding-top-block-table"), renderTopBlock());
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

test("the layout top-block hides at every m from its least size up to the set's limit: t fits in f's upper half, λ reached within the grinding limit", () => {
  for (const set of whirParameterSets()) {
    const least = minHidingVariables(set, "top-block");
    assert.throws(() => whirHidingSchedule(set, least - 1, "top-block"), { code: "PCS_TOO_SMALL_TO_HIDE" }, set.id);
    for (let m = least; m <= maxVariables(set); m++) {
      const h = whirHidingSchedule(set, m, "top-block");
      assert.equal(h.committedVariables, m);
      assert.ok(h.maskCoefficients <= 2 ** h.maskBlockVariables, `${set.id} m=${m}: t fits in the block`);
      assert.ok(
        2 ** h.maskBlockVariables < 2 * h.maskCoefficients,
        `${set.id} m=${m}: the block is the least power of two ≥ t`,
      );
      assert.ok(h.maskBlockVariables <= m - 1, `${set.id} m=${m}: the block is at most f's upper half`);
      const r = whirHidingSecurity(set, m, "top-block");
      assert.ok(r.bits >= set.securityBits - 0.05, `${set.id} m=${m}: ${r.bits} bits (weakest ${r.weakest})`);
      assert.equal(r.whirBits, whirSecurity(set, m).bits);
      // The same as the layout extra-variable at one variable less, whose f′ has these m variables.
      if (m - 1 >= minHidingVariables(set)) {
        const e = whirHidingSecurity(set, m - 1);
        assert.equal(r.bits, e.bits, `${set.id} m=${m}`);
        assert.equal(r.maskCoefficients, e.maskCoefficients);
      }
    }
    assert.throws(() => whirHidingSchedule(set, maxVariables(set) + 1, "top-block"), { code: "PCS_TOO_LARGE" }, set.id);
  }
});
