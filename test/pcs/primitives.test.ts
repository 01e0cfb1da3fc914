import { test } from "node:test";
import assert from "node:assert/strict";
import { P, mul, pow, random } from "../../src/field/koalabear.js";
import { extRandom, type Ext } from "../../src/field/extension.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";
import { rootOfUnity } from "../../src/pcs/domain.js";
import { evaluateNaive, nttReference as nttInPlace } from "../../src/pcs/ntt.js";
import {
  codewordOfRows,
  codewordReference,
  encodeRowsReference as encodeRows,
  gatherRows,
  rowsOfCodeword,
} from "../../src/pcs/encode.js";
import { RowFolder, foldRow } from "../../src/pcs/fold.js";
import {
  addScaledEqTable,
  addScaledEqTableBase,
  powerPointBase,
  coefficientsToEvaluations,
  eqEval,
  eqEvalBase,
  evaluateCoefficients,
  evaluateUnivariate,
  evaluateUnivariateAtBase,
  evaluationsToCoefficients,
  extAt,
  foldCoefficients,
  foldEvaluations,
  liftToExtension,
  powerPoint,
} from "../../src/pcs/multilinear.js";
import {
  buildMerkleTree,
  buildMerkleTreeReference,
  distinctSorted,
  hashRow,
  hashRows,
  multiproofSize,
  openMultiproof,
  verifyMultiproof,
} from "../../src/pcs/merkle.js";
import { roundPolynomial, roundValueAt } from "../../src/pcs/sumcheck.js";
import { mleByDefinition, randomEvaluations, randomPoint, rng } from "./support.js";

test("ω_j has order exactly 2^j for every j ≤ 24, and ω_j² = ω_(j−1)", () => {
  for (let j = 0; j <= 24; j++) {
    const w = rootOfUnity(j);
    assert.equal(pow(w, 2 ** j), 1, `ω_${j}^(2^${j})`);
    if (j > 0) {
      assert.notEqual(pow(w, 2 ** (j - 1)), 1, `ω_${j} has a smaller order`);
      assert.equal(mul(w, w), rootOfUnity(j - 1));
    }
  }
  assert.throws(() => rootOfUnity(25), { code: "PCS_TOO_LARGE" });
});

test("NTT equals the O(n²) definition on random and edge inputs, base and extension lanes", () => {
  for (const width of [1, 4]) {
    for (let logN = 0; logN <= 7; logN++) {
      const n = 1 << logN;
      const inputs = [
        new Uint32Array(n * width).map(() => random()),
        new Uint32Array(n * width).fill(P - 1),
        new Uint32Array(n * width),
        Uint32Array.from({ length: n * width }, (_, i) => (i === 0 ? 1 : 0)),
      ];
      for (const input of inputs) {
        const got = input.slice();
        nttInPlace(got, width, logN);
        assert.deepEqual(got, evaluateNaive(input, width, logN), `width ${width}, 2^${logN}`);
      }
    }
  }
});

test("evaluations ↔ coefficients round-trip, and the coefficient MLE equals Σ eq(z, b) f(b)", () => {
  for (let m = 0; m <= 6; m++) {
    const evals = randomEvaluations(m, 10 + m);
    const c = evals.slice();
    evaluationsToCoefficients(c, 1);
    const back = c.slice();
    coefficientsToEvaluations(back, 1);
    assert.deepEqual(back, evals);
    const point = randomPoint(m, 20 + m);
    assert.deepEqual(evaluateCoefficients(liftToExtension(c), point), mleByDefinition(evals, point));
  }
});

test("eq tables: addScaledEqTable adds c·eq(z, b) for every b; eqEval agrees", () => {
  for (let n = 0; n <= 5; n++) {
    const point = randomPoint(n, 30 + n);
    const c = extRandom();
    const acc = new Uint32Array(4 << n);
    addScaledEqTable(acc, point, c);
    for (let b = 0; b < 1 << n; b++) {
      const bits: Ext[] = Array.from({ length: n }, (_, j) => [(b >> j) & 1, 0, 0, 0] as Ext);
      const e = eqEval(point, bits);
      assert.deepEqual(extAt(acc, b), mulExt(c, e), `n=${n}, b=${b}`);
    }
  }
});

