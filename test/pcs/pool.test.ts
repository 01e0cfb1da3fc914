/**
 * The commitment's worker pool (src/pcs-workers): the same Merkle trees, commitments and proof
 * bytes as one thread (random codewords, several sets and sizes, the checked-in known answers),
 * typed errors for a crashed worker, a closed pool and bad options, and a process that exits
 * with an idle pool it never closed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sponge } from "../../src/hash/digest.js";
import { P } from "../../src/field/koalabear.js";
import {
  PcsError,
  defaultPcsWorkers,
  encodeWhirCommitment,
  whirCommit,
  whirOpen,
  whirVerify,
  type WhirSetId,
} from "../../src/pcs/index.js";
import { pcsMerkle, typescriptPcsBackend } from "../../src/pcs/backend.js";
import { withPcsWorkers } from "../../src/pcs/parallel.js";
import { wasmPcsBackend } from "../../src/kernels/pcs-kernels.js";
import type { Ext } from "../../src/field/extension.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import type { CommittedWidth } from "../../src/pcs/types.js";
import {
  createPcsPool,
  installDefaultPcsPool,
  uninstallDefaultPcsPool,
  type PcsPool,
} from "../../src/pcs-workers/index.js";
import { grindChunk, workerExecArgv } from "../../src/pcs-workers/pool.js";
import { LINGER_MS } from "../../src/pcs-workers/protocol.js";
import { randomEvaluations, rng, twoClaims } from "./support.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

function isPcsError(code: string): (e: unknown) => boolean {
  return (e: unknown) => e instanceof PcsError && e.code === code;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/** Commitment bytes and proof bytes of one case with the given `workers` option. */
function prove(
  set: WhirSetId,
  m: number,
  width: CommittedWidth,
  seed: number,
  workers: PcsPool | null,
): { commitment: string; proof: Uint8Array } {
  const evals = randomEvaluations(m, seed, width);
  const committed = whirCommit(evals, { set, width, workers });
  const claims = twoClaims(evals, m, seed, width);
  const proof = whirOpen(committed, claims, { workers });
  assert.deepEqual(whirVerify(committed.commitment, claims, proof, { alsoAccept: [set] }), { ok: true });
  return { commitment: hex(encodeWhirCommitment(committed.commitment)), proof };
}

test("pcs pool: Merkle trees of random codewords equal the calling thread's (widths 1 and 4, several row sizes, both leaf sponges)", async () => {
  const pool = createPcsPool({ threads: 2, minChunkRows: 4 });
  try {
    await pool.ready();
    for (const [width, logDomain, k] of [
      [1, 10, 3],
      [1, 14, 5],
      [4, 9, 2],
      [4, 12, 4],
      [1, 8, 6],
      [4, 6, 1],
    ] as const) {
      const next = rng(1000 + 17 * logDomain + k + width);
      const codeword = new Uint32Array(width << logDomain).map(() => next());
      for (const leafWidth of [16, 24] as const) {
        const what = `w=${width} n=2^${logDomain} k=${k} leaves ${leafWidth}`;
        const single = pcsMerkle(codeword, width, logDomain, k, leafWidth);
        const pooled = pool.merkle(codeword, width, logDomain, k, leafWidth);
        assert.equal(pooled.logRows, single.logRows);
        assert.deepEqual([...pooled.root], [...single.root], `root ${what}`);
        single.levels.forEach((level, l) => assert.deepEqual([...pooled.levels[l]!], [...level], `level ${l} ${what}`));
      }
      assert.notDeepEqual(
        [...pool.merkle(codeword, width, logDomain, k, 24).root],
        [...pool.merkle(codeword, width, logDomain, k).root],
      );
    }
  } finally {
    await pool.close();
  }
});

