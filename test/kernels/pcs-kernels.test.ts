import { test } from "node:test";
import assert from "node:assert/strict";
import { P, random } from "../../src/field/koalabear.js";
import { extPow, extRandom, type Ext } from "../../src/field/extension.js";
import { merkleTreeOfCodeword, typescriptPcsBackend } from "../../src/pcs/backend.js";
import { codewordReference, rowsOfCodeword } from "../../src/pcs/encode.js";
import { buildMerkleTreeReference } from "../../src/pcs/merkle.js";
import { foldRow } from "../../src/pcs/fold.js";
import { rootOfUnity } from "../../src/pcs/domain.js";
import { evaluateNaive } from "../../src/pcs/ntt.js";
import {
  extConstantTable,
  nttTwiddleTables,
  shoupCompanion,
  wasmPcsBackend,
  wasmTwiddleTables,
} from "../../src/kernels/pcs-kernels.js";

const wasm = wasmPcsBackend();
const ref = typescriptPcsBackend;

function inputs(words: number): Uint32Array[] {
  return [
    new Uint32Array(words).map(() => random()),
    new Uint32Array(words).fill(P - 1),
    new Uint32Array(words),
    Uint32Array.from({ length: words }, (_, i) => (i % 5 === 0 ? P - 1 : i % 7)),
  ];
}

test("Shoup companions are exact, and the twiddle tables hold ω_(2h)^k", () => {
  for (const b of [0, 1, 2, P - 1, P - 2, 1 << 30, 123456789, ...Array.from({ length: 200 }, () => random())]) {
    assert.equal(shoupCompanion(b), Number((BigInt(b) << 32n) / BigInt(P)), `b = ${b}`);
  }
  const { twiddles, companions } = nttTwiddleTables(4);
  assert.equal(twiddles[1], 1);
  assert.equal(twiddles[3], rootOfUnity(2));
  assert.equal(companions[3], shoupCompanion(rootOfUnity(2)));
});

test("the WASM NTT equals the reference and the definition (base and extension lanes, across the cache block, tables reused and grown)", () => {
  assert.ok(wasm, "the kernel module is available in the test processes");
  for (const width of [1, 4]) {
    for (const logN of [1, 2, 3, 4, 5, 8, 13, 14, 12, 6]) {
      for (const input of inputs((1 << logN) * width)) {
        const a = input.slice();
        const b = input.slice();
        wasm.ntt(a, width, logN);
        ref.ntt(b, width, logN);
        assert.deepEqual(a, b, `width ${width}, 2^${logN}`);
        if (logN <= 5) assert.deepEqual(a, evaluateNaive(input, width, logN));
      }
    }
  }
});

test("the WASM Möbius transform equals the reference (within a cache block, and its bits above one by columns)", () => {
  assert.ok(wasm);
  for (const width of [1, 4]) {
    for (const logN of [0, 1, 2, 3, 6, 11, 12, 13, 15]) {
      for (const input of inputs((1 << logN) * width)) {
        const a = input.slice();
        const b = input.slice();
        wasm.mobius(a, width);
        ref.mobius(b, width);
        assert.deepEqual(a, b, `width ${width}, 2^${logN}`);
      }
    }
  }
});

