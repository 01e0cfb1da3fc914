import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KernelMemory, KernelError, PAGE_BYTES, REGION_ALIGN, Region, ScratchArena } from "../../src/kernels/index.js";

const isCode = (code: string) => (e: unknown) => e instanceof KernelError && e.code === code;

test("memory is a shared WebAssembly.Memory with the requested sizes", () => {
  const m = new KernelMemory({ initialPages: 2, maximumPages: 5 });
  assert.ok(m.memory.buffer instanceof SharedArrayBuffer);
  assert.equal(m.byteLength, 2 * PAGE_BYTES);
  assert.throws(() => new KernelMemory({ initialPages: 0 }), isCode("BAD_OPTIONS"));
  assert.throws(() => new KernelMemory({ maximumPages: 40000 }), isCode("BAD_OPTIONS"));
  assert.throws(() => new KernelMemory({ initialPages: 4, maximumPages: 3 }), isCode("BAD_OPTIONS"));
});

test("live regions are aligned, never overlap, never start at 0, and keep their contents", () => {
  const ops = fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant("alloc" as const), words: fc.integer({ min: 0, max: 5000 }) }),
      fc.record({ kind: fc.constant("free" as const), pick: fc.nat() }),
    ),
    { maxLength: 60 },
  );
  fc.assert(
    fc.property(ops, (list) => {
      const m = new KernelMemory({ initialPages: 1, maximumPages: 64 });
      const live: { region: Region; tag: number }[] = [];
      let tag = 1;
      for (const op of list) {
        if (op.kind === "alloc") {
          const region = m.alloc(op.words);
          region.view().fill(tag);
          live.push({ region, tag: tag++ });
        } else if (live.length > 0) {
          const [gone] = live.splice(op.pick % live.length, 1);
          m.release(gone!.region);
        }
        for (const { region, tag: t } of live) {
          assert.ok(region.ptr >= REGION_ALIGN && region.ptr % REGION_ALIGN === 0);
          assert.ok(
            region.view().every((w) => w === t),
            "contents survive other allocations and growth",
          );
        }
        const spans = live
          .map(({ region }) => [region.ptr, region.ptr + Math.max(4 * region.words, 1)] as const)
          .sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) assert.ok(spans[i - 1]![1] <= spans[i]![0], "regions overlap");
      }
    }),
    { numRuns: 50 },
  );
});

test("released blocks coalesce: after freeing everything the first block is reused", () => {
  const m = new KernelMemory({ initialPages: 1, maximumPages: 4 });
  const regions = [m.alloc(100), m.alloc(7), m.alloc(300), m.alloc(1)];
  const first = regions[0]!.ptr;
  for (const r of [regions[1]!, regions[3]!, regions[0]!, regions[2]!]) m.release(r);
  assert.equal(m.allocatedBytes, 0);
  const big = m.alloc(Math.floor((PAGE_BYTES - REGION_ALIGN) / 4));
  assert.equal(big.ptr, first, "the whole first page is one free block again");
});

test("allocation grows the memory and views are refreshed after growth", () => {
  const m = new KernelMemory({ initialPages: 1, maximumPages: 8 });
  const a = m.alloc(1000);
  const oldView = a.view();
  oldView.fill(7);
  const b = m.alloc((3 * PAGE_BYTES) / 4);
  assert.ok(m.byteLength > PAGE_BYTES);
  assert.ok(b.ptr + b.bytes <= m.byteLength);
  const newView = a.view();
  assert.notEqual(newView, oldView, "a new view is made over the grown buffer");
  assert.equal(newView.buffer, m.memory.buffer);
  assert.ok(newView.every((w) => w === 7));
  b.view().fill(9);
  assert.equal(b.view()[b.words - 1], 9);
});

test("growth beyond the maximum is OUT_OF_MEMORY; double release is BAD_REGION", () => {
  const m = new KernelMemory({ initialPages: 1, maximumPages: 2 });
  assert.throws(() => m.alloc(PAGE_BYTES), isCode("OUT_OF_MEMORY"));
  const r = m.alloc(10);
  m.release(r);
  assert.throws(() => m.release(r), isCode("BAD_REGION"));
  assert.throws(() => m.alloc(-1), isCode("BAD_LENGTH"));
  assert.throws(() => m.alloc(1.5), isCode("BAD_LENGTH"));
});

test("regions check their bounds; slices stay inside", () => {
  const m = new KernelMemory({ initialPages: 1, maximumPages: 1 });
  assert.throws(() => new Region(m.memory, 8, 1), isCode("BAD_REGION"));
  assert.throws(() => new Region(m.memory, PAGE_BYTES - 16, 8), isCode("BAD_REGION"));
  const r = m.alloc(32);
  const s = r.slice(8, 8);
  assert.equal(s.ptr, r.ptr + 32);
  s.view().fill(5);
  assert.deepEqual(Array.from(r.view().subarray(8, 16)), new Array(8).fill(5));
  assert.throws(() => r.slice(2, 4), isCode("BAD_REGION"));
  assert.throws(() => r.slice(28, 8), isCode("BAD_REGION"));
  assert.deepEqual(Region.attach(m.memory, r.describe()).view(), r.view());
});

test("scratch arena hands out disjoint aligned sub-regions and resets to a mark", () => {
  const m = new KernelMemory({ initialPages: 1 });
  const arena = new ScratchArena(m.alloc(64));
  const a = arena.alloc(5);
  const mark = arena.mark();
  const b = arena.alloc(10);
  assert.equal(a.ptr % 16, 0);
  assert.equal(b.ptr, a.ptr + 32, "5 words round up to 8");
  assert.throws(() => arena.alloc(100), isCode("OUT_OF_MEMORY"));
  arena.reset(mark);
  assert.equal(arena.alloc(1).ptr, b.ptr);
  arena.reset();
  assert.equal(arena.remaining, 64);
});

test("using copies its inputs, hands out scratch, reuses regions in place and releases all after, also on a throw", () => {
  const m = new KernelMemory({ initialPages: 1, maximumPages: 4 });
  const kept = m.allocFrom([9, 8, 7]);
  const table = new Uint32Array([1, 2, 3, 4]);
  const inPlace = (x: ArrayLike<number>) => (x === table ? kept : undefined);
  const before = m.allocatedBytes;
  const sum = m.using(
    [[5, 6], table],
    [3, 2],
    ([a, t], [s1, s2]) => {
      const words = new Uint32Array(m.memory.buffer);
      assert.deepEqual([words[a! / 4], words[a! / 4 + 1]], [5, 6], "the input is copied");
      assert.equal(t, kept.ptr, "a region named by inPlace is not copied");
      assert.equal(s1!.words, 3);
      assert.equal(s2!.words, 2);
      assert.notEqual(s1!.ptr, s2!.ptr);
      return words[a! / 4]! + words[t! / 4]!;
    },
    inPlace,
  );
  assert.equal(sum, 14);
  assert.equal(m.allocatedBytes, before, "copies and scratch are released");
  assert.throws(
    () =>
      m.using([[1]], [4], () => {
        throw new Error("boom");
      }),
    /boom/,
  );
  assert.equal(m.allocatedBytes, before, "released on a throw too");
  assert.deepEqual([...kept.view()], [9, 8, 7], "the in-place region is kept");
});