test("pcs pool: commitments and proofs are byte-identical to one thread (sets, sizes, base and extension values)", async () => {
  const small = createPcsPool({ threads: 2, minChunkRows: 4, minCallElements: 4 });
  const coarse = createPcsPool({ threads: 1 });
  try {
    await Promise.all([small.ready(), coarse.ready()]);
    const cases: [WhirSetId, number, CommittedWidth, number][] = [
      ["cb100-r4", 6, 1, 11],
      ["cb100-r4", 13, 1, 12],
      ["cb90-r4", 14, 1, 13],
      ["ud100-r4", 10, 1, 14],
      ["cb100-r2", 11, 4, 15],
      ["cb100-r4", 16, 1, 16],
      ["cb100-r4-s3-l24", 15, 1, 17],
      ["ud100-r4-s3-l24", 11, 4, 18],
    ];
    for (const [set, m, width, seed] of cases) {
      const single = prove(set, m, width, seed, null);
      for (const pool of [small, coarse]) {
        const pooled = prove(set, m, width, seed, pool);
        assert.equal(pooled.commitment, single.commitment, `${set} m=${m} commitment`);
        assert.deepEqual(pooled.proof, single.proof, `${set} m=${m} proof`);
      }
    }
    // The kernels' memory is shared: the trees, NTTs, folds, rounds and eq tables ran as batches of calls.
    for (const pool of [small, coarse])
      assert.ok(pool.stats.batches > 0 && pool.stats.calls >= 2 * pool.stats.batches, "operations were cut into calls");
    assert.ok(small.stats.workerCalls > 0, "the workers ran calls");
    assert.ok(small.stats.batches > coarse.stats.batches, "smaller operations spread with a smaller minCallElements");
  } finally {
    await Promise.all([small.close(), coarse.close()]);
  }
});

test("pcs pool: the kernel operations spread over the pool equal the references (NTT, Möbius, folds, rounds, Horner, eq tables, lifts, Merkle trees)", async () => {
  const wasm = wasmPcsBackend();
  assert.ok(wasm, "the kernel module is available in the test processes");
  const pool = createPcsPool({ threads: 2, minCallElements: 4 });
  const ref = typescriptPcsBackend;
  try {
    await pool.ready();
    const before = pool.stats;
    withPcsWorkers(pool, () => {
      for (const width of [1, 4]) {
        for (const logN of [5, 12, 13, 14]) {
          const next = rng(300 + 7 * logN + width);
          const input = new Uint32Array(width << logN).map(() => next());
          const a = wasm.resident(input);
          const b = input.slice();
          wasm.ntt(a, width, logN);
          ref.ntt(b, width, logN);
          assert.deepEqual(a, b, `NTT width ${width} 2^${logN}`);
          const c = input.slice();
          const d = input.slice();
          wasm.mobius(c, width);
          ref.mobius(d, width);
          assert.deepEqual(c, d, `Möbius width ${width} 2^${logN}`);
          const cw = wasm.codeword(input, width, logN + 1);
          assert.deepEqual(cw, ref.codeword(input, width, logN + 1), `codeword width ${width} 2^${logN + 1}`);
          for (const [k, leafWidth] of [
            [4, 16],
            [4, 24],
            [2, 24],
          ] as const) {
            const t1 = wasm.merkle(cw, width, logN + 1, k, leafWidth);
            const t2 = ref.merkle(cw, width, logN + 1, k, leafWidth);
            assert.deepEqual(
              [...t1.root],
              [...t2.root],
              `tree width ${width} 2^${logN + 1} k ${k} leaves ${leafWidth}`,
            );
            t2.levels.forEach((level, l) => assert.deepEqual([...t1.levels[l]!], [...level]));
          }
          wasm.release(a);
          wasm.release(cw);
        }
      }
      for (const logN of [3, 10, 13]) {
        const next = rng(900 + logN);
        const table = new Uint32Array(8 << logN).map(() => next());
        const w = new Uint32Array(8 << logN).map(() => next());
        const alpha: Ext = [next(), next(), next(), next()];
        for (const mode of ["evaluations", "coefficients"] as const) {
          const folded = wasm.fold(table, alpha, mode);
          assert.deepEqual(folded, ref.fold(table, alpha, mode), `fold ${mode} 2^${logN}`);
          wasm.release(folded);
        }
        assert.deepEqual(wasm.round(table, w), ref.round(table, w), `round 2^${logN}`);
        assert.deepEqual(wasm.horner(table, alpha), ref.horner(table, alpha), `Horner 2^${logN}`);
        const base = table.subarray(0, 2 << logN);
        const lifted = wasm.lift(base);
        assert.deepEqual(lifted, ref.lift(base), `lift 2^${logN}`);
        wasm.release(lifted);
        assert.deepEqual(wasm.roundBase(base, w), ref.roundBase(base, w), `base round 2^${logN}`);
        assert.deepEqual(wasm.hornerBase(base, alpha), ref.hornerBase(base, alpha), `base Horner 2^${logN}`);
        for (const mode of ["evaluations", "coefficients"] as const) {
          const folded = wasm.foldBase(base, alpha, mode);
          assert.deepEqual(folded, ref.foldBase(base, alpha, mode), `base fold ${mode} 2^${logN}`);
          wasm.release(folded);
        }
        const point = Array.from({ length: logN + 1 }, (): Ext => [next(), next(), next(), next()]);
        const acc1 = w.slice();
        const acc2 = w.slice();
        wasm.eqAdd(acc1, point, alpha);
        ref.eqAdd(acc2, point, alpha);
        assert.deepEqual(acc1, acc2, `eq table 2^${logN + 1}`);
        const basePoint = point.map((p) => p[0]);
        wasm.eqAddBase(acc1, basePoint, alpha);
        ref.eqAddBase(acc2, basePoint, alpha);
        assert.deepEqual(acc1, acc2, `base eq table 2^${logN + 1}`);
        // A batch of base points in one call per piece, against the reference's points one by one.
        const basePoints = [0, 1, 2, 3, 4].map((q) => point.map((p) => (q === 4 ? P - 1 : (p[q % 4]! + q) % P)));
        const coeffs = basePoints.map((_, q): Ext => (q === 3 ? [0, 0, 0, 0] : [next(), next(), next(), next()]));
        wasm.eqAddBaseMany(acc1, basePoints, coeffs);
        basePoints.forEach((bp, q) => ref.eqAddBase(acc2, bp, coeffs[q]!));
        assert.deepEqual(acc1, acc2, `batch of base eq tables 2^${logN + 1}`);
      }
    });
    assert.ok(
      pool.stats.batches > before.batches && pool.stats.workerCalls > before.workerCalls,
      "the workers ran calls",
    );
    assert.equal(wasm.residentTables, 0, "every working table released");
  } finally {
    await pool.close();
  }
});