test("the WASM folds and sumcheck round equal the references on random and edge tables and challenges", () => {
  assert.ok(wasm);
  const challenges: Ext[] = [extRandom(), [0, 0, 0, 0], [1, 0, 0, 0], [P - 1, P - 1, P - 1, P - 1], [0, 0, 0, 1]];
  for (const n of [1, 2, 3, 64, 1000]) {
    for (const table of inputs(8 * n)) {
      for (const alpha of challenges) {
        assert.deepEqual(
          wasm.fold(table, alpha, "evaluations"),
          ref.fold(table, alpha, "evaluations"),
          `evaluations, n ${n}`,
        );
        assert.deepEqual(
          wasm.fold(table, alpha, "coefficients"),
          ref.fold(table, alpha, "coefficients"),
          `coefficients, n ${n}`,
        );
      }
      const w = new Uint32Array(8 * n).map(() => random());
      assert.deepEqual(wasm.round(table, w), ref.round(table, w), `round, n ${n}`);
      assert.deepEqual(wasm.round(w, table), ref.round(w, table));
      // A base-field table (the first round and fold of a base-field polynomial): the lifted table's results.
      const base = table.subarray(0, 2 * n);
      const lifted = ref.lift(base);
      assert.deepEqual(wasm.roundBase(base, w), ref.round(lifted, w), `base round, n ${n}`);
      assert.deepEqual(ref.roundBase(base, w), ref.round(lifted, w));
      for (const alpha of challenges) {
        for (const mode of ["evaluations", "coefficients"] as const) {
          const folded = wasm.foldBase(base, alpha, mode);
          assert.deepEqual(folded, ref.fold(lifted, alpha, mode), `base fold ${mode}, n ${n}`);
          assert.deepEqual(ref.foldBase(base, alpha, mode), ref.fold(lifted, alpha, mode));
          wasm.release(folded);
        }
        assert.deepEqual(wasm.hornerBase(base, alpha), ref.horner(lifted, alpha), `base Horner, n ${n}`);
        assert.deepEqual(ref.hornerBase(base, alpha), ref.horner(lifted, alpha));
      }
    }
  }
  assert.equal(extConstantTable([1, 0, 0, 0]).length, 16);
});

test("the WASM encoding, Horner evaluation and eq-table accumulation equal the references", async () => {
  assert.ok(wasm);
  const { encodeRowsReference } = await import("../../src/pcs/encode.js");
  for (const width of [1, 4]) {
    for (const [m, logDomain, k] of [
      [1, 2, 1],
      [4, 6, 4],
      [10, 12, 5],
      [7, 13, 5],
      [12, 14, 5],
    ] as const) {
      for (const coeffs of inputs((1 << m) * width)) {
        assert.deepEqual(
          wasm.encode(coeffs, width, logDomain, k),
          encodeRowsReference(coeffs, width, logDomain, k),
          `width ${width}, m ${m}, log|L| ${logDomain}, k ${k}`,
        );
      }
    }
  }
  for (const n of [1, 2, 5, 1024, 3000]) {
    for (const coeffs of inputs(4 * n)) {
      for (const z of [extRandom(), [0, 0, 0, 0] as Ext, [1, 0, 0, 0] as Ext, [P - 1, 0, 0, 1] as Ext]) {
        assert.deepEqual(wasm.horner(coeffs, z), ref.horner(coeffs, z), `n ${n}`);
      }
    }
  }
  // From 12 variables on the kernel is blocked (a low table of 10 variables times a high one).
  for (const nvars of [0, 1, 2, 5, 11, 12, 14]) {
    const point: Ext[] = Array.from({ length: nvars }, (_, j) =>
      j % 3 === 0 ? [0, 0, 0, 0] : j % 3 === 1 ? [1, 0, 0, 0] : extRandom(),
    );
    for (const c of [extRandom(), [P - 1, P - 1, P - 1, P - 1] as Ext]) {
      const a = new Uint32Array(4 << nvars).map(() => random());
      const b = a.slice();
      wasm.eqAdd(a, point, c);
      ref.eqAdd(b, point, c);
      assert.deepEqual(a, b, `nvars ${nvars}`);
    }
  }
  // Base-field points (the queries' weights): the kernel against the lifted point's reference.
  for (const nvars of [0, 1, 2, 3, 7, 12]) {
    const point = Array.from({ length: nvars }, (_, j) =>
      j % 4 === 0 ? 0 : j % 4 === 1 ? 1 : j % 4 === 2 ? P - 1 : random(),
    );
    for (const c of [extRandom(), [P - 1, P - 1, P - 1, P - 1] as Ext, [0, 0, 0, 0] as Ext]) {
      const a = new Uint32Array(4 << nvars).map(() => random());
      const b = a.slice();
      const lifted = a.slice();
      wasm.eqAddBase(a, point, c);
      ref.eqAddBase(b, point, c);
      ref.eqAdd(
        lifted,
        point.map((x): Ext => [x, 0, 0, 0]),
        c,
      );
      assert.deepEqual(a, b, `base point, nvars ${nvars}`);
      assert.deepEqual(b, lifted);
    }
  }
  // A batch of base points (one kernel call): the reference adds them one by one.
  for (const nvars of [0, 1, 5, 11]) {
    for (const count of [1, 2, 7]) {
      const points = Array.from({ length: count }, (_, q) =>
        Array.from({ length: nvars }, (_, j) => ((j + q) % 4 === 0 ? 0 : (j + q) % 4 === 1 ? 1 : random())),
      );
      const coeffs = points.map((_, q): Ext => (q === 1 ? [P - 1, P - 1, P - 1, P - 1] : extRandom()));
      const a = new Uint32Array(4 << nvars).map(() => random());
      const b = a.slice();
      const c = a.slice();
      wasm.eqAddBaseMany(a, points, coeffs);
      ref.eqAddBaseMany(b, points, coeffs);
      points.forEach((point, q) => ref.eqAddBase(c, point, coeffs[q]!));
      assert.deepEqual(a, b, `batch of ${count} base points, nvars ${nvars}`);
      assert.deepEqual(b, c);
    }
  }
});

