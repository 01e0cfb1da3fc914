import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { KeccakBatch, keccak256 } from "../../src/kernels/keccak-batch.js";

const k = new KeccakBatch();
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test('Keccak-256 known answers: empty input and "abc" (original padding, not SHA3-256)', () => {
  const bytes = Buffer.from("abc");
  const out = k.hashRanges(bytes, Uint32Array.of(0, 0, 0, 3), 2);
  assert.equal(hex(out.subarray(0, 32)), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  assert.equal(hex(out.subarray(32, 64)), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
});

test("batched Keccak-256 equals @noble/hashes keccak_256 at every length 0..420 (rate-block edges included)", () => {
  const total = (420 * 421) / 2;
  const bytes = new Uint8Array(total);
  for (let i = 0; i < total; i++) bytes[i] = (i * 131 + 7) & 0xff;
  const offsets = new Uint32Array(422);
  for (let len = 0; len <= 420; len++) offsets[len + 1] = offsets[len]! + len;
  const out = k.hashPacked(bytes, offsets, 421);
  for (let len = 0; len <= 420; len++) {
    const ref = keccak_256(bytes.subarray(offsets[len]!, offsets[len + 1]!));
    assert.equal(hex(out.subarray(32 * len, 32 * len + 32)), hex(ref), `length ${len}`);
  }
});

test("batched Keccak-256 over arbitrary ranges equals the reference (property)", () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 }), (parts) => {
      const bytes = Buffer.concat(parts.map((p) => Buffer.from(p)));
      const ranges = new Uint32Array(2 * parts.length);
      let at = 0;
      parts.forEach((p, i) => {
        ranges[2 * i] = at;
        ranges[2 * i + 1] = at + p.length;
        at += p.length;
      });
      // reversed order: ranges need not be consecutive
      const rev = new Uint32Array(2 * parts.length);
      for (let i = 0; i < parts.length; i++)
        rev.set(ranges.subarray(2 * (parts.length - 1 - i), 2 * (parts.length - i)), 2 * i);
      const out = k.hashRanges(bytes, rev, parts.length);
      parts.forEach((p, i) =>
        assert.equal(hex(out.subarray(32 * (parts.length - 1 - i), 32 * (parts.length - i))), hex(keccak_256(p))),
      );
    }),
    { numRuns: 60 },
  );
});

test("keccak256 (one input on the thread's module) equals keccak_256 of @noble/hashes for every length 0..300", () => {
  let x = 99;
  for (let n = 0; n <= 300; n++) {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    assert.deepEqual(keccak256(b), keccak_256(b), `length ${n}`);
  }
  // a view into a larger buffer hashes only its bytes; the result is the caller's own copy
  const wide = new Uint8Array(64).fill(7);
  const d = keccak256(wide.subarray(3, 40));
  assert.deepEqual(d, keccak_256(wide.subarray(3, 40)));
  d.fill(0);
  assert.deepEqual(keccak256(wide.subarray(3, 40)), keccak_256(wide.subarray(3, 40)));
});
