import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import type { Ext } from "../../src/field/extension.js";

function run(make: () => DuplexChallenger, prefix: number, xs: Uint32Array, bulk: boolean): number[] {
  const t = make();
  for (let i = 0; i < prefix; i++) t.observe(i + 1);
  if (bulk) t.observeAllUnchecked(xs);
  else for (const x of xs) t.observeUnchecked(x);
  const out: number[] = [];
  for (let i = 0; i < 10; i++) out.push(t.sample());
  t.observe(7);
  out.push(t.sample());
  return out;
}

test("observeAllUnchecked equals one observeUnchecked per element: every prefix alignment, run lengths 0..70 and 5,000, random and edge values, WASM and TypeScript permutations", () => {
  for (const make of [
    () => DuplexChallenger.withDomain("t"),
    () => DuplexChallenger.withDomain("t", permuteInPlace),
    () => new DuplexChallenger(),
  ]) {
    for (let prefix = 0; prefix < 9; prefix++) {
      for (const n of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 70, 5000]) {
        for (const edge of [false, true]) {
          const xs = new Uint32Array(n);
          for (let i = 0; i < n; i++) xs[i] = edge ? [0, P - 1][i % 2]! : (Math.imul(i + prefix, 0x9e3779b1) >>> 0) % P;
          assert.deepEqual(
            run(make, prefix, xs, true),
            run(make, prefix, xs, false),
            `prefix ${prefix} n ${n} edge ${edge}`,
          );
        }
      }
    }
  }
});

test("observeAllUnchecked after a sample (output buffer partly used) keeps the duplex semantics", () => {
  const a = DuplexChallenger.withDomain("s"),
    b = DuplexChallenger.withDomain("s");
  a.sample();
  b.sample();
  const xs = Uint32Array.from({ length: 40 }, (_, i) => i * 3);
  a.observeAllUnchecked(xs);
  for (const x of xs) b.observeUnchecked(x);
  assert.equal(a.sample(), b.sample());
  assert.deepEqual(a.sampleExt(), b.sampleExt());
});

test("observeExtsUnchecked equals one observeExt per element: every prefix alignment, 0..20 and 300 elements (the run buffer grows), both permutations", () => {
  for (const make of [() => DuplexChallenger.withDomain("e"), () => DuplexChallenger.withDomain("e", permuteInPlace)]) {
    for (let prefix = 0; prefix < 9; prefix++) {
      for (const n of [0, 1, 2, 3, 5, 16, 17, 20, 300]) {
        const values = Array.from(
          { length: n },
          (_, i) => [0, 1, 2, 3].map((c) => (Math.imul(4 * i + c + prefix, 0x9e3779b1) >>> 0) % P) as unknown as Ext,
        );
        const outputs = (bulk: boolean): number[] => {
          const t = make();
          for (let i = 0; i < prefix; i++) t.observe(i + 1);
          if (bulk) t.observeExtsUnchecked(values);
          else for (const v of values) t.observeExt(v);
          return [t.sample(), t.sample(), t.sample()];
        };
        assert.deepEqual(outputs(true), outputs(false), `prefix ${prefix} n ${n}`);
      }
    }
  }
});