test("pcs pool: a worker takes the next batch while it lingers on its doorbell and after it went back to its event loop, with the same bytes", async () => {
  const reference = prove("cb100-r4-s3-l24-f6", 14, 1, 31, null);
  const pool = createPcsPool({ threads: 1, minCallElements: 1 << 10 });
  try {
    await pool.ready();
    for (const pause of [0, 0, 4 * LINGER_MS, 0, 4 * LINGER_MS]) {
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
      const before = pool.stats;
      assert.deepEqual(prove("cb100-r4-s3-l24-f6", 14, 1, 31, pool), reference, `after a pause of ${pause} ms`);
      assert.ok(pool.stats.workerCalls > before.workerCalls, `the worker ran calls after a pause of ${pause} ms`);
    }
  } finally {
    await pool.close();
  }
});

test("pcs pool: a grinding search's ranges are about a sixteenth of its expected candidates, within [2^8, 2^12]", () => {
  assert.deepEqual([1, 8, 12, 13, 14, 16, 17, 30].map(grindChunk), [256, 256, 256, 512, 1024, 4096, 4096, 4096]);
});

test("pcs pool: a grinding search spread over the pool finds the witness the transcript's own search finds", async () => {
  const pool = createPcsPool({ threads: 2 });
  try {
    await pool.ready();
    for (const [seed, bits] of [
      [1, 1],
      [2, 8],
      [3, 12],
      [4, 14],
      [5, 16],
      [6, 13],
      [7, 10],
      [8, 11],
      [9, 18],
    ] as const) {
      const t = new DuplexChallenger();
      const next = rng(seed);
      for (let i = 0; i < seed + 3; i++) t.observe(next());
      const copy = t.clone();
      const job = copy.grindTemplate();
      assert.ok(job !== null, "the kernel hashing backend searches");
      const expected = t.grind(bits);
      assert.equal(pool.grind(job.template, job.lane, bits), expected, `seed ${seed}, ${bits} bits`);
    }
    assert.equal(pool.stats.grinds, 9);
  } finally {
    await pool.close();
  }
  assert.throws(() => pool.grind(new Uint32Array(16), 0, 4), isPcsError("PCS_POOL_CLOSED"));
});

