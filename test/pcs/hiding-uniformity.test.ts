/**
 * The zero-knowledge statement of docs/pcs.md §12.8, tested statistically: over many seeds of the
 * prover's randomness, the F′ and G′ words of the first iteration's opened rows — the only place a
 * masked opening shows f′ and g′ apart from h — are uniform, and two vectors with the same claim
 * values give the same distribution. The vectors are f = 0 (any part of F′ not masked by τ would
 * be constantly zero there) and f̃ ≠ 0 with f̃'s claims equal to f's; the seeds are fixed, so the
 * test is deterministic. A control run with τ forced to zero shows that the statistic sees an
 * unmasked encoding at once. Both layouts of §12.10 are tested: τ in a new variable Y, and τ in the
 * top block of f's own values (the claims then have a zero coordinate among the block's variables).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Ext } from "../../src/field/extension.js";
import { P, add, inverse, mul, sub } from "../../src/field/koalabear.js";
import {
  whirCommitHiding,
  whirHidingSchedule,
  whirOpenHidingOn,
  whirParameterSet,
  whirSeededRandomSource,
  type WhirAnyClaim,
  type WhirHidingLayout,
  type WhirRandomSource,
} from "../../src/pcs/index.js";
import { mleAt, rng } from "./support.js";

const SEEDS = 200;
const BUCKETS = 64;

/** The upper tail of χ²(df) at z standard deviations (Wilson–Hilferty): z = 3.5 is p ≈ 2·10^−4. */
function chiSquareBound(df: number, z = 3.5): number {
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

function histogram(values: readonly number[]): number[] {
  const h = new Array<number>(BUCKETS).fill(0);
  for (const v of values) h[Math.floor((v * BUCKETS) / P)]!++;
  return h;
}

/** χ² of a histogram against the uniform distribution on [0, p) (the buckets are equal to 2^−26). */
function chiSquareUniform(h: readonly number[]): number {
  const n = h.reduce((a, b) => a + b, 0);
  const e = n / BUCKETS;
  return h.reduce((acc, o) => acc + (o - e) ** 2 / e, 0);
}

/** The two-sample χ² of two histograms (df = buckets − 1 under equal distributions). */
function chiSquareTwoSample(a: readonly number[], b: readonly number[]): number {
  const na = a.reduce((x, y) => x + y, 0);
  const nb = b.reduce((x, y) => x + y, 0);
  const ka = Math.sqrt(nb / na);
  const kb = Math.sqrt(na / nb);
  let acc = 0;
  for (let i = 0; i < a.length; i++) if (a[i]! + b[i]! > 0) acc += (ka * a[i]! - kb * b[i]!) ** 2 / (a[i]! + b[i]!);
  return acc;
}

const BLOCK_OFFSET = 800;

for (const [layout, M] of [
  ["extra-variable", 11],
  ["top-block", 12],
] as const satisfies readonly (readonly [WhirHidingLayout, number])[]) {
  const HIDING = whirHidingSchedule(whirParameterSet("cb100-r4"), M, layout);
  const K = HIDING.schedule.rounds[0]!.foldingFactor;
  // The claims: f̂ at a base-field point z (its last coordinate 0 in the layout "top-block", so that
  // it does not weigh τ's block), and a block claim with base-field weights on lanes 800 … 807.
  const next = rng(4242);
  const Z: Ext[] = Array.from(
    { length: M },
    (_, j) => [layout === "top-block" && j === M - 1 ? 0 : next(), 0, 0, 0] as Ext,
  );
  const WEIGHTS: Ext[] = Array.from({ length: 8 }, () => [next(), 0, 0, 0] as Ext);

  function claimsOf(f: Uint32Array): WhirAnyClaim[] {
    let v = 0;
    WEIGHTS.forEach((w, i) => {
      v = add(v, mul(w[0], f[BLOCK_OFFSET + i]!));
    });
    return [
      { point: Z, value: mleAt(f, Z) },
      { block: { offset: BLOCK_OFFSET, weights: WEIGHTS }, value: [v, 0, 0, 0] },
    ];
  }

  /** A vector f̃ ≠ 0 with the claims' values of f = 0: random, zero on the block, lane 0 solving Σ_b eq(z, b)·f̃(b) = 0. */
  function sameClaimsAsZero(): Uint32Array {
    const r = rng(777);
    const f = new Uint32Array(1 << M).map(() => r());
    f.fill(0, BLOCK_OFFSET, BLOCK_OFFSET + 8);
    const eq = (b: number): number => {
      let acc = 1;
      for (let j = 0; j < M; j++) acc = mul(acc, (b >> j) & 1 ? Z[j]![0] : sub(1, Z[j]![0]));
      return acc;
    };
    f[0] = 0;
    let s = 0; // eq(z, b) is 0 on τ's block in the layout "top-block" (z's last coordinate is 0)
    for (let b = 1; b < 1 << M; b++) s = add(s, mul(eq(b), f[b]!));
    f[0] = mul(sub(0, s), inverse(eq(0)));
    return f;
  }

  /** The opened F′ words and G′ words of the first iteration over `seeds` runs of the prover. */
  function openedWords(
    f: Uint32Array,
    tag: string,
    seeds: number,
    source: (seed: string) => WhirRandomSource = whirSeededRandomSource,
  ) {
    const claims = claimsOf(f);
    const fWords: number[] = [];
    const gWords: number[] = [];
    const w = 1 << K;
    for (let s = 0; s < seeds; s++) {
      const committed = whirCommitHiding(f, { layout, random: source(`${tag} ${s}`) });
      const proof = whirOpenHidingOn(committed.transcript.clone(), committed.state, claims);
      const rows = proof.rounds[0]!.rows;
      for (let r = 0; r < proof.rounds[0]!.rowCount; r++) {
        const row = rows.subarray(5 * w * r, 5 * w * (r + 1));
        for (let i = 0; i < w; i++) fWords.push(row[i]!);
        for (let i = w; i < 5 * w; i++) gWords.push(row[i]!);
      }
    }
    return { fWords, gWords };
  }

  test(`${layout}: the opened F′ and G′ words are uniform, and the same for two vectors with equal claim values (χ², 200 seeds each)`, (t) => {
    const zero = new Uint32Array(1 << M);
    const other = sameClaimsAsZero();
    assert.ok(other.some((x) => x !== 0));
    assert.deepEqual(claimsOf(other), claimsOf(zero), "f̃'s claims have f = 0's values");
    const a = openedWords(zero, "uniformity f", SEEDS);
    const b = openedWords(other, "uniformity f~", SEEDS);
    const bound = chiSquareBound(BUCKETS - 1);
    assert.ok(a.fWords.length > SEEDS * 30 * (1 << K), `${a.fWords.length} F′ words`);
    const stats = {
      "F′ of f = 0 against uniform": chiSquareUniform(histogram(a.fWords)),
      "G′ of f = 0 against uniform": chiSquareUniform(histogram(a.gWords)),
      "F′ of f̃ against uniform": chiSquareUniform(histogram(b.fWords)),
      "G′ of f̃ against uniform": chiSquareUniform(histogram(b.gWords)),
      "F′ of f = 0 against F′ of f̃": chiSquareTwoSample(histogram(a.fWords), histogram(b.fWords)),
      "G′ of f = 0 against G′ of f̃": chiSquareTwoSample(histogram(a.gWords), histogram(b.gWords)),
    };
    t.diagnostic(
      `χ² bound ${bound.toFixed(1)} (df ${BUCKETS - 1}); ${a.fWords.length} and ${b.fWords.length} F′ words`,
    );
    for (const [what, x] of Object.entries(stats)) t.diagnostic(`${what}: χ² = ${x.toFixed(1)}`);
    for (const [what, x] of Object.entries(stats))
      assert.ok(x < bound, `${what}: χ² = ${x.toFixed(1)} ≥ ${bound.toFixed(1)}`);
    // The mean and variance of the F′ words of f = 0 are those of the uniform distribution on [0, p).
    const n = a.fWords.length;
    const mean = a.fWords.reduce((s, x) => s + x, 0) / n;
    const variance = a.fWords.reduce((s, x) => s + (x - mean) ** 2, 0) / n;
    assert.ok(Math.abs(mean - (P - 1) / 2) < 4 * Math.sqrt(P ** 2 / 12 / n), `mean ${mean}`);
    assert.ok(Math.abs(variance / (P ** 2 / 12) - 1) < 0.02, `variance ratio ${variance / (P ** 2 / 12)}`);
  });

  test(`${layout}: control: with τ forced to zero, the statistic sees the unmasked F′ of f = 0 at once`, () => {
    const zeroTau = (seed: string): WhirRandomSource => {
      const source = whirSeededRandomSource(seed);
      return (out) => {
        source(out);
        if (out.length === HIDING.maskCoefficients) out.fill(0); // τ is the first draw
      };
    };
    const { fWords, gWords } = openedWords(new Uint32Array(1 << M), "control", 3, zeroTau);
    assert.ok(chiSquareUniform(histogram(fWords)) > 100 * chiSquareBound(BUCKETS - 1));
    assert.ok(chiSquareUniform(histogram(gWords)) < chiSquareBound(BUCKETS - 1), "G′ is still the random mask");
  });
}
