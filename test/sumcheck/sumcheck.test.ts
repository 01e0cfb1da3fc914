import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, EXT_ZERO, embed, extAdd, extMul, extSub, type Ext } from "../../src/field/extension.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { mleEvalByDefinition } from "../../src/sumcheck/mle.js";
import type { RoundMessage, SumcheckOracle } from "../../src/sumcheck/oracle.js";
import { proveSumcheck } from "../../src/sumcheck/prover.js";
import { verifySumcheck } from "../../src/sumcheck/verifier.js";
import { SumcheckError } from "../../src/sumcheck/errors.js";

const fe = fc.integer({ min: 0, max: P - 1 });
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

/** Σ_b Π_k f_k(b) over tables of Ext (degree = number of factors), folded MSB-first. */
class ProductOracle implements SumcheckOracle {
  readonly numVariables: number;
  readonly degree: number;
  private tables: Ext[][];
  constructor(
    tables: Ext[][],
    private readonly asCoefficients = false,
  ) {
    this.tables = tables.map((t) => t.slice());
    this.numVariables = Math.log2(tables[0]!.length);
    this.degree = tables.length;
  }
  roundPolynomial(): RoundMessage {
    const h = this.tables[0]!.length / 2;
    const evals: Ext[] = [];
    for (let T = 0; T <= this.degree; T++) {
      let acc = EXT_ZERO;
      for (let i = 0; i < h; i++) {
        let prod = EXT_ONE;
        for (const t of this.tables) prod = extMul(prod, extAdd(t[i]!, extMul(embed(T), extSub(t[i + h]!, t[i]!))));
        acc = extAdd(acc, prod);
      }
      evals.push(acc);
    }
    if (!this.asCoefficients) return { kind: "evaluations", values: evals };
    // degree-1 only: a0 = g(0), a1 = g(1) − g(0)
    return { kind: "coefficients", values: [evals[0]!, extSub(evals[1]!, evals[0]!)] };
  }
  bind(r: Ext): void {
    this.tables = this.tables.map((t) => {
      const h = t.length / 2;
      return t.slice(0, h).map((lo, j) => extAdd(lo, extMul(r, extSub(t[j + h]!, lo))));
    });
  }
}

const arbInstance = fc
  .integer({ min: 0, max: 4 })
  .chain((n) =>
    fc
      .integer({ min: 1, max: 4 })
      .chain((k) =>
        fc.array(fc.array(arbExt, { minLength: 2 ** n, maxLength: 2 ** n }), { minLength: k, maxLength: k }),
      ),
  );

function claimOf(tables: Ext[][]): Ext {
  let acc = EXT_ZERO;
  for (let b = 0; b < tables[0]!.length; b++)
    acc = extAdd(
      acc,
      tables.reduce<Ext>((p, t) => extMul(p, t[b]!), EXT_ONE),
    );
  return acc;
}

test("honest sumcheck verifies and the subclaim is Π_k MLE(f_k)(point)", () => {
  fc.assert(
    fc.property(arbInstance, (tables) => {
      const pt = DuplexChallenger.withDomain("sumcheck-test");
      const proof = proveSumcheck(new ProductOracle(tables), pt);
      assert.ok(proof.rounds.every((r) => r.length === 5));
      const vt = DuplexChallenger.withDomain("sumcheck-test");
      const res = verifySumcheck(claimOf(tables), proof.rounds, proof.point.length, vt);
      assert.ok(res.ok, JSON.stringify(res));
      assert.deepEqual(res.point, proof.point);
      const expected = tables.reduce<Ext>((p, t) => extMul(p, mleEvalByDefinition(t, res.point)), EXT_ONE);
      assert.deepEqual(res.value, expected);
      assert.deepEqual(vt.sampleExt(), pt.sampleExt(), "prover and verifier transcripts end in the same state");
    }),
  );
});

test("oracles may answer with coefficients", () => {
  fc.assert(
    fc.property(fc.array(arbExt, { minLength: 8, maxLength: 8 }), (t) => {
      const a = proveSumcheck(new ProductOracle([t], true), DuplexChallenger.withDomain("c"));
      const b = proveSumcheck(new ProductOracle([t], false), DuplexChallenger.withDomain("c"));
      assert.deepEqual(a, b);
    }),
  );
});