test("F(z) of base-field coefficients by blocks of powers (pcs_eval_base) equals Horner's rule of the lifted coefficients", async () => {
  assert.ok(wasm);
  const { evalPowers } = await import("../../src/kernels/pcs-kernels.js");
  const { defaultKernels } = await import("../../src/kernels/kernels.js");
  const points: Ext[] = [extRandom(), [0, 0, 0, 0], [1, 0, 0, 0], [P - 1, P - 1, P - 1, P - 1], [0, 0, 0, 1]];
  // Through the backend: n a multiple of the kernel's block of 256 terms, and a length that is not (pcs_horner_base).
  for (const n of [1024, 1100, 3072, 8192]) {
    for (const coeffs of inputs(n)) {
      for (const z of points) {
        const want = ref.horner(ref.lift(coeffs), z);
        assert.deepEqual(wasm.hornerBase(coeffs, z), want, `n ${n}`);
        const resident = wasm.resident(coeffs);
        assert.deepEqual(wasm.hornerBase(resident, z), want, `n ${n}, a working table`);
        wasm.release(resident);
      }
    }
  }
  // The kernel itself on small blocks and on a range of blocks, as a pool's calls take them.
  const kernels = defaultKernels();
  const heap = kernels.heap;
  for (const block of [4, 8, 64]) {
    for (const blocks of [1, 2, 5]) {
      const n = block * blocks;
      const coeffs = new Uint32Array(n).map(() => random());
      const z = extRandom();
      const c = heap.allocFrom(coeffs);
      const powers = heap.allocFrom(evalPowers(z, block));
      const zbt = heap.allocFrom(extConstantTable(extPow(z, block)));
      const out = heap.alloc(4);
      try {
        kernels.instance.raw.pcs_eval_base(c.ptr, n, powers.ptr, block, zbt.ptr, out.ptr);
        assert.deepEqual([...out.view().subarray(0, 4)], ref.horner(ref.lift(coeffs), z), `block ${block} × ${blocks}`);
        // Blocks [1, blocks) alone (a pool's call on a range of blocks): the coefficients from block 1 on, at z.
        if (blocks > 1) {
          kernels.instance.raw.pcs_eval_base(c.ptr + 4 * block, n - block, powers.ptr, block, zbt.ptr, out.ptr);
          assert.deepEqual([...out.view().subarray(0, 4)], ref.horner(ref.lift(coeffs.subarray(block)), z));
        }
      } finally {
        for (const r of [c, powers, zbt, out]) heap.release(r);
      }
    }
  }
});

/** Runs `body` with a pool of one worker that cuts tables of 64 entries and more (so small tables are cut too), then closes it. */
async function withCuttingPool(
  body: (
    pool: import("../../src/pcs-workers/index.js").PcsPool,
    withPcsWorkers: typeof import("../../src/pcs/parallel.js").withPcsWorkers,
  ) => Promise<void>,
): Promise<void> {
  const { createPcsPool } = await import("../../src/pcs-workers/index.js");
  const { withPcsWorkers } = await import("../../src/pcs/parallel.js");
  const pool = createPcsPool({ threads: 1, minCallElements: 1 << 6 });
  try {
    await pool.ready();
    await body(pool, withPcsWorkers);
  } finally {
    await pool.close();
  }
}

