/**
 * `gkr_round` with ROUND_NOA (src/kernels/assembly/gkr-round.ts: A zero and never touched) against
 * the same rounds over an explicit zero A table, and the data-parallel dense tables of layers
 * without Mul gates (dp-wasm.ts, which use it) against the TypeScript backend, at several sizes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import {
  OUT_RESULT,
  OUT_WORDS,
  ROUND_CLAIM,
  ROUND_FOLD,
  ROUND_NOA,
  ROUND_POW,
  ROUND_RAW,
  ROUND_VBASE,
  gkrKernels,
} from "../../src/gkr/wasm/kernels.js";
import { hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import { tsCopiesBackend } from "../../src/gkr/structured/dp-ts-backend.js";
import { Rng } from "./random-structured.js";

const kernels = gkrKernels();
const skip = kernels === null || !hasCopiesKernels(kernels) ? "kernel module without the data-parallel kernels" : false;

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

/** Pw planes of length len with the pairs of some 4-element blocks all zero (the kernel skips those). */
function sparsePw(rng: Rng, len: number): Uint32Array {
  const t = rng.words(4 * len);
  const h = len / 2;
  for (let i = 0; i < h; i++) {
    if ((i >> 2) % 3 !== 1) continue;
    for (let c = 0; c < 4; c++) {
      t[c * len + i] = 0;
      t[c * len + i + h] = 0;
    }
  }
  return t;
}

/**
 * Runs every round of the table sumcheck over (A, Pw, V) of length len with `flags` (ROUND_POW
 * always; VBASE at first when vbase) and returns the result words of each call. A is either a
 * zero table or, with ROUND_NOA, a region of junk that must stay as it is.
 */
function runRounds(
  len: number,
  pw: Uint32Array,
  v: Uint32Array,
  vbase: boolean,
  extra: number,
  noa: boolean,
  rs: readonly Ext[],
): Uint32Array[] {
  const k = kernels!;
  const vWords = vbase ? len : 4 * len;
  const total = OUT_WORDS + 4 * len + 4 * len + (2 * len + 4 + 4 * len) + len + 64;
  const reg = k.acquire(total);
  try {
    const b = reg.ptr >>> 2;
    const out = b,
      A = out + OUT_WORDS,
      Pw = A + 4 * len,
      Vx = Pw + 4 * len,
      Vb = Vx + 2 * len + 4 + 4 * len;
    let w = k.words();
    w.fill(0, out, out + OUT_WORDS);
    if (noa) w.fill(0xdeadbeef, A, A + 4 * len);
    else w.fill(0, A, A + 4 * len);
    w.set(pw, Pw);
    w.set(v, vbase ? Vb : Vx);
    k.raw.to_mont(4 * Pw, 4 * Pw, 4 * len);
    k.raw.to_mont(4 * (vbase ? Vb : Vx), 4 * (vbase ? Vb : Vx), vWords);
    const results: Uint32Array[] = [];
    let n = len,
      base = vbase;
    const call = (r: Ext | null): void => {
      const f = ROUND_POW | extra | (base ? ROUND_VBASE : 0) | (noa ? ROUND_NOA : 0) | (r ? ROUND_FOLD : 0);
      k.raw.gkr_round(4 * A, 4 * Pw, 4 * Vx, 4 * Vb, n, r?.[0] ?? 0, r?.[1] ?? 0, r?.[2] ?? 0, r?.[3] ?? 0, f, 4 * out);
      w = k.words();
      results.push(w.slice(out + OUT_RESULT, out + OUT_WORDS));
    };
    call(null);
    for (const r of rs) {
      if (n === 1) break;
      call(r);
      n /= 2;
      base = false;
    }
    if (noa)
      assert.ok(
        k
          .words()
          .subarray(A, A + 4 * len)
          .every((x) => x === 0xdeadbeef),
        "A is never written",
      );
    return results;
  } finally {
    k.giveBack(reg);
  }
}

test("gkr_round with ROUND_NOA gives the words of the same rounds over a zero A table (every size 2..2^10, V base or extension, raw or coefficients, with and without the claim)", {
  skip,
}, () => {
  const rng = new Rng(0x39);
  for (let bits = 1; bits <= 10; bits++) {
    const len = 2 ** bits;
    for (const vbase of [true, false]) {
      for (const extra of [ROUND_RAW, 0, ROUND_CLAIM]) {
        const pw = sparsePw(rng, len);
        const v = rng.words(vbase ? len : 4 * len);
        const rs: Ext[] = Array.from({ length: bits }, () => [...rng.words(4)] as unknown as Ext);
        const want = runRounds(len, pw, v, vbase, extra, false, rs);
        const got = runRounds(len, pw, v, vbase, extra, true, rs);
        assert.equal(got.length, bits + 1);
        got.forEach((g, j) => assert.deepEqual(g, want[j], `len ${len} vbase ${vbase} flags ${extra} call ${j}`));
      }
    }
  }
});

test("the dense tables of a layer without Mul gates (ROUND_NOA, no A table) give the TypeScript backend's round values (several sizes and claims)", {
  skip,
}, () => {
  const wasm = wasmCopiesBackend(kernels!);
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 7 }),
      fc.integer({ min: 1, max: 70 }),
      fc.integer({ min: 1, max: 3 }),
      fc.gen(),
      (k, s, m0, nq, gen) => {
        const K = 2 ** k,
          n = 2 ** s;
        const m = Math.min(m0, n);
        const below = Uint32Array.from({ length: K * n }, () => gen(() => fe));
        const lanes = Int32Array.from({ length: m }, (_, j) => (j * 7) % n).sort();
        const uniq = Int32Array.from(new Set(lanes));
        const e = Array.from({ length: nq }, () => Array.from({ length: K }, () => gen(() => arbExt)));
        // Some lanes with a zero Pw (all-zero blocks of the dense table).
        const pw = Array.from({ length: nq }, () =>
          Uint32Array.from({ length: 4 * uniq.length }, (_, i) => ((i % uniq.length) % 5 === 3 ? 0 : gen(() => fe))),
        );
        const a = tsCopiesBackend.load(below, K, n).dense(uniq, null, e, pw);
        const loaded = wasm.load(below, K, n);
        const b = loaded.dense(uniq, null, e, pw);
        try {
          const rs = gen(() => fc.array(arbExt, { minLength: k, maxLength: k }));
          for (const r of rs) {
            assert.deepEqual(b.evaluations(4), a.evaluations(4));
            a.bind(r);
            b.bind(r);
          }
          assert.deepEqual(b.readA(uniq.length), a.readA(uniq.length));
        } finally {
          b.dispose();
          loaded.dispose();
        }
      },
    ),
    { numRuns: 80 },
  );
});