/** a·b through the coefficient MLE of the one-variable polynomial a·X at X = b. */
test("addScaledEqTableBase equals addScaledEqTable on the embedded base point", () => {
  for (let n = 0; n <= 7; n++) {
    const x = random();
    const c = extRandom();
    const a = new Uint32Array(4 << n).map(() => random());
    const b = a.slice();
    addScaledEqTableBase(a, powerPointBase(x, n), c);
    addScaledEqTable(b, powerPoint([x, 0, 0, 0], n), c);
    assert.deepEqual(a, b, `n = ${n}`);
  }
});

function mulExt(a: Ext, b: Ext): Ext {
  return evaluateCoefficients(Uint32Array.from([0, 0, 0, 0, ...a]), [b]);
}

test("F(z) = f̂(z, z², z⁴, …): the univariate polynomial of the coefficients is the MLE at the power point", () => {
  for (let m = 1; m <= 6; m++) {
    const c = liftToExtension(randomEvaluations(m, 40 + m));
    const z = extRandom();
    assert.deepEqual(evaluateUnivariate(c, z), evaluateCoefficients(c, powerPoint(z, m)));
    const x = random();
    assert.deepEqual(evaluateUnivariateAtBase(c, x), evaluateUnivariate(c, [x, 0, 0, 0]));
  }
});

test("folding evaluations and coefficients by α fixes variable 0 of the same polynomial", () => {
  for (let m = 1; m <= 6; m++) {
    const evals = liftToExtension(randomEvaluations(m, 50 + m));
    const c = evals.slice();
    evaluationsToCoefficients(c, 4);
    const alpha = extRandom();
    const fe = foldEvaluations(evals, alpha);
    const fc = foldCoefficients(c, alpha);
    const back = fc.slice();
    coefficientsToEvaluations(back, 4);
    assert.deepEqual(back, fe);
    const rest = randomPoint(m - 1, 60 + m);
    assert.deepEqual(evaluateCoefficients(fc, rest), evaluateCoefficients(c, [alpha, ...rest]));
  }
});

test("foldRow of an encoded row equals the folded polynomial at x^(2^k), base and extension rows", () => {
  for (const [m, logInvRate, k] of [
    [1, 1, 1],
    [3, 1, 2],
    [5, 2, 5],
    [6, 1, 3],
    [7, 2, 4],
  ] as const) {
    for (const width of [1, 4]) {
      const coeffs = randomEvaluations(m, 70 + m + width, width);
      const logDomain = m + logInvRate;
      const rows = encodeRows(coeffs, width, logDomain, k);
      const alphas = randomPoint(k, 80 + m);
      let folded = width === 1 ? liftToExtension(coeffs) : coeffs.slice();
      for (const a of alphas) folded = foldCoefficients(folded, a);
      const omega = rootOfUnity(logDomain);
      const folder = new RowFolder(k, rootOfUnity(k), alphas);
      const rowWords = (1 << k) * width;
      for (let j = 0; j < 1 << (logDomain - k); j++) {
        const row = rows.subarray(j * rowWords, (j + 1) * rowWords);
        const x = pow(omega, j);
        const got = foldRow(width === 1 ? liftToExtension(row) : row.slice(), x, rootOfUnity(k), alphas);
        assert.deepEqual(
          got,
          evaluateUnivariateAtBase(folded, pow(x, 2 ** k)),
          `m=${m} k=${k} width=${width} row ${j}`,
        );
        assert.deepEqual(folder.fold(row, width as 1 | 4, x), got, `RowFolder, m=${m} k=${k} width=${width} row ${j}`);
      }
    }
  }
});

test("RowFolder equals foldRow on arbitrary rows (not codewords), k = 0 … 6, base and extension values", () => {
  const next = rng(97);
  for (let k = 0; k <= 6; k++) {
    const alphas = Array.from(
      { length: k },
      (_, s): Ext => (s === 1 ? [0, 0, 0, 0] : [next(), next(), next(), next()]),
    );
    const zeta = rootOfUnity(k);
    const folder = new RowFolder(k, zeta, alphas);
    for (const x of [1, P - 1, 2, next() || 1, rootOfUnity(20)]) {
      for (const width of [1, 4] as const) {
        const row = Uint32Array.from({ length: width << k }, (_, i) =>
          i % 5 === 0 ? P - 1 : i % 7 === 0 ? 0 : next(),
        );
        const lifted = width === 1 ? liftToExtension(row) : row;
        assert.deepEqual(folder.fold(row, width, x), foldRow(lifted, x, zeta, alphas), `k=${k} width=${width} x=${x}`);
      }
    }
  }
});