test("a new eq table of one point (pcs_eq_write_many) equals the eq table added to zeros, with and without a pool's cut, level by level and blocked, and is released", async () => {
  const be = wasm;
  assert.ok(be);
  await withCuttingPool(async (pool, withPcsWorkers) => {
    // 12 and 13: blocked on one thread; 13 also cut by the pool into pieces of 12 (blocked) variables.
    for (const m of [0, 1, 5, 11, 12, 13]) {
      const point = Array.from({ length: m }, () => extRandom());
      for (const c of [extRandom(), [1, 0, 0, 0] as Ext, [0, 0, 0, 0] as Ext]) {
        const want = new Uint32Array(4 << m);
        ref.eqAdd(want, point, c);
        assert.deepEqual(ref.eqMany([point], [c]), want, `reference, m ${m}`);
        for (const workers of [null, pool]) {
          const before: number = be.residentTables;
          const table: Uint32Array = withPcsWorkers(workers, (): Uint32Array => be.eqMany([point], [c]));
          assert.deepEqual(table, want, `m ${m}, ${workers === null ? "one thread" : "pool"}`);
          // Added to afterwards, as the weights are.
          withPcsWorkers(workers, (): void => be.eqAdd(table, point, c));
          const twice = want.slice();
          ref.eqAdd(twice, point, c);
          assert.deepEqual(table, twice);
          be.release(table);
          assert.equal(be.residentTables, before);
        }
      }
    }
  });
});

test("the weights of several points in one pass (pcs_eq_write_many) equal the sum of their eq tables, level by level and blocked, with and without a pool's cut", async () => {
  const be = wasm;
  assert.ok(be);
  await withCuttingPool(async (pool, withPcsWorkers) => {
    for (const m of [0, 1, 5, 11, 12, 13, 14]) {
      for (const count of [1, 2, 4]) {
        const points = Array.from({ length: count }, (_, q) =>
          Array.from({ length: m }, (_, j): Ext => (q === 1 && j % 3 === 0 ? [1, 0, 0, 0] : extRandom())),
        );
        const coeffs = points.map((_, q): Ext => (q === 2 ? [P - 1, P - 1, P - 1, P - 1] : extRandom()));
        const want = new Uint32Array(4 << m);
        points.forEach((point, q) => ref.eqAdd(want, point, coeffs[q]!));
        assert.deepEqual(ref.eqMany(points, coeffs), want, `reference, m ${m}, ${count} points`);
        for (const workers of [null, pool]) {
          const before: number = be.residentTables;
          const table: Uint32Array = withPcsWorkers(workers, (): Uint32Array => be.eqMany(points, coeffs));
          assert.deepEqual(table, want, `m ${m}, ${count} points, ${workers === null ? "one thread" : "pool"}`);
          be.release(table);
          assert.equal(be.residentTables, before);
        }
      }
    }
  });
});

test("the first non-canonical value of a table (a working table read in place, or a plain array) is the reference's", async () => {
  assert.ok(wasm);
  const { firstNoncanonicalReference } = await import("../../src/pcs/backend.js");
  for (const n of [1, 3, 4, 1024, 4099]) {
    const at = [...new Set([-1, 0, 1, n >> 1, n - 1])].filter((i) => i < n);
    for (const bad of at) {
      for (const value of [P, P + 1, 0xffffffff]) {
        const values = new Uint32Array(n).map(() => random());
        if (bad >= 0) values[bad] = value;
        if (bad >= 1) values[bad - 1] = P - 1;
        const want = firstNoncanonicalReference(values);
        assert.equal(want, bad, `reference, n ${n}`);
        assert.equal(ref.firstNoncanonical(values), want);
        assert.equal(wasm.firstNoncanonical(values), want, `plain array, n ${n}, at ${bad}`);
        const table = wasm.resident(values);
        assert.equal(wasm.firstNoncanonical(table), want, `working table, n ${n}, at ${bad}`);
        wasm.release(table);
      }
    }
  }
  // Two non-canonical values: the first.
  const two = new Uint32Array(2048);
  two[700] = P;
  two[1500] = P + 5;
  assert.equal(wasm.firstNoncanonical(two), 700);
  // A commitment refusing such a table releases the working copy it scanned.
  const { whirCommit } = await import("../../src/pcs/index.js");
  const before = wasm.residentTables;
  const evaluations = new Uint32Array(1 << 13).map(() => random());
  evaluations[5000] = P;
  assert.throws(() => whirCommit(evaluations, { workers: null }), { code: "PCS_BAD_POLYNOMIAL" });
  assert.equal(wasm.residentTables, before, "the working copy released");
});

