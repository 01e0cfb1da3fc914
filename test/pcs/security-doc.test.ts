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
import { firstFoldingFactor } from "../../src/pcs/params.js";

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

test("the default set is the 100-bit conjectured one at rate 1/4 with width-24 leaves and a first fold of 6 where it saves an iteration; the provable one is unique decoding with later domains 2^4 times smaller and 12 bits of query grinding; hiding commitments keep a first fold of 5", async () => {
  const { DEFAULT_WHIR_SET, PROVABLE_WHIR_SET, DEFAULT_HIDING_WHIR_SET, whirParameterSet } = await import(
    "../../src/pcs/index.js"
  );
  assert.equal(DEFAULT_WHIR_SET, "cb100-r4-s3-l24-f6");
  assert.equal(PROVABLE_WHIR_SET, "ud100-r4-s4-l24-f6-q12");
  assert.equal(DEFAULT_HIDING_WHIR_SET, "cb100-r4-s3-l24");
  assert.equal(whirParameterSet(DEFAULT_WHIR_SET).leafWidth, 24);
  assert.equal(whirParameterSet(PROVABLE_WHIR_SET).leafWidth, 24);
  assert.equal(whirParameterSet(PROVABLE_WHIR_SET).regime, "unique-decoding");
  assert.equal(whirSecurity(whirParameterSet(DEFAULT_WHIR_SET), 22).bits >= 100, true);
});