test("eqEvalBase(a, b) equals eqEval of the lifted point", () => {
  const next = rng(98);
  for (const n of [0, 1, 2, 7, 17]) {
    const a = Array.from({ length: n }, (_, j) => (j % 3 === 0 ? 0 : j % 3 === 1 ? 1 : next()));
    const b = Array.from({ length: n }, (): Ext => [next(), next(), next(), next()]);
    assert.deepEqual(
      eqEvalBase(a, b),
      eqEval(
        a.map((x): Ext => [x, 0, 0, 0]),
        b,
      ),
      `n=${n}`,
    );
  }
});

test("encodeRows: row j, column t is F(ω^(j + t·rows))", () => {
  const m = 4,
    logDomain = 6,
    k = 2;
  const coeffs = randomEvaluations(m, 91);
  const rows = encodeRows(coeffs, 1, logDomain, k);
  const omega = rootOfUnity(logDomain);
  const c4 = liftToExtension(coeffs);
  const nRows = 1 << (logDomain - k);
  for (let j = 0; j < nRows; j++)
    for (let t = 0; t < 1 << k; t++) {
      assert.equal(rows[j * (1 << k) + t], evaluateUnivariateAtBase(c4, pow(omega, j + t * nRows))[0]);
    }
});

test("a codeword's rows: gathered rows are the encoding's rows, and rows back to the codeword is the identity", () => {
  for (const [width, m, logDomain, k] of [
    [1, 4, 6, 2],
    [4, 5, 7, 3],
    [1, 3, 3, 3],
    [4, 2, 4, 1],
  ] as const) {
    const coeffs = new Uint32Array((1 << m) * width).map(rng(m * 7 + width));
    const codeword = codewordReference(coeffs, width, logDomain);
    const rows = encodeRows(coeffs, width, logDomain, k);
    assert.deepEqual(rowsOfCodeword(codeword, width, logDomain, k), rows);
    assert.deepEqual(codewordOfRows(rows, width, logDomain, k), codeword);
    const rowWords = (1 << k) * width;
    const indices = [0, (1 << (logDomain - k)) - 1, 1 % (1 << (logDomain - k))];
    const opened = gatherRows(codeword, width, logDomain, k, indices);
    indices.forEach((j, r) =>
      assert.deepEqual(
        opened.subarray(r * rowWords, (r + 1) * rowWords),
        rows.subarray(j * rowWords, (j + 1) * rowWords),
        `row ${j}`,
      ),
    );
  }
});

test("the batched Merkle tree equals the node-by-node reference; multiproofs open and verify any subset", () => {
  for (const [logRows, rowWords] of [
    [0, 3],
    [1, 8],
    [4, 32],
    [6, 128],
    [9, 7],
  ] as const) {
    const rows = new Uint32Array((1 << logRows) * rowWords).map(rng(logRows + rowWords));
    const fast = buildMerkleTree(rows, rowWords, logRows);
    const ref = buildMerkleTreeReference(rows, rowWords, logRows);
    assert.deepEqual(fast.levels, ref.levels, `logRows ${logRows}, rowWords ${rowWords}`);
    const next = rng(logRows * 31 + 7);
    for (let trial = 0; trial < 12; trial++) {
      const count = 1 + (next() % Math.min(40, 1 << logRows));
      const idx = distinctSorted(Array.from({ length: count }, () => next() % (1 << logRows)));
      const sib = openMultiproof(fast, idx);
      assert.equal(sib.length, 8 * multiproofSize(logRows, idx));
      const leaves = new Uint32Array(8 * idx.length);
      idx.forEach((i, j) => leaves.set(hashRow(rows.subarray(i * rowWords, (i + 1) * rowWords)), 8 * j));
      assert.ok(verifyMultiproof(fast.root, logRows, idx, leaves, sib));
      if (sib.length > 0) {
        const bad = sib.slice();
        bad[next() % bad.length]! ^= 1;
        assert.equal(verifyMultiproof(fast.root, logRows, idx, leaves, bad), false, "a changed sibling");
        assert.equal(
          verifyMultiproof(fast.root, logRows, idx, leaves, sib.subarray(0, sib.length - 8)),
          false,
          "a missing sibling",
        );
      }
      const extra = new Uint32Array([...sib, ...fast.root]);
      assert.equal(verifyMultiproof(fast.root, logRows, idx, leaves, extra), false, "an unused sibling");
      const badLeaf = leaves.slice();
      badLeaf[0]! ^= 1;
      assert.equal(verifyMultiproof(fast.root, logRows, idx, badLeaf, sib), false, "a changed leaf");
    }
  }
});

