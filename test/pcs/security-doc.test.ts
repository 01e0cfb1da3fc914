/**
 * docs/pcs.md §5.3 is the table `whirSecurity` computes: every offered set at m = 16, 18, 20, 22
 * (and 23 where the set allows it). Regenerate the rows from this renderer after an intended
 * change of the parameters or the analysis (`PRINT_SECURITY_TABLE=1` prints them).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { maxVariables, whirParameterSet, whirParameterSets, whirSchedule, whirSecurity } from "../../src/pcs/index.js";

const f = (x: number): string => (x === Infinity ? "∞" : x.toFixed(1));

function render(): string[] {
  const rows: string[] = [
    "| set | m | rounds (m_i / log 1/ρ_i / log η_i) | queries | OOD (commitment; per round) | fold grinding | query grinding | own regime | unique decoding | Johnson bound | capacity | weakest term |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const set of whirParameterSets()) {
    for (const m of [16, 18, 20, 22, 23]) {
      if (m > maxVariables(set)) continue;
      const s = whirSchedule(set, m);
      const r = whirSecurity(set, m);
      const rounds = s.rounds
        .map((x) => `${x.numVariables}/${x.logInvRate}/${set.regime === "unique-decoding" ? "–" : x.logEta.toFixed(2)}`)
        .join(", ");
      const ood = `${s.initialOodSamples}; ${
        s.rounds
          .slice(0, -1)
          .map((x) => x.nextOodSamples)
          .join(", ") || "–"
      }`;
      rows.push(
        `| ${set.id} | ${m} | ${rounds} → ${s.finalVariables} | ${s.rounds.map((x) => x.queries).join(", ")} | ${ood} | ${s.rounds.map((x) => x.foldPowBits).join(", ")} | ${s.rounds.map((x) => x.queryPowBits).join(", ")} | ${f(r.bits)} | ${f(r.regimes["unique-decoding"].bits)} | ${f(r.regimes["johnson-bound"].bits)} | ${f(r.regimes.capacity.bits)} | ${r.regimes[set.regime].weakest} |`,
      );
    }
  }
  return rows;
}

test("docs/pcs.md §5.3 is the table whirSecurity computes", () => {
  if (process.env.PRINT_SECURITY_TABLE) console.log(render().join("\n"));
  const doc = readFileSync(join(process.cwd(), "docs", "pcs.md"), "utf8");
  const start = doc.indexOf("<!-- security-table:start -->\n");
  const end = doc.indexOf("<!-- security-table:end -->");
  assert.ok(start >= 0 && end > start, "docs/pcs.md has the security-table markers");
  const lines = doc
    .slice(start + "<!-- security-table:start -->\n".length, end)
    .trim()
    .split("\n");
  assert.deepEqual(lines, render());
});

test("every offered set reaches its target in its own regime at every allowed m, within the grinding limit", () => {
  for (const set of whirParameterSets()) {
    for (let m = 1; m <= maxVariables(set); m++) {
      const r = whirSecurity(set, m);
      assert.ok(
        r.bits >= set.securityBits - 0.05,
        `${set.id} m=${m}: ${r.bits} bits (weakest ${r.regimes[set.regime].weakest})`,
      );
      assert.ok(r.maxPowBits <= 16, `${set.id} m=${m}: ${r.maxPowBits} grinding bits`);
      assert.equal(r.fieldBits, 123.9);
    }
  }
});

test("the default set is the 100-bit conjectured one at rate 1/4 with width-24 leaves; the provable one is unique decoding", async () => {
  const { DEFAULT_WHIR_SET, PROVABLE_WHIR_SET, whirParameterSet } = await import("../../src/pcs/index.js");
  assert.equal(DEFAULT_WHIR_SET, "cb100-r4-s3-l24");
  assert.equal(PROVABLE_WHIR_SET, "ud100-r4-s3-l24");
  assert.equal(whirParameterSet(DEFAULT_WHIR_SET).leafWidth, 24);
  assert.equal(whirParameterSet(PROVABLE_WHIR_SET).leafWidth, 24);
  assert.equal(whirParameterSet(PROVABLE_WHIR_SET).regime, "unique-decoding");
  assert.equal(whirSecurity(whirParameterSet(DEFAULT_WHIR_SET), 22).bits >= 100, true);
});

test("each -l24 set has the schedule and the security of its -s3 twin; only the leaf sponge differs", () => {
  const twins = whirParameterSets().filter((s) => s.leafWidth === 24);
  assert.deepEqual(
    twins.map((s) => [s.id, s.code]),
    [
      ["cb100-r4-s3-l24", 11],
      ["ud100-r4-s3-l24", 12],
      ["cb100-r2-s3-l24", 13],
      ["ud100-r2-s3-l24", 14],
    ],
  );
  for (const set of twins) {
    const twin = whirParameterSets().find((s) => s.id === set.id.replace(/-l24$/, ""))!;
    assert.deepEqual({ ...set, id: twin.id, code: twin.code, leafWidth: 16 }, twin, set.id);
    for (const m of [10, 16, 20, maxVariables(set)]) {
      assert.deepEqual(whirSchedule(set, m).rounds, whirSchedule(twin, m).rounds, `${set.id} m=${m}`);
      assert.equal(whirSecurity(set, m).bits, whirSecurity(twin, m).bits, `${set.id} m=${m}`);
    }
  }
});

test("every schedule shrinks each later domain by the set's 2^s and raises log 1/ρ by k_i − s (docs/pcs.md §3)", () => {
  for (const set of whirParameterSets()) {
    for (let m = 1; m <= maxVariables(set); m++) {
      const rounds = whirSchedule(set, m).rounds;
      assert.equal(rounds[0]!.logDomain, m + set.logInvRate, `${set.id} m=${m}: the first codeword`);
      for (let i = 1; i < rounds.length; i++) {
        const [a, b] = [rounds[i - 1]!, rounds[i]!];
        assert.equal(b.logDomain, a.logDomain - set.domainShrink, `${set.id} m=${m}: domain of iteration ${i}`);
        assert.equal(b.logInvRate, a.logInvRate + a.foldingFactor - set.domainShrink, `${set.id} m=${m}: rate ${i}`);
        assert.equal(b.logDomain, b.numVariables + b.logInvRate, `${set.id} m=${m}: |L_i| = 2^(m_i)/ρ_i`);
        assert.ok(b.logInvRate >= 1, `${set.id} m=${m}: rate below 1`);
      }
    }
  }
  const s3 = whirSchedule(whirParameterSet("cb100-r4-s3"), 21).rounds.map((r) => r.logDomain);
  const s1 = whirSchedule(whirParameterSet("cb100-r4"), 21).rounds.map((r) => r.logDomain);
  assert.deepEqual(s3, [23, 20, 17]);
  assert.deepEqual(s1, [23, 22, 21]);
});