test("each -l24 set has the schedule and the security of its -s3 twin; only the leaf sponge differs", () => {
  const twins = whirParameterSets().filter((s) => s.leafWidth === 24 && s.firstFoldingMax === s.foldingFactor);
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

test("every schedule shrinks each later domain by the set's 2^s (the first by 2^(s + k_0 − k)) and raises log 1/ρ by k_i − s (the first by k) (docs/pcs.md §3)", () => {
  for (const set of whirParameterSets()) {
    for (let m = 1; m <= maxVariables(set); m++) {
      const rounds = whirSchedule(set, m).rounds;
      assert.equal(rounds[0]!.logDomain, m + set.logInvRate, `${set.id} m=${m}: the first codeword`);
      for (let i = 1; i < rounds.length; i++) {
        const [a, b] = [rounds[i - 1]!, rounds[i]!];
        const extra = i === 1 ? a.foldingFactor - set.foldingFactor : 0;
        assert.equal(b.logDomain, a.logDomain - set.domainShrink - extra, `${set.id} m=${m}: domain of iteration ${i}`);
        assert.equal(
          b.logInvRate,
          a.logInvRate + a.foldingFactor - extra - set.domainShrink,
          `${set.id} m=${m}: rate ${i}`,
        );
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

test("each -f6 set is its -l24 twin but for the first fold: k_0 = 6 where it gives fewer iterations than 5, f_1 keeps the twin's rate on a smaller domain, and the schedules are equal wherever k_0 = 5 (docs/pcs.md §3)", () => {
  const f6 = whirParameterSets().filter((s) => s.firstFoldingMax !== s.foldingFactor && s.domainShrink === 3);
  assert.deepEqual(
    f6.map((s) => [s.id, s.code, s.firstFoldingMax]),
    [
      ["cb100-r4-s3-l24-f6", 15, 6],
      ["ud100-r4-s3-l24-f6", 16, 6],
    ],
  );
  const chosen: number[] = [];
  for (const set of f6) {
    const twin = whirParameterSet(set.id.replace(/-f6$/, ""));
    assert.deepEqual({ ...set, id: twin.id, code: twin.code, firstFoldingMax: 5 }, twin, set.id);
    for (let m = 1; m <= maxVariables(set); m++) {
      const [mine, theirs] = [whirSchedule(set, m), whirSchedule(twin, m)];
      const k0 = firstFoldingFactor(set, m);
      assert.equal(mine.rounds[0]!.foldingFactor, Math.min(k0, m), `${set.id} m=${m}`);
      if (set.id.startsWith("cb")) chosen.push(k0);
      if (k0 === 5) {
        assert.deepEqual(mine, { ...theirs, set }, `${set.id} m=${m}: the twin's schedule`);
        continue;
      }
      assert.ok(mine.rounds.length < theirs.rounds.length, `${set.id} m=${m}: k_0 = ${k0} saves an iteration`);
      if (mine.rounds.length > 1) {
        assert.equal(
          mine.rounds[1]!.logInvRate,
          theirs.rounds[1]!.logInvRate,
          `${set.id} m=${m}: f_1 has the twin's rate`,
        );
        assert.equal(
          mine.rounds[1]!.logDomain,
          theirs.rounds[1]!.logDomain - (k0 - 5),
          `${set.id} m=${m}: L_1 is 2^(k_0 − 5) times smaller`,
        );
      }
      assert.deepEqual(
        mine.rounds.slice(1).map((r) => r.foldingFactor),
        mine.rounds.slice(1).map((r) => Math.min(5, r.numVariables)),
        `${set.id} m=${m}: later iterations fold 5`,
      );
    }
  }
  // m = 1..22: a first fold of 6 at m = 12, 17 and 22 (each one iteration fewer).
  assert.deepEqual(
    chosen.flatMap((k, i) => (k === 5 ? [] : [[i + 1, k]])),
    [
      [12, 6],
      [17, 6],
      [22, 6],
    ],
  );
});

test("ud100-r4-s4-l24-f6 is ud100-r4-s3-l24-f6 but for the domain shrink: each later domain 2^4 times smaller (the first 2^(4 + k_0 − 5)), so each f_i has half the twin's rate and more queries, on half or less of its domain (docs/pcs.md §2.2)", () => {
  const s4 = whirParameterSets().filter((s) => s.domainShrink === 4 && s.queryPowBudget === 16);
  assert.deepEqual(
    s4.map((s) => [s.id, s.code]),
    [["ud100-r4-s4-l24-f6", 17]],
  );
  const set = s4[0]!;
  const twin = whirParameterSet("ud100-r4-s3-l24-f6");
  assert.deepEqual({ ...set, id: twin.id, code: twin.code, domainShrink: 3 }, twin);
  for (let m = 1; m <= maxVariables(set); m++) {
    const [mine, theirs] = [whirSchedule(set, m).rounds, whirSchedule(twin, m).rounds];
    assert.deepEqual(
      mine.map((r) => [r.numVariables, r.foldingFactor]),
      theirs.map((r) => [r.numVariables, r.foldingFactor]),
      `m=${m}: the twin's folds`,
    );
    assert.equal(mine[0]!.logDomain, theirs[0]!.logDomain, `m=${m}: the same first codeword`);
    for (let i = 1; i < mine.length; i++) {
      assert.equal(mine[i]!.logDomain, theirs[i]!.logDomain - i, `m=${m}: L_${i} is 2^${i} times smaller`);
      assert.equal(mine[i]!.logInvRate, theirs[i]!.logInvRate - i, `m=${m}: f_${i} has 2^${i} times the rate`);
      assert.ok(mine[i]!.queries >= theirs[i]!.queries, `m=${m}: iteration ${i} queries at least as often`);
    }
    assert.ok(whirSecurity(set, m).bits >= 100 - 0.05, `m=${m}: 100 bits`);
  }
  // m = 22: codewords of 2^24, 2^19 and 2^15 points (the twin: 2^24, 2^20, 2^17), 124, 102 and 93 queries.
  assert.deepEqual(
    whirSchedule(set, 22).rounds.map((r) => [r.logDomain, r.queries]),
    [
      [24, 124],
      [19, 102],
      [15, 93],
    ],
  );
});

test("ud100-r4-s4-l24-f6-q12 is ud100-r4-s4-l24-f6 but for the query grinding budget: at most 12 bits before each iteration's queries instead of 16, paid for with more queries; the folds, domains and rates are the twin's (docs/pcs.md §2.3)", () => {
  const q12 = whirParameterSets().filter((s) => s.queryPowBudget !== 16);
  assert.deepEqual(
    q12.map((s) => [s.id, s.code, s.queryPowBudget]),
    [["ud100-r4-s4-l24-f6-q12", 18, 12]],
  );
  const set = q12[0]!;
  const twin = whirParameterSet("ud100-r4-s4-l24-f6");
  assert.deepEqual({ ...set, id: twin.id, code: twin.code, queryPowBudget: 16 }, twin);
  for (let m = 1; m <= maxVariables(set); m++) {
    const [mine, theirs] = [whirSchedule(set, m), whirSchedule(twin, m)];
    assert.deepEqual(
      mine.rounds.map((r) => [r.numVariables, r.foldingFactor, r.logDomain, r.logInvRate, r.foldPowBits]),
      theirs.rounds.map((r) => [r.numVariables, r.foldingFactor, r.logDomain, r.logInvRate, r.foldPowBits]),
      `m=${m}: the twin's folds, domains, rates and fold grinding`,
    );
    mine.rounds.forEach((r, i) => {
      assert.ok(r.queryPowBits <= 12, `m=${m}: iteration ${i} grinds ${r.queryPowBits} bits before its queries`);
      assert.ok(r.queries >= theirs.rounds[i]!.queries, `m=${m}: iteration ${i} queries at least as often`);
    });
    assert.ok(whirSecurity(set, m).bits >= 100 - 0.05, `m=${m}: 100 bits`);
  }
  // m = 22: 130, 107 and 97 queries after 12 bits of grinding each (the twin: 124, 102, 93 after 16 bits).
  assert.deepEqual(
    whirSchedule(set, 22).rounds.map((r) => [r.logDomain, r.queries, r.queryPowBits]),
    [
      [24, 130, 12],
      [19, 107, 12],
      [15, 97, 12],
    ],
  );
});