test("hashRows (rows in lock step through permuteMany) gives each row's sponge, whatever the row length and count", () => {
  for (const [n, rowWords] of [
    [1, 1],
    [3, 7],
    [4, 8],
    [5, 12],
    [66, 32],
    [257, 160],
    [300, 128],
  ] as const) {
    const rows = new Uint32Array(n * rowWords).map(rng(n * 7 + rowWords));
    const leaves = hashRows(rows, rowWords, n);
    assert.equal(leaves.length, 8 * n);
    for (let j = 0; j < n; j++)
      assert.deepEqual(
        leaves.subarray(8 * j, 8 * j + 8),
        hashRow(rows.subarray(j * rowWords, (j + 1) * rowWords)),
        `row ${j} of ${n}, ${rowWords} words`,
      );
  }
  // only the first n rows are read
  const rows = new Uint32Array(4 * 16).map(rng(5));
  assert.deepEqual(hashRows(rows, 16, 2), hashRows(rows.slice(0, 32), 16, 2));
});

test("sumcheck round polynomial: h(0) + h(1) is the sum and h(α) is the sum after folding by α", () => {
  for (let n = 1; n <= 6; n++) {
    const f = liftToExtension(randomEvaluations(n, 110 + n));
    const w = liftToExtension(randomEvaluations(n, 120 + n));
    const dot = (a: Uint32Array, b: Uint32Array): Ext => {
      let acc: Ext = [0, 0, 0, 0];
      for (let i = 0; i < a.length / 4; i++) acc = addExt(acc, mulExt(extAt(a, i), extAt(b, i)));
      return acc;
    };
    const claim = dot(f, w);
    const [h0, h2] = roundPolynomial(f, w);
    const alpha = extRandom();
    assert.deepEqual(roundValueAt(claim, h0, h2, alpha), dot(foldEvaluations(f, alpha), foldEvaluations(w, alpha)));
    assert.deepEqual(roundValueAt(claim, h0, h2, [0, 0, 0, 0]), h0);
    assert.deepEqual(roundValueAt(claim, h0, h2, [2, 0, 0, 0]), h2);
  }
});

function addExt(a: Ext, b: Ext): Ext {
  return [(a[0] + b[0]) % P, (a[1] + b[1]) % P, (a[2] + b[2]) % P, (a[3] + b[3]) % P];
}

test("grinding: the batched search finds the reference's witness and leaves the same transcript", () => {
  for (const bits of [1, 4, 8, 10]) {
    for (const prefix of [0, 3, 7, 8, 11]) {
      const a = DuplexChallenger.withDomain("grind-test");
      for (let i = 0; i < prefix; i++) a.observe(i * 17);
      const b = a.clone();
      const c = new DuplexChallenger(permuteInPlace);
      for (const x of new TextEncoder().encode("grind-test")) c.observe(x);
      for (let i = 0; i < prefix; i++) c.observe(i * 17);
      const wa = a.grind(bits);
      const wb = b.grindReference(bits);
      const wc = c.grind(bits);
      assert.equal(wa, wb, `bits ${bits}, prefix ${prefix}`);
      assert.equal(wa, wc);
      assert.equal(a.sample(), b.sample());
      const v = DuplexChallenger.withDomain("grind-test");
      for (let i = 0; i < prefix; i++) v.observe(i * 17);
      assert.ok(v.clone().checkWitness(bits, wa));
      if (wa > 0) assert.equal(v.clone().checkWitness(bits, wa - 1), false, "the least witness");
    }
  }
});