test("the kernels cut into calls (NTT stages by blocks and passes, Möbius bits, leaf rows) equal the whole kernels", async () => {
  assert.ok(wasm);
  const { defaultKernels } = await import("../../src/kernels/kernels.js");
  const { mobiusBatches, nttBatches, nttScratchWords, ranges } = await import("../../src/kernels/pcs-split.js");
  const { MERKLE24_WORK_WORDS } = await import("../../src/kernels/abi.js");
  const { poseidon2Constant24Words } = await import("../../src/kernels/constants.js");
  const kernels = defaultKernels();
  const raw = kernels.instance.raw as unknown as Record<string, (...args: number[]) => unknown>;
  const heap = kernels.heap;
  for (const width of [1, 4]) {
    for (const logN of [3, 12, 13, 14]) {
      const n = 1 << logN;
      const input = new Uint32Array(n * width).map(() => random());
      const { twiddles, companions } = nttTwiddleTables(logN);
      const tw = heap.allocFrom(twiddles),
        tws = heap.allocFrom(companions);
      for (const parts of [1, 3, 16]) {
        const data = heap.allocFrom(input);
        const scratch = heap.alloc(parts * nttScratchWords(width));
        try {
          const batches = nttBatches(
            { data: data.ptr, width, logN, tw: tw.ptr, tws: tws.ptr, scratch: scratch.ptr },
            parts,
          );
          // Any order within a batch: run each batch backwards.
          for (const batch of batches) for (const c of [...batch].reverse()) raw[c.fn]!(...c.args);
          const expected = input.slice();
          ref.ntt(expected, width, logN);
          assert.deepEqual(data.view().slice(0, n * width), expected, `NTT width ${width}, 2^${logN}, ${parts} parts`);
          data.view().set(input);
          for (const batch of mobiusBatches(data.ptr, width, logN, parts).reverse())
            for (const c of batch) raw[c.fn]!(...c.args);
          const mobius = input.slice();
          ref.mobius(mobius, width);
          assert.deepEqual(data.view().slice(0, n * width), mobius, `Möbius width ${width}, 2^${logN}, ${parts} parts`);
        } finally {
          heap.release(data);
          heap.release(scratch);
        }
      }
      heap.release(tw);
      heap.release(tws);
    }
  }
  assert.deepEqual(ranges(10, 4, 1), [
    [0, 2],
    [2, 5],
    [5, 7],
    [7, 10],
  ]);
  assert.deepEqual(ranges(8, 16, 4), [
    [0, 4],
    [4, 8],
  ]);
  // Leaf digests of row ranges, each call with its own scratch, equal the whole kernel's.
  const consts24 = heap.allocFrom(poseidon2Constant24Words());
  for (const [width, logN, k] of [
    [1, 12, 4],
    [4, 11, 2],
  ] as const) {
    const codeword = heap.allocFrom(new Uint32Array(width << logN).map(() => random()));
    const rows = 1 << (logN - k);
    for (const [whole, part, consts] of [
      ["pcs_merkle_leaves", "pcs_merkle_leaves_rows", kernels.constants.ptr],
      ["pcs_merkle_leaves24", "pcs_merkle_leaves24_rows", consts24.ptr],
    ] as const) {
      const a = heap.alloc(8 * rows),
        b = heap.alloc(8 * rows);
      const works = Array.from({ length: 5 }, () => heap.alloc(MERKLE24_WORK_WORDS));
      try {
        raw[whole]!(a.ptr, codeword.ptr, logN, k, width, consts, works[0]!.ptr);
        ranges(rows, 5, 4).forEach(([from, to], i) =>
          raw[part]!(b.ptr, codeword.ptr, logN, k, width, consts, works[i]!.ptr, from, to - from),
        );
        assert.deepEqual(b.view().slice(0, 8 * rows), a.view().slice(0, 8 * rows), `${part} width ${width}`);
      } finally {
        for (const r of [a, b, ...works]) heap.release(r);
      }
    }
    heap.release(codeword);
  }
  heap.release(consts24);
});