test("pcs pool: the checked-in known answers (test/vectors/pcs-whir.json) come out of the pool unchanged", async () => {
  const pool = createPcsPool({ threads: 2, minChunkRows: 4, minCallElements: 4 });
  try {
    await pool.ready();
    const vectors = JSON.parse(readFileSync(join(process.cwd(), "test", "vectors", "pcs-whir.json"), "utf8")) as {
      set: WhirSetId;
      numVariables: number;
      width: CommittedWidth;
      seed: number;
      commitmentHex: string;
      proofBytes: number;
      proofDigest: number[];
    }[];
    assert.ok(vectors.length >= 5);
    for (const v of vectors) {
      const { commitment, proof } = prove(v.set, v.numVariables, v.width, v.seed, pool);
      assert.equal(commitment, v.commitmentHex, `${v.set} m=${v.numVariables}`);
      assert.equal(proof.length, v.proofBytes);
      assert.deepEqual(
        [...sponge(new Uint32Array(proof.buffer, proof.byteOffset, proof.length / 4))],
        v.proofDigest,
        `${v.set} m=${v.numVariables} digest`,
      );
    }
  } finally {
    await pool.close();
  }
});

test("pcs pool: a worker that dies during a call gives PCS_WORKER_CRASHED, is replaced, and the pool goes on with the same bytes", async () => {
  const pool = createPcsPool({ threads: 1, minChunkRows: 4, minCallElements: 4 });
  try {
    await pool.ready();
    const evals = randomEvaluations(12, 21);
    const expected = hex(encodeWhirCommitment(whirCommit(evals, { workers: null }).commitment));
    pool.injectWorkerFault("exit");
    assert.throws(() => whirCommit(evals, { workers: pool }), isPcsError("PCS_WORKER_CRASHED"));
    // Before the replacement starts, the dead worker gets no job: the calling thread hashes alone.
    assert.equal(hex(encodeWhirCommitment(whirCommit(evals, { workers: pool }).commitment)), expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await pool.ready();
    assert.equal(hex(encodeWhirCommitment(whirCommit(evals, { workers: pool }).commitment)), expected);
    pool.injectWorkerFault("throw");
    assert.throws(() => whirCommit(evals, { workers: pool }), isPcsError("PCS_WORKER_CRASHED"));
    assert.equal(hex(encodeWhirCommitment(whirCommit(evals, { workers: pool }).commitment)), expected);
  } finally {
    await pool.close();
  }
});

test("pcs pool: a closed pool gives PCS_POOL_CLOSED to commitments and openings", async () => {
  const pool = createPcsPool({ threads: 1, minChunkRows: 4 });
  const evals = randomEvaluations(10, 31);
  const committed = whirCommit(evals, { workers: pool });
  await pool.close();
  await pool.close();
  assert.equal(pool.closed, true);
  assert.throws(() => whirCommit(evals, { workers: pool }), isPcsError("PCS_POOL_CLOSED"));
  assert.throws(() => whirOpen(committed, twoClaims(evals, 10, 31), { workers: pool }), isPcsError("PCS_POOL_CLOSED"));
  assert.throws(() => pool.merkle(new Uint32Array(1 << 10), 1, 10, 3), isPcsError("PCS_POOL_CLOSED"));
});

test("pcs pool: bad options give PCS_BAD_OPTION before any thread starts", () => {
  for (const threads of [0, -1, 1.5, 257, Number.NaN, "2"]) {
    assert.throws(
      () => createPcsPool({ threads: threads as number }),
      isPcsError("PCS_BAD_OPTION"),
      `threads ${String(threads)}`,
    );
    assert.throws(
      () => installDefaultPcsPool({ threads: threads as number }),
      isPcsError("PCS_BAD_OPTION"),
      `default threads ${String(threads)}`,
    );
  }
  for (const minChunkRows of [0, 2, 3, 6, 1 << 21, 4.5]) {
    assert.throws(() => createPcsPool({ minChunkRows }), isPcsError("PCS_BAD_OPTION"), `minChunkRows ${minChunkRows}`);
  }
  for (const minCallElements of [0, 2, 3, 6, 2 ** 31, 4.5]) {
    assert.throws(
      () => createPcsPool({ minCallElements }),
      isPcsError("PCS_BAD_OPTION"),
      `minCallElements ${minCallElements}`,
    );
  }
  assert.throws(() => createPcsPool(null as never), isPcsError("PCS_BAD_OPTION"));
  const evals = randomEvaluations(4, 41);
  for (const workers of [{}, 3, "pool", { merkle: 1 }]) {
    assert.throws(
      () => whirCommit(evals, { workers: workers as never }),
      isPcsError("PCS_BAD_OPTION"),
      `workers ${JSON.stringify(workers)}`,
    );
  }
  const committed = whirCommit(evals, { workers: null });
  assert.throws(
    () => whirOpen(committed, twoClaims(evals, 4, 41), { workers: {} as never }),
    isPcsError("PCS_BAD_OPTION"),
  );
});

test("pcs pool: importing the internal modules installs no default pool; installDefaultPcsPool does (on more than one core), lazily", () => {
  assert.equal(defaultPcsWorkers(), null);
  try {
    const installed = installDefaultPcsPool({ threads: 1 });
    const pool = defaultPcsWorkers();
    assert.equal(pool !== null, installed);
    if (pool !== null) {
      assert.equal(pool.threads, 1);
      const evals = randomEvaluations(12, 51);
      const single = hex(encodeWhirCommitment(whirCommit(evals, { workers: null }).commitment));
      assert.equal(hex(encodeWhirCommitment(whirCommit(evals).commitment)), single);
      void (pool as PcsPool).close();
    }
  } finally {
    uninstallDefaultPcsPool();
  }
  assert.equal(defaultPcsWorkers(), null);
});

/** Runs a module body in a child process; returns its exit status and output. */
function child(body: string): { status: number | null; stdout: string; stderr: string; ms: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", body], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
}

test("pcs pool: a process exits on its own with an idle pool it never closed (explicit pool and the entry's default pool)", () => {
  const explicit = child(`
    import { createPcsPool, whirCommit } from "./dist/src/pcs.js";
    const pool = createPcsPool({ threads: 2, minChunkRows: 4 });
    await pool.ready();
    const evals = new Uint32Array(1 << 12).map((_, i) => i);
    whirCommit(evals, { workers: pool });
    console.log("committed");
  `);
  assert.equal(explicit.status, 0, explicit.stderr);
  assert.match(explicit.stdout, /committed/);
  const byDefault = child(`
    import { defaultPcsWorkers, whirCommit } from "./dist/src/pcs.js";
    import { availableParallelism } from "node:os";
    const evals = new Uint32Array(1 << 16).map((_, i) => i);
    whirCommit(evals);
    const pool = defaultPcsWorkers();
    console.log(JSON.stringify({ pool: pool !== null, cores: availableParallelism() }));
  `);
  assert.equal(byDefault.status, 0, byDefault.stderr);
  const seen = JSON.parse(byDefault.stdout.trim().split("\n").pop()!) as { pool: boolean; cores: number };
  assert.equal(seen.pool, seen.cores > 1, "the entry installs a default pool exactly when there is more than one core");
});

test("pcs pool: workers inherit the process's options but those that give it a script", () => {
  assert.deepEqual(workerExecArgv(["--input-type=module", "-e", "code", "--import", "./x.js"]), ["--import", "./x.js"]);
  assert.deepEqual(workerExecArgv(["--input-type", "module", "--eval", "code", "--max-old-space-size=512"]), [
    "--max-old-space-size=512",
  ]);
  assert.deepEqual(workerExecArgv(["-p", "1+1", "--eval=x", "--print=y", "--enable-source-maps"]), [
    "--enable-source-maps",
  ]);
});