test("a wrong claim or any changed coefficient is rejected at the right round", () => {
  fc.assert(
    fc.property(
      arbInstance.filter((t) => t[0]!.length >= 2),
      fc.nat(),
      fc.nat(4),
      fc.nat(3),
      fe.filter((d) => d !== 0),
      (tables, rIdx, k, c, delta) => {
        const proof = proveSumcheck(new ProductOracle(tables), DuplexChallenger.withDomain("t"));
        const claim = claimOf(tables);
        const badClaim = extAdd(claim, embed(1));
        const r1 = verifySumcheck(badClaim, proof.rounds, proof.rounds.length, DuplexChallenger.withDomain("t"));
        assert.equal(r1.ok, false);
        assert.equal(!r1.ok && r1.code, "ROUND_SUM_MISMATCH");
        const j = rIdx % proof.rounds.length;
        const rounds = proof.rounds.map((r) => r.map((a) => [...a] as Ext));
        const a = rounds[j]![k]!;
        const changed = [...a] as [number, number, number, number];
        changed[c] = (changed[c]! + delta) % P;
        rounds[j]![k] = changed;
        const r2 = verifySumcheck(claim, rounds, rounds.length, DuplexChallenger.withDomain("t"));
        assert.equal(r2.ok, false);
        assert.equal(!r2.ok && r2.code, "ROUND_SUM_MISMATCH");
        assert.equal(!r2.ok && r2.round, j);
      },
    ),
  );
});

test("degree above 4 is a typed error in the prover and a typed rejection in the verifier", () => {
  const tables = new Array(5).fill(0).map(() => [EXT_ONE, EXT_ONE]);
  assert.throws(
    () => proveSumcheck(new ProductOracle(tables), DuplexChallenger.withDomain("d")),
    (e) => e instanceof SumcheckError && e.code === "DEGREE_TOO_HIGH",
  );
  const lying: SumcheckOracle = {
    numVariables: 1,
    degree: 4,
    roundPolynomial: () => ({ kind: "evaluations", values: new Array(6).fill(EXT_ZERO) }),
    bind() {},
  };
  assert.throws(
    () => proveSumcheck(lying, DuplexChallenger.withDomain("d")),
    (e) => e instanceof SumcheckError && e.code === "DEGREE_TOO_HIGH",
  );
  const res = verifySumcheck(EXT_ZERO, [new Array(6).fill(EXT_ZERO)], 1, DuplexChallenger.withDomain("d"));
  assert.equal(!res.ok && res.code, "DEGREE_TOO_HIGH");
});

test("fewer than 5 coefficients are accepted and only those present are observed", () => {
  // g(T) = 3 + 4T: g(0) + g(1) = 10.
  const rounds = [[embed(3), embed(4)]];
  const vt = DuplexChallenger.withDomain("f");
  const res = verifySumcheck(embed(10), rounds, 1, vt);
  assert.ok(res.ok);
  const ref = DuplexChallenger.withDomain("f");
  ref.observeExt(embed(3));
  ref.observeExt(embed(4));
  const r = ref.sampleExt();
  assert.deepEqual(res.point, [r]);
  assert.deepEqual(res.value, extAdd(embed(3), extMul(embed(4), r)));
  const empty = verifySumcheck(EXT_ZERO, [[]], 1, DuplexChallenger.withDomain("f"));
  assert.ok(empty.ok);
  assert.deepEqual(empty.value, EXT_ZERO);
});

test("malformed round lists are typed rejections", () => {
  const t = () => DuplexChallenger.withDomain("m");
  const code = (r: ReturnType<typeof verifySumcheck>) => (r.ok ? "ok" : r.code);
  assert.equal(code(verifySumcheck(EXT_ZERO, null, 0, t())), "MALFORMED_ROUND");
  assert.equal(code(verifySumcheck(EXT_ZERO, [], 1, t())), "ROUND_COUNT");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[EXT_ZERO]], 0, t())), "ROUND_COUNT");
  assert.equal(code(verifySumcheck(EXT_ZERO, ["x"], 1, t())), "MALFORMED_ROUND");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[[0, 0, 0]]], 1, t())), "NON_CANONICAL");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[[0, 0, 0, P]]], 1, t())), "NON_CANONICAL");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[[0, 0, 0, -1]]], 1, t())), "NON_CANONICAL");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[[0, 0, 0.5, 0]]], 1, t())), "NON_CANONICAL");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[null]], 1, t())), "NON_CANONICAL");
  assert.equal(code(verifySumcheck(EXT_ZERO, [[["0", 0, 0, 0]]], 1, t())), "NON_CANONICAL");
});