test("the WASM twiddle tables equal the reference word for word", () => {
  for (const logN of [0, 1, 2, 3, 7, 12, 16]) {
    const w = wasmTwiddleTables(logN);
    assert.ok(w, "the kernel module is available in the test processes");
    const r = nttTwiddleTables(logN);
    assert.deepEqual(w.twiddles, r.twiddles, `twiddles, 2^${logN}`);
    assert.deepEqual(w.companions, r.companions, `companions, 2^${logN}`);
  }
});

test("the WASM NTT equals the reference when its bit reversal takes several calls (above 2^14 elements)", () => {
  assert.ok(wasm);
  for (const [width, logN] of [
    [1, 16],
    [4, 15],
    [1, 15],
  ] as const) {
    const input = new Uint32Array((1 << logN) * width).map(() => random());
    const a = input.slice();
    const b = input.slice();
    wasm.ntt(a, width, logN);
    ref.ntt(b, width, logN);
    assert.deepEqual(a, b, `width ${width}, 2^${logN}`);
    const cw = wasm.codeword(input.subarray(0, (1 << (logN - 2)) * width), width, logN);
    assert.deepEqual(
      cw.slice(),
      codewordReference(input.subarray(0, (1 << (logN - 2)) * width), width, logN),
      `codeword, width ${width}, 2^${logN}`,
    );
    wasm.release(cw);
  }
});

test("the WASM codeword and the Merkle tree of its rows equal the references (kernel and fallback shapes, tables in and outside kernel memory)", () => {
  assert.ok(wasm);
  const before = wasm.residentTables;
  // [m, log|L|, k]: k = 1, 2 with width 1 and log rows < 2 take the fallback; the others the four-lane kernels.
  for (const width of [1, 4]) {
    for (const [m, logDomain, k] of [
      [1, 2, 1],
      [2, 3, 1],
      [3, 5, 2],
      [4, 6, 3],
      [4, 6, 4],
      [6, 8, 4],
      [5, 7, 5],
      [9, 11, 4],
      [8, 12, 6],
      [4, 5, 4],
    ] as const) {
      for (const coeffs of inputs((1 << m) * width)) {
        const what = `width ${width}, m ${m}, log|L| ${logDomain}, k ${k}`;
        const expected = codewordReference(coeffs, width, logDomain);
        const cw = wasm.codeword(coeffs, width, logDomain);
        assert.deepEqual(cw.slice(), expected, what);
        const tree = wasm.merkle(cw, width, logDomain, k);
        const reference = buildMerkleTreeReference(
          rowsOfCodeword(expected, width, logDomain, k),
          (1 << k) * width,
          logDomain - k,
        );
        assert.deepEqual(
          tree.levels.map((l) => l.slice()),
          reference.levels,
          what,
        );
        assert.deepEqual(tree.root, reference.root, what);
        assert.deepEqual(
          wasm.merkle(expected, width, logDomain, k).levels.map((l) => l.slice()),
          reference.levels,
          `${what}, a plain array`,
        );
        assert.deepEqual(
          ref.merkle(expected, width, logDomain, k).levels,
          merkleTreeOfCodeword(expected, width, logDomain, k).levels,
        );
        wasm.release(cw);
      }
    }
  }
  assert.equal(wasm.residentTables, before, "every codeword released");
});

