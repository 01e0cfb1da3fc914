/**
 * Each check of the sumcheck verifier (src/sumcheck/verifier.ts) against a forgery that only that
 * check catches: the rest of the transcript is re-derived by a cheating prover so that every
 * later round passes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import {
  EXT_ONE,
  EXT_ZERO,
  embed,
  extAdd,
  extEq,
  extMul,
  extScale,
  extSub,
  type Ext,
} from "../../src/field/extension.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { mleEvalByDefinition } from "../../src/sumcheck/mle.js";
import type { RoundMessage, SumcheckOracle } from "../../src/sumcheck/oracle.js";
import { proveSumcheck } from "../../src/sumcheck/prover.js";
import { evalRoundPoly } from "../../src/sumcheck/interpolate.js";
import { verifySumcheck, type SumcheckVerifyResult } from "../../src/sumcheck/verifier.js";

const HALF = (P + 1) / 2;

/** Σ_b Π_k f_k(b) over tables of Ext, folded MSB-first; `shift(j)` is added to every evaluation of round j. */
class ShiftedProductOracle implements SumcheckOracle {
  readonly numVariables: number;
  readonly degree: number;
  private tables: Ext[][];
  private round = 0;
  constructor(
    tables: Ext[][],
    private readonly shift: (round: number) => Ext = () => EXT_ZERO,
  ) {
    this.tables = tables.map((t) => t.slice());
    this.numVariables = Math.log2(tables[0]!.length);
    this.degree = tables.length;
  }
  roundPolynomial(): RoundMessage {
    const h = this.tables[0]!.length / 2;
    const values: Ext[] = [];
    const c = this.shift(this.round);
    for (let T = 0; T <= this.degree; T++) {
      let acc = c;
      for (let i = 0; i < h; i++) {
        let prod = EXT_ONE;
        for (const t of this.tables) prod = extMul(prod, extAdd(t[i]!, extMul(embed(T), extSub(t[i + h]!, t[i]!))));
        acc = extAdd(acc, prod);
      }
      values.push(acc);
    }
    return { kind: "evaluations", values };
  }
  bind(r: Ext): void {
    this.round++;
    this.tables = this.tables.map((t) => {
      const h = t.length / 2;
      return t.slice(0, h).map((lo, j) => extAdd(lo, extMul(r, extSub(t[j + h]!, lo))));
    });
  }
}

/** Deterministic tables: k factors over n variables. */
function tablesOf(n: number, k: number, seed = 7): Ext[][] {
  let s = seed;
  const next = (): number => (s = (Math.imul(s, 0x9e3779b1) + 0x6d2b79f5) >>> 0) % P;
  return Array.from({ length: k }, () => Array.from({ length: 2 ** n }, () => [next(), next(), next(), next()] as Ext));
}

function sumOf(tables: Ext[][]): Ext {
  let acc = EXT_ZERO;
  for (let b = 0; b < tables[0]!.length; b++)
    acc = extAdd(
      acc,
      tables.reduce<Ext>((p, t) => extMul(p, t[b]!), EXT_ONE),
    );
  return acc;
}

function productAt(tables: Ext[][], point: readonly Ext[]): Ext {
  return tables.reduce<Ext>((p, t) => extMul(p, mleEvalByDefinition(t, point)), EXT_ONE);
}

const t = (): DuplexChallenger => DuplexChallenger.withDomain("verifier-checks");
const unit = (c: number): Ext => [0, 1, 2, 3].map((i) => (i === c ? 1 : 0)) as unknown as Ext;
const where = (r: SumcheckVerifyResult): string => (r.ok ? "ok" : `${r.code}@${r.round}`);

/**
 * A cheating prover for a claim off by 2δ at round j: round j's polynomial is shifted by δ (its
 * sum is off by 2δ) and every later round by δ/2^(k−j), so each later round sums to the running
 * claim. Only round j's sum check can catch it; the final subclaim is false by δ/2^(n−1−j).
 */
function forge(tables: Ext[][], j: number, delta: Ext): { rounds: Ext[][]; point: Ext[] } {
  const shift = (k: number): Ext => {
    if (k < j) return EXT_ZERO;
    let c = delta;
    for (let i = j; i < k; i++) c = extScale(c, HALF);
    return c;
  };
  return proveSumcheck(new ShiftedProductOracle(tables, shift), t());
}

