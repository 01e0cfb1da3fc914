/**
 * The hiding commitment's default source of randomness (docs/pcs.md §12.3, src/pcs/random.ts):
 * canonical values of every length (across getRandomValues' 16,384-word limit), the rejection of
 * draws ≥ p (forced through a stubbed generator), and a coarse check of uniformity.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { cryptoRandomSource } from "../../src/pcs/random.js";

test("cryptoRandomSource fills arrays of any length with canonical values, about uniform on [0, p)", () => {
  for (const n of [0, 1, 7, 16383, 16384, 16385, 100_000]) {
    const out = new Uint32Array(n).fill(P + 5);
    cryptoRandomSource(out);
    assert.ok(
      out.every((x) => x < P),
      `n ${n}: canonical`,
    );
    if (n >= 16384) {
      const mean = out.reduce((s, x) => s + x, 0) / n;
      assert.ok(Math.abs(mean - (P - 1) / 2) < 6 * Math.sqrt(P ** 2 / 12 / n), `n ${n}: mean ${mean}`);
      const high = out.filter((x) => x >= P / 2).length;
      assert.ok(Math.abs(high - n / 2) < 6 * Math.sqrt(n / 4), `n ${n}: ${high} values in the upper half`);
      assert.ok(new Set(out).size > 0.99 * n, `n ${n}: distinct values`);
    }
  }
});

test("cryptoRandomSource rejects draws ≥ p and replaces them with later draws", () => {
  const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
  const calls: number[] = [];
  // Every other word of the first fill is 2^32 − 1 (drawn as 2^31 − 1 ≥ p); the spare buffer's
  // first fill is all rejected too, its second real.
  const fake = <T extends ArrayBufferView | null>(array: T): T => {
    const a = array as unknown as Uint32Array;
    calls.push(a.length);
    if (calls.length === 1) {
      real(a);
      for (let i = 0; i < a.length; i += 2) a[i] = 0xffffffff;
    } else if (calls.length === 2) a.fill(0xffffffff);
    else real(a);
    return array;
  };
  Object.defineProperty(globalThis.crypto, "getRandomValues", { value: fake, configurable: true, writable: true });
  try {
    const out = new Uint32Array(40);
    cryptoRandomSource(out);
    assert.ok(out.every((x) => x < P));
    assert.ok(!out.includes(0x7fffffff));
    assert.deepEqual(
      calls.slice(0, 2),
      [40, 64],
      "the array in place, then the spare buffer, refilled while all its draws are rejected",
    );
    assert.ok(calls.length >= 3);
  } finally {
    Object.defineProperty(globalThis.crypto, "getRandomValues", { value: real, configurable: true, writable: true });
  }
});