test("the WASM Merkle tree over two codewords' rows side by side (the hiding commitment's) equals the reference and the definition", () => {
  assert.ok(wasm);
  const before = wasm.residentTables;
  // [log|L|, k, first width, second width]: log rows < 2 or a part not of whole blocks takes the fallback.
  for (const [logDomain, k, wa, wb] of [
    [7, 5, 1, 4],
    [9, 3, 1, 4],
    [10, 4, 4, 1],
    [8, 5, 4, 4],
    [6, 5, 1, 4],
    [6, 2, 1, 4],
    [12, 5, 1, 4],
  ] as const) {
    const what = `log|L| ${logDomain}, k ${k}, widths ${wa} and ${wb}`;
    const [a] = inputs((1 << logDomain) * wa);
    const [b] = inputs((1 << logDomain) * wb);
    const ra = rowsOfCodeword(a!, wa, logDomain, k),
      rb = rowsOfCodeword(b!, wb, logDomain, k);
    const aw = (1 << k) * wa,
      bw = (1 << k) * wb;
    const rows = new Uint32Array(ra.length + rb.length);
    for (let j = 0; j < 1 << (logDomain - k); j++) {
      rows.set(ra.subarray(j * aw, (j + 1) * aw), j * (aw + bw));
      rows.set(rb.subarray(j * bw, (j + 1) * bw), j * (aw + bw) + aw);
    }
    const reference = buildMerkleTreeReference(rows, aw + bw, logDomain - k);
    const tree = wasm.merklePair(a!, wa, b!, wb, logDomain, k);
    assert.deepEqual(
      tree.levels.map((l) => l.slice()),
      reference.levels,
      what,
    );
    assert.deepEqual(tree.root, reference.root, what);
    assert.deepEqual(ref.merklePair(a!, wa, b!, wb, logDomain, k).levels, reference.levels, `${what}, reference`);
    const resident = wasm.resident(b!);
    assert.deepEqual(
      wasm.merklePair(a!, wa, resident, wb, logDomain, k).root,
      reference.root,
      `${what}, a working table`,
    );
    wasm.release(resident);
  }
  assert.equal(wasm.residentTables, before, "every table released");
});

test("working tables: copies, zeros, lifts and folds equal the references, are read in place by the next kernel, and are all released", () => {
  assert.ok(wasm);
  const before = wasm.residentTables;
  for (const n of [1024, 4096]) {
    for (const base of inputs(2 * n)) {
      const lifted = wasm.lift(base);
      assert.deepEqual(lifted.slice(), ref.lift(base), `lift, n ${n}`);
      const table = wasm.resident(lifted);
      assert.notEqual(table, lifted);
      assert.deepEqual(table.slice(), lifted.slice());
      const alpha = extRandom();
      const folded = wasm.fold(table, alpha, "evaluations");
      assert.deepEqual(
        folded.slice(),
        ref.fold(ref.lift(base), alpha, "evaluations"),
        `fold of a working table, n ${n}`,
      );
      const w = wasm.zeros(4 * n);
      assert.ok(w.every((x) => x === 0));
      const point: Ext[] = Array.from({ length: Math.log2(n) }, () => extRandom());
      const plain = new Uint32Array(4 * n);
      wasm.eqAdd(w, point, [1, 0, 0, 0]);
      ref.eqAdd(plain, point, [1, 0, 0, 0]);
      assert.deepEqual(w.slice(), plain, "eq table accumulated in place");
      assert.deepEqual(wasm.round(folded, w), ref.round(folded.slice(), plain));
      assert.deepEqual(wasm.horner(folded, alpha), ref.horner(folded.slice(), alpha));
      for (const x of [lifted, table, folded, w]) wasm.release(x);
    }
  }
  wasm.release(new Uint32Array(8)); // not a working table: no effect
  assert.equal(wasm.residentTables, before);
});

test("scaleAdd (a masked opening's h = ρ·f′ + g′) equals the reference on random and edge values, from plain arrays and from working tables, and is released", () => {
  assert.ok(wasm);
  const before = wasm.residentTables;
  const edges: Ext[] = [[0, 0, 0, 0], [1, 0, 0, 0], [P - 1, P - 1, P - 1, P - 1], [0, 0, 0, 1], extRandom()];
  for (const n of [1, 3, 1024, 4096]) {
    for (const base of inputs(n)) {
      for (const ext of inputs(4 * n)) {
        for (const alpha of edges) {
          const want = ref.scaleAdd(alpha, base, ext);
          const got = wasm.scaleAdd(alpha, base, ext);
          assert.deepEqual(got.slice(), want, `n ${n}, α ${alpha}`);
          assert.ok(
            got.every((x) => x < P),
            "canonical",
          );
          // from working tables, read in place; the result feeds the next kernel in place
          const b = wasm.resident(base.slice());
          const e = wasm.resident(ext);
          const again = wasm.scaleAdd(alpha, b, e);
          assert.deepEqual(again.slice(), want, `n ${n}: working tables`);
          assert.deepEqual(wasm.horner(again, alpha), ref.horner(want, alpha));
          for (const x of [got, b, e, again]) wasm.release(x);
        }
      }
    }
  }
  assert.equal(wasm.residentTables, before);
});