test("baseline: honest proofs verify and the subclaim is the product of the MLEs at the point", () => {
  for (const [n, k] of [
    [1, 1],
    [3, 2],
    [4, 3],
    [3, 4],
  ] as const) {
    const tables = tablesOf(n, k);
    const proof = proveSumcheck(new ShiftedProductOracle(tables), t());
    const res = verifySumcheck(sumOf(tables), proof.rounds, n, t());
    assert.ok(res.ok);
    assert.deepEqual(res.point, proof.point);
    assert.ok(extEq(res.value, productAt(tables, res.point)));
    assert.deepEqual(res.rounds, proof.rounds);
  }
  // n = 0: no rounds, the subclaim is the claim.
  const res = verifySumcheck([1, 2, 3, 4], [], 0, t());
  assert.ok(res.ok && extEq(res.value, [1, 2, 3, 4]) && res.point.length === 0);
});

test("a round polynomial off in any one limb of its sum, later rounds re-derived, is ROUND_SUM_MISMATCH at that round only", () => {
  const n = 4;
  const tables = tablesOf(n, 2);
  const claim = sumOf(tables);
  for (let j = 0; j < n; j++) {
    for (let c = 0; c < 4; c++) {
      const delta = unit(c);
      const forged = forge(tables, j, delta);
      assert.equal(
        where(verifySumcheck(claim, forged.rounds, n, t())),
        `ROUND_SUM_MISMATCH@${j}`,
        `round ${j} limb ${c}`,
      );
      // Every other round is consistent: from the shifted claim the forgery passes and its subclaim is false.
      if (j === 0) {
        const shifted = extAdd(claim, extScale(delta, 2));
        const res = verifySumcheck(shifted, forged.rounds, n, t());
        assert.ok(res.ok, "later rounds pass");
        assert.ok(!extEq(res.value, productAt(tables, res.point)), "the subclaim is false");
      }
    }
  }
});

test("the running claim is g(r) of the previous round: a forger cannot keep the old claim", () => {
  // Round 1 sums to the claim of round 0 instead of g_0(r_0): rejected at round 1.
  const n = 3;
  const tables = tablesOf(n, 2, 11);
  const claim = sumOf(tables);
  const honest = proveSumcheck(new ShiftedProductOracle(tables), t());
  const g0r0 = evalRoundPoly(honest.rounds[0]!, honest.point[0]!);
  const d = extSub(claim, g0r0);
  const forged = proveSumcheck(new ShiftedProductOracle(tables, (k) => (k === 1 ? extScale(d, HALF) : EXT_ZERO)), t());
  assert.equal(where(verifySumcheck(claim, forged.rounds, n, t())), "ROUND_SUM_MISMATCH@1");
});

test("the final value is g_{n-1}(r_{n-1}) by Horner's rule, with zero leading coefficients skipped", () => {
  // Linear, quadratic and quartic rounds; trailing zero coefficients and all-zero polynomials.
  const tables = tablesOf(3, 4, 3);
  const proof = proveSumcheck(new ShiftedProductOracle(tables), t());
  const res = verifySumcheck(sumOf(tables), proof.rounds, 3, t());
  assert.ok(res.ok && extEq(res.value, productAt(tables, res.point)));
  const zero = [EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO];
  const allZero = verifySumcheck(EXT_ZERO, [zero, zero], 2, t());
  assert.ok(allZero.ok && extEq(allZero.value, EXT_ZERO));
  // g(X) = a0 + a1·X with a0 = 0: g(0) + g(1) = a1; the value at r is a1·r.
  const a1: Ext = [5, 6, 7, 8];
  const lin = verifySumcheck(a1, [[EXT_ZERO, a1, EXT_ZERO, EXT_ZERO, EXT_ZERO]], 1, t());
  assert.ok(lin.ok && extEq(lin.value, extMul(a1, lin.point[0]!)));
  // A constant polynomial c has g(0) + g(1) = 2c; the value is c wherever r falls.
  const c: Ext = [9, 0, 0, 1];
  const constant = verifySumcheck(extScale(c, 2), [[c]], 1, t());
  assert.ok(constant.ok && extEq(constant.value, c));
});

test("coefficients near p are summed exactly before the comparison", () => {
  // 2·a0 + a1 + … + a4 with every limb p − 1: the exact sum exceeds 2^32; the claim is its residue.
  const m = P - 1;
  const a: Ext = [m, m, m, m];
  const poly = [a, a, a, a, a];
  const claim = extScale(a, 6);
  const res = verifySumcheck(claim, [poly], 1, t());
  assert.ok(res.ok);
  assert.equal(where(verifySumcheck(extAdd(claim, EXT_ONE), [poly], 1, t())), "ROUND_SUM_MISMATCH@0");
});

