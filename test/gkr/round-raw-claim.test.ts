/**
 * `gkr_round` with ROUND_RAW | ROUND_CLAIM (src/kernels/assembly/gkr-round.ts): the caller writes
 * g_prev(r) at result word OUT_CLAIM and node 1 is not evaluated. Against plain ROUND_RAW rounds
 * over the same tables (the claim interpolated from the previous round's evaluations), word for
 * word, with and without Pow3, with and without an A table, V base or extension, every length
 * 2..2^9; and with a wrong claim, g(1) follows the claim and nothing else changes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { type Ext, extSub } from "../../src/field/extension.js";
import { evalRoundPoly, interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import {
  OUT_CLAIM,
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
import { Rng } from "./random-structured.js";

const kernels = gkrKernels();
const skip = kernels === null ? "kernel module unavailable" : false;

interface Shape {
  pow: boolean;
  noa: boolean;
  vbase: boolean;
}

/**
 * Every round over tables of length len: the first without a challenge, then one per r. With
 * `claim` every folding call gets ROUND_CLAIM and the claim `claimOf(previous evaluations, r)`.
 * Returns each call's evaluations g(0..m) as extension elements.
 */
function rounds(
  len: number,
  shape: Shape,
  tables: { a: Uint32Array; pw: Uint32Array; v: Uint32Array },
  rs: readonly Ext[],
  claimOf: ((previous: Ext[], r: Ext) => Ext) | null,
): Ext[][] {
  const k = kernels!;
  const reg = k.acquire(OUT_WORDS + 4 * len + 4 * len + (2 * len + 4 + 4 * len) + len + 64);
  try {
    const out = reg.ptr >>> 2,
      A = out + OUT_WORDS,
      Pw = A + 4 * len,
      Vx = Pw + 4 * len,
      Vb = Vx + 2 * len + 4 + 4 * len;
    let w = k.words();
    w.fill(0, out, out + OUT_WORDS);
    w.set(shape.noa ? new Uint32Array(4 * len) : tables.a, A);
    w.set(tables.pw, Pw);
    w.set(tables.v, shape.vbase ? Vb : Vx);
    k.raw.to_mont(4 * A, 4 * A, 4 * len);
    k.raw.to_mont(4 * Pw, 4 * Pw, 4 * len);
    k.raw.to_mont(4 * (shape.vbase ? Vb : Vx), 4 * (shape.vbase ? Vb : Vx), shape.vbase ? len : 4 * len);
    const nodes = shape.pow ? 5 : 3;
    const got: Ext[][] = [];
    let n = len,
      base = shape.vbase;
    const call = (r: Ext | null): void => {
      let f =
        ROUND_RAW |
        (shape.pow ? ROUND_POW : 0) |
        (shape.noa ? ROUND_NOA : 0) |
        (base ? ROUND_VBASE : 0) |
        (r ? ROUND_FOLD : 0);
      if (r && claimOf) {
        k.words().set(claimOf(got[got.length - 1]!, r), out + OUT_RESULT + OUT_CLAIM);
        f |= ROUND_CLAIM;
      }
      k.raw.gkr_round(4 * A, 4 * Pw, 4 * Vx, 4 * Vb, n, r?.[0] ?? 0, r?.[1] ?? 0, r?.[2] ?? 0, r?.[3] ?? 0, f, 4 * out);
      w = k.words();
      const at = out + OUT_RESULT;
      got.push(Array.from({ length: nodes }, (_, t) => [...w.subarray(at + 4 * t, at + 4 * t + 4)] as unknown as Ext));
    };
    call(null);
    for (const r of rs) {
      if (n <= 2) break;
      call(r);
      n /= 2;
      base = false;
    }
    return got;
  } finally {
    k.giveBack(reg);
  }
}

const SHAPES: Shape[] = [
  { pow: true, noa: false, vbase: true },
  { pow: true, noa: false, vbase: false },
  { pow: true, noa: true, vbase: true },
  { pow: true, noa: true, vbase: false },
  { pow: false, noa: false, vbase: true },
  { pow: false, noa: false, vbase: false },
];

const honest = (previous: Ext[], r: Ext): Ext => evalRoundPoly(interpolateRoundPoly(previous), r);

test("gkr_round with ROUND_RAW | ROUND_CLAIM and the honest claim gives ROUND_RAW's evaluations word for word (every shape, lengths 2..2^9)", {
  skip,
}, () => {
  const rng = new Rng(0x3c1a);
  let folded = 0;
  for (let bits = 1; bits <= 9; bits++) {
    const len = 2 ** bits;
    for (const shape of SHAPES) {
      const tables = { a: rng.words(4 * len), pw: rng.words(4 * len), v: rng.words(shape.vbase ? len : 4 * len) };
      const rs: Ext[] = Array.from({ length: bits }, () => [...rng.words(4)] as unknown as Ext);
      const want = rounds(len, shape, tables, rs, null);
      const got = rounds(len, shape, tables, rs, honest);
      assert.deepEqual(got, want, `len ${len} ${JSON.stringify(shape)}`);
      folded += got.length - 1;
    }
  }
  assert.ok(folded > 100, `${folded} folding rounds compared`);
});

test("gkr_round with ROUND_RAW | ROUND_CLAIM takes g(1) from the claim it is given (a wrong claim moves g(1) only)", {
  skip,
}, () => {
  const rng = new Rng(0x3c1b);
  const len = 64;
  for (const shape of SHAPES) {
    const tables = { a: rng.words(4 * len), pw: rng.words(4 * len), v: rng.words(shape.vbase ? len : 4 * len) };
    const rs: Ext[] = Array.from({ length: 6 }, () => [...rng.words(4)] as unknown as Ext);
    const want = rounds(len, shape, tables, rs, null);
    const off: Ext = [5, 0, 7, 1];
    const got = rounds(len, shape, tables, rs, (previous, r) => {
      const c = honest(previous, r);
      return [(c[0] + off[0]) % P, (c[1] + off[1]) % P, (c[2] + off[2]) % P, (c[3] + off[3]) % P];
    });
    assert.equal(got.length, want.length);
    for (let j = 1; j < got.length; j++) {
      // Each call's claim is built from the previous call's (shifted) evaluations, so g(1) keeps
      // drifting by the shifts: check the relation g(1) = claim − g(0) and the other nodes.
      const claim = honest(got[j - 1]!, rs[j - 1]!);
      const shifted: Ext = [
        (claim[0] + off[0]) % P,
        (claim[1] + off[1]) % P,
        (claim[2] + off[2]) % P,
        (claim[3] + off[3]) % P,
      ];
      assert.deepEqual(got[j]![1], extSub(shifted, got[j]![0]!), `g(1), call ${j} ${JSON.stringify(shape)}`);
      assert.notDeepEqual(got[j]![1], want[j]![1], `g(1) moved, call ${j}`);
      for (const t of [0, 2, 3, 4].filter((t) => t < got[j]!.length))
        assert.deepEqual(got[j]![t], want[j]![t], `g(${t}), call ${j} ${JSON.stringify(shape)}`);
    }
  }
});