test("an opening leaves no working table behind, also when it stops half way", async () => {
  assert.ok(wasm);
  const { whirCommitOn, whirOpenOn } = await import("../../src/pcs/prover.js");
  const { DuplexChallenger } = await import("../../src/transcript/challenger.js");
  const m = 14; // two iterations under the default set, so the opening can stop inside them
  const evals = new Uint32Array(1 << m).map(() => random());
  const point = Array.from({ length: m }, () => extRandom());
  const claims = [{ point, value: [0, 0, 0, 0] as Ext }];
  const before = wasm.residentTables;
  const t = DuplexChallenger.withDomain("working-tables");
  const state = whirCommitOn(t, evals);
  assert.equal(wasm.residentTables, before, "after the commitment");
  whirOpenOn(t.clone(), state, claims);
  assert.equal(wasm.residentTables, before, "after an opening");
  assert.throws(
    () =>
      whirOpenOn(t.clone(), state, claims, {
        oodAnswers: () => {
          throw new RangeError("stop");
        },
      }),
    RangeError,
  );
  assert.equal(wasm.residentTables, before, "after an opening that threw");
  // The masked opening hands h's tables (made by scaleAdd) to the opening, which releases them.
  const { whirCommitHidingOn, whirOpenHidingOn, releaseWhirHidingState } = await import(
    "../../src/pcs/hiding-prover.js"
  );
  const hiding = whirCommitHidingOn(t.clone(), evals, { layout: "top-block" });
  const offBlock = [
    { point: point.map((x, j) => (j === m - 1 ? ([0, 0, 0, 0] as Ext) : x)), value: [0, 0, 0, 0] as Ext },
  ];
  whirOpenHidingOn(t.clone(), hiding, offBlock);
  assert.equal(wasm.residentTables, before, "after a masked opening");
  const stop = (): never => {
    throw new RangeError("stop");
  };
  for (const [when, adversary] of [
    ["before the WHIR iterations", { maskedOodAnswers: stop }],
    ["inside them", { oodAnswers: stop }],
  ] as const) {
    assert.throws(() => whirOpenHidingOn(t.clone(), hiding, offBlock, { reopen: true, ...adversary }), RangeError);
    assert.equal(wasm.residentTables, before, `after a masked opening that threw ${when}`);
  }
  releaseWhirHidingState(hiding);
});

test("the verifier's row folds on the kernel (pcs_fold_rows) equal RowFolder and foldRow, base and extension rows, k = 0 … 6", () => {
  assert.ok(wasm);
  for (let k = 0; k <= 6; k++) {
    const zeta = rootOfUnity(k);
    const alphas = Array.from({ length: k }, (_, s): Ext => (s === 1 ? [0, 0, 0, 0] : extRandom()));
    for (const width of [1, 4] as const) {
      for (const n of [1, 3, 11]) {
        const words = width << k;
        const rows = Uint32Array.from({ length: n * words }, (_, i) =>
          i % 9 === 0 ? P - 1 : i % 11 === 0 ? 0 : random(),
        );
        const xs = Array.from({ length: n }, (_, j) => (j === 0 ? 1 : j === 1 ? P - 1 : random() || 1));
        const opened = { rows, width, k, xs, zeta, alphas };
        const got = wasm.foldRows(opened);
        assert.deepEqual(got, ref.foldRows(opened), `k=${k} width=${width} n=${n}`);
        xs.forEach((x, j) => {
          const row = rows.subarray(j * words, (j + 1) * words);
          const lifted =
            width === 1 ? Uint32Array.from({ length: 4 << k }, (_, i) => (i % 4 === 0 ? row[i / 4]! : 0)) : row;
          assert.deepEqual(got[j], foldRow(lifted, x, zeta, alphas), `k=${k} width=${width} row ${j}`);
        });
      }
    }
  }
});