test("round count, array shape, arity and canonical coefficients are checked in that order", () => {
  const tables = tablesOf(2, 2);
  const claim = sumOf(tables);
  const proof = proveSumcheck(new ShiftedProductOracle(tables), t());
  assert.equal(where(verifySumcheck(claim, proof.rounds.slice(1), 2, t())), "ROUND_COUNT@undefined");
  assert.equal(where(verifySumcheck(claim, [...proof.rounds, proof.rounds[0]!], 2, t())), "ROUND_COUNT@undefined");
  assert.equal(where(verifySumcheck(claim, "rounds", 2, t())), "MALFORMED_ROUND@undefined");
  assert.equal(where(verifySumcheck(claim, [proof.rounds[0], { length: 5 }], 2, t())), "MALFORMED_ROUND@1");
  assert.equal(
    where(verifySumcheck(claim, [[...proof.rounds[0]!, EXT_ZERO], proof.rounds[1]], 2, t())),
    "DEGREE_TOO_HIGH@0",
  );
  assert.equal(
    where(verifySumcheck(claim, [proof.rounds[0], [...proof.rounds[1]!, EXT_ZERO]], 2, t())),
    "DEGREE_TOO_HIGH@1",
  );
  // Degree above 4 is reported before a non-canonical coefficient of the same round.
  assert.equal(
    where(verifySumcheck(EXT_ZERO, [[[P, 0, 0, 0], EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO]], 1, t())),
    "DEGREE_TOO_HIGH@0",
  );
  const bad = proof.rounds.map((g) => g.slice());
  bad[1]![4] = [0, 0, P, 0];
  assert.equal(where(verifySumcheck(claim, bad, 2, t())), "NON_CANONICAL@1");
  // A non-canonical coefficient is reported even when the sum would not match.
  assert.equal(where(verifySumcheck(EXT_ONE, [[[0, P, 0, 0]]], 1, t())), "NON_CANONICAL@0");
  // A coefficient is exactly four elements in an array: five (canonical), three, or an array-like object are not.
  for (const c of [[1, 2, 3, 4, 5], [1, 2, 3], { 0: 1, 1: 2, 2: 3, 3: 4, length: 4 }, [1, 2, 3, 1.5], [1, 2, "3", 4]])
    assert.equal(where(verifySumcheck(EXT_ZERO, [[c, EXT_ZERO]], 1, t())), "NON_CANONICAL@0", JSON.stringify(c));
});

test("the subclaim's rounds are the validated coefficients as given (short rounds kept short), not the caller's arrays", () => {
  const tables = tablesOf(2, 2);
  const proof = proveSumcheck(new ShiftedProductOracle(tables), t());
  const rounds = proof.rounds.map((g) => g.map((a) => [...a] as Ext));
  const res = verifySumcheck(sumOf(tables), rounds, 2, t());
  assert.ok(res.ok);
  assert.deepEqual(res.rounds, proof.rounds);
  (rounds[0]![0] as unknown as number[])[0] = (rounds[0]![0]![0] + 1) % P;
  assert.deepEqual(res.rounds, proof.rounds, "the subclaim does not alias the caller's arrays");
  const a0: Ext = [1, 2, 3, 4];
  const short = verifySumcheck(extScale(a0, 2), [[a0]], 1, t());
  assert.ok(short.ok);
  assert.deepEqual(short.rounds, [[a0]]);
});

test("only the coefficients present are observed: appending zero coefficients changes the challenges", () => {
  // g(X) = a0 given as [a0] and as [a0, 0]: same sum, different transcripts, different points.
  const a0: Ext = [1, 2, 3, 4];
  const short = verifySumcheck(extScale(a0, 2), [[a0]], 1, t());
  const long = verifySumcheck(extScale(a0, 2), [[a0, EXT_ZERO]], 1, t());
  assert.ok(short.ok && long.ok);
  assert.ok(!extEq(short.point[0]!, long.point[0]!));
  // The same transcript state as the prover's: observe every coefficient, then sample.
  const mirror = t();
  mirror.observeExt(a0);
  assert.ok(extEq(short.point[0]!, mirror.sampleExt()));
});
