/**
 * Parallel batches: serial (this thread) vs the worker pool with 1 and 2 workers.
 *
 *   npm run bench -- batch [--depth 24] [--jobs 32] [--workers 1,2] [--repeats 3] [--serial-repeats 1] [--no-verify]
 *
 * Workload: a mixed batch of the §16.6 fixture corpus, `jobs` requests per kind (entries
 * 0 … jobs − 1), each kind a batch on its own prepared circuit. A "proof" is witness + prove +
 * inner-proof-v1 encoding. Serial: `proveBatchSequential` + `encodeSyncResult` per kind on the
 * main thread. Parallel: the three kind batches submitted together to one pool (after a warm-up
 * batch that starts the workers and attaches the circuits); every byte is compared with the
 * serial output. Verification: `verifyBatch` of all proofs on the same pool. Rates are proofs
 * (or verifications) per second of wall time: median (slowest–fastest run).
 *
 * CPU: process CPU time (all threads) per proof in the timed runs; on a shared machine the
 * wall-clock rates depend on the CPU others leave free, the CPU per proof much less so. The
 * machine check (a pure integer loop in 1 and 2 threads, before and after the pool runs) tells
 * how much a second thread can give at all: about 2 on two free cores.
 *
 * Also measured: the job encoding (binary form vs request JSON vs structured clone, µs per job
 * for encode + decode) and the pool's round-trip overhead per job (jobs that fail at once in
 * the worker, WRONG_KIND).
 */
import { availableParallelism } from "node:os";
import { prepare, type PreparedSync } from "../src/sync/prepared.js";
import { proveBatchSequential } from "../src/sync/batch.js";
import { encodeSyncResult } from "../src/sync/encoded.js";
import { corpus } from "../src/serve/fixtures/corpus.js";
import { fromOpRequest, toOpRequest } from "../src/sync/request-convert.js";
import { parseRequest, requestToJson } from "../src/sync/request.js";
import { OpKind } from "../src/statement/types.js";
import { createSyncPool, type JobTimings, type ProveOutcome, type SyncPool } from "../src/sync/parallel/pool.js";
import { decodeJob, encodeJob } from "../src/sync/parallel/job-codec.js";
import { attachPrepared, sharePrepared } from "../src/sync/parallel/shared-prepared.js";
import type { OpRequest } from "../src/smt/operation.js";
import {
  conditions,
  conditionsLine,
  machineSpeedup2,
  measure,
  progress,
  writeResults,
  printHeadline,
  fmt,
} from "./lib/index.js";
import { flag, int, ints, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    depth: int(1, 64),
    jobs: int(1, 100_000),
    workers: ints(1, 64),
    repeats: int(1, 1000),
    "serial-repeats": int(0, 1000),
    "no-verify": flag,
  },
  {
    smoke: { depth: "4", jobs: "1", workers: "1", repeats: "1", "serial-repeats": "1" },
  },
);
const depth = Number(args.get("depth") ?? 24);
const perKind = Number(args.get("jobs") ?? 32);
const workerCounts = (args.get("workers") ?? "1,2").split(",").map(Number);
const repeats = Number(args.get("repeats") ?? 3);
const serialRepeats = Number(args.get("serial-repeats") ?? 1);
const withVerify = !args.has("no-verify");
/** Iterations of the machine check's integer loop (smoke mode: a short one). */
const machineIterations = args.has("smoke") ? 1e7 : undefined;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
const total = 3 * perKind;

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# depth ${depth}, ${perKind} jobs per kind (${total} per mixed batch), workers ${workerCounts.join(",")}, ${repeats} timed runs per worker count, ${serialRepeats} serial; rates: median (slowest–fastest)`,
);

interface Summary {
  median: number;
  min: number;
  max: number;
  runs: number[];
}
function summary(xs: readonly number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return { median: s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2, min: s[0]!, max: s[s.length - 1]!, runs: [...xs] };
}
/** Rates from wall times (ms) of runs of `count` items. */
function rates(ms: readonly number[], count: number): Summary {
  return summary(ms.map((t) => (count * 1000) / t));
}
/** CPU time of this process, all threads, in ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
const cell = (r: Summary) => `${fmt(r.median, 2)} (${fmt(r.min, 2)}–${fmt(r.max, 2)})`;

// Workload.
const jobs = new Map<OpKind, OpRequest[]>(KINDS.map((k) => [k, corpus(k, perKind, { depth })]));
const prepared = new Map<OpKind, PreparedSync>();
const prepareMs: Record<string, number> = {};
for (const k of KINDS) {
  progress(`prepare ${k} (depth ${depth})`);
  const t0 = performance.now();
  prepared.set(k, prepare(k, { depth }));
  prepareMs[k] = performance.now() - t0;
}
const all = KINDS.flatMap((k) => jobs.get(k)!);

// Sharing a prepared circuit with the workers: one copy into a SharedArrayBuffer, then per worker
// an attach (views) and, on its first verification, the verifier's wiring; measured on this thread.
const sharing: Record<string, { shareMs: number; sharedMiB: number; attachMs: number; wiringMs: number }> = {};
for (const k of KINDS) {
  const t0 = performance.now();
  const shared = sharePrepared(prepared.get(k)!);
  const t1 = performance.now();
  const attached = attachPrepared(shared);
  const t2 = performance.now();
  void attached.wiring;
  sharing[k] = {
    shareMs: t1 - t0,
    sharedMiB: shared.buffer.byteLength / 2 ** 20,
    attachMs: t2 - t1,
    wiringMs: performance.now() - t2,
  };
}
console.log(
  `prepare ms: ${KINDS.map((k) => `${k} ${fmt(prepareMs[k]!)}`).join(", ")}; share once / attach / wiring per worker ms: ${KINDS.map(
    (k) => {
      const x = sharing[k]!;
      return `${k} ${fmt(x.shareMs)} / ${fmt(x.attachMs, 2)} / ${fmt(x.wiringMs)} (${fmt(x.sharedMiB)} MiB)`;
    },
  ).join(", ")}`,
);

// Job encodings, µs per job (encode + decode), over the whole mixed batch.
progress("job encodings");
const viaJson = (r: OpRequest) =>
  toOpRequest(parseRequest(JSON.parse(JSON.stringify(requestToJson(fromOpRequest(r, depth, 31))))));
const codec = {
  binary:
    (measure(
      () => {
        for (const r of all) decodeJob(encodeJob(r)!);
      },
      { repeats: 7 },
    ).median *
      1000) /
    all.length,
  json:
    (measure(
      () => {
        for (const r of all) viaJson(r);
      },
      { repeats: 7 },
    ).median *
      1000) /
    all.length,
  structuredClone:
    (measure(
      () => {
        for (const r of all) structuredClone(r);
      },
      { repeats: 7 },
    ).median *
      1000) /
    all.length,
  binaryBytes: encodeJob(all[0]!)!.byteLength,
  jsonBytes: JSON.stringify(requestToJson(fromOpRequest(all[0]!, depth, 31))).length,
};
console.log(
  `job encoding, µs per job (encode + decode): binary ${fmt(codec.binary, 2)} (${codec.binaryBytes} B), request JSON ${fmt(codec.json, 2)} (${codec.jsonBytes} B), structured clone ${fmt(codec.structuredClone, 2)}`,
);

// Serial reference (after one untimed proof per kind, so the timed runs are not cold).
for (const k of KINDS) proveBatchSequential(prepared.get(k)!, jobs.get(k)!.slice(0, 1));
let reference: Uint8Array[] = [];
const serialMs: number[] = [];
const serialCpuMs: number[] = [];
for (let r = 0; r < serialRepeats; r++) {
  progress(`serial run ${r + 1}/${serialRepeats}: ${total} proofs on this thread`);
  const t0 = performance.now();
  const c0 = cpuMs();
  const out: Uint8Array[] = [];
  for (const k of KINDS) {
    const p = prepared.get(k)!;
    for (const o of proveBatchSequential(p, jobs.get(k)!)) {
      if (!o.ok) throw o.error;
      out.push(encodeSyncResult(p, o.result));
    }
  }
  serialMs.push(performance.now() - t0);
  serialCpuMs.push(cpuMs() - c0);
  reference = out;
}
const serial = rates(serialMs, total);
const serialCpuPerProof = summary(serialCpuMs.map((c) => c / total));
console.log(`serial (main thread)        ${cell(serial)} proofs/s   CPU ${fmt(serialCpuPerProof.median)} ms per proof`);

async function mixedBatch(pool: SyncPool): Promise<ProveOutcome[]> {
  const parts = await Promise.all(KINDS.map((k) => pool.proveBatch(prepared.get(k)!, jobs.get(k)!)));
  return parts.flat();
}

function medianOf(outcomes: readonly { ok: boolean; timings?: JobTimings }[], key: keyof JobTimings): number {
  return summary(outcomes.flatMap((o) => (o.ok && o.timings ? [o.timings[key]] : []))).median;
}

interface PoolResult {
  workers: number;
  startupMs: number;
  prove: Summary;
  verify?: Summary;
  proveVerify?: Summary;
  identical: boolean;
  mismatches: number;
  perJobMs: { witness: number; prove: number; encode: number; verify?: number };
  roundTripUs: number;
  /** Process CPU ms (all threads) per proof in the timed runs. */
  cpuMsPerProof: Summary;
  /** Process CPU ms (all threads) per verification. */
  cpuMsPerVerify?: Summary;
}
const results: PoolResult[] = [];

interface PoolRun {
  workers: number;
  pool: SyncPool;
  startupMs: number;
  proveMs: number[];
  /** Process CPU time (all threads) of each timed proving run. */
  proveCpuMs: number[];
  verifyMs: number[];
  verifyCpuMs: number[];
  last: ProveOutcome[];
  verifyLast: { ok: boolean; timings?: JobTimings }[];
  mismatches: number;
  rejected: number;
}

// Start and warm up every pool first (one job per kind per worker: module load, circuit attach,
// JIT); then the timed runs alternate between worker counts, so that each count sees the same
// machine load (the machine may be shared).
progress("machine check: 1 vs 2 threads of a pure integer loop");
const capacityBefore = await machineSpeedup2(machineIterations);
const runs: PoolRun[] = [];
for (const w of workerCounts) {
  progress(`pool of ${w} worker(s): start and warm up`);
  const t0 = performance.now();
  const pool = createSyncPool({ workers: w });
  await Promise.all(KINDS.map((k) => pool.proveBatch(prepared.get(k)!, jobs.get(k)!.slice(0, w))));
  runs.push({
    workers: w,
    pool,
    startupMs: performance.now() - t0,
    proveMs: [],
    proveCpuMs: [],
    verifyMs: [],
    verifyCpuMs: [],
    last: [],
    verifyLast: [],
    mismatches: 0,
    rejected: 0,
  });
}
for (let r = 0; r < repeats; r++) {
  for (const run of runs) {
    progress(`${run.workers} worker(s), run ${r + 1}/${repeats}: ${total} proofs`);
    const s = performance.now();
    const c0 = cpuMs();
    run.last = await mixedBatch(run.pool);
    run.proveMs.push(performance.now() - s);
    run.proveCpuMs.push(cpuMs() - c0);
    run.last.forEach((o, i) => {
      if (
        !o.ok ||
        Buffer.compare(
          Buffer.from(o.bytes.buffer, o.bytes.byteOffset, o.bytes.byteLength),
          Buffer.from(reference[i]!),
        ) !== 0
      )
        run.mismatches++;
    });
  }
}
if (withVerify) {
  for (let r = 0; r < repeats; r++) {
    for (const run of runs) {
      progress(`${run.workers} worker(s), verification run ${r + 1}/${repeats}`);
      const s = performance.now();
      const c0 = cpuMs();
      let offset = 0;
      const parts = await Promise.all(
        KINDS.map((k) => {
          const items = jobs.get(k)!.map((request, i) => ({ request, bytes: reference[offset + i]! }));
          offset += perKind;
          return run.pool.verifyBatch(prepared.get(k)!, items);
        }),
      );
      run.verifyMs.push(performance.now() - s);
      run.verifyCpuMs.push(cpuMs() - c0);
      run.verifyLast = parts.flat();
      run.rejected += parts.flat().filter((o) => !o.ok || !o.verdict.ok).length;
    }
  }
}

for (const run of runs) {
  const w = run.workers;
  if (run.rejected > 0) throw new Error(`${run.rejected} honest proofs were not accepted`);
  // Pool overhead: jobs that fail at once in the worker (wrong kind).
  const wrong = jobs.get(OpKind.NonMembership)!;
  const rtRuns: number[] = [];
  for (let r = 0; r < 5; r++) {
    const s = performance.now();
    await run.pool.proveBatch(prepared.get(OpKind.Membership)!, wrong);
    rtRuns.push(((performance.now() - s) * 1000) / wrong.length);
  }
  await run.pool.close();

  const prove = rates(run.proveMs, total);
  const perJobMs: PoolResult["perJobMs"] = {
    witness: medianOf(run.last, "witnessMs"),
    prove: medianOf(run.last, "proveMs"),
    encode: medianOf(run.last, "encodeMs"),
  };
  const res: PoolResult = {
    workers: w,
    startupMs: run.startupMs,
    prove,
    identical: run.mismatches === 0,
    mismatches: run.mismatches,
    perJobMs,
    roundTripUs: summary(rtRuns).median,
    cpuMsPerProof: summary(run.proveCpuMs.map((c) => c / total)),
  };
  if (withVerify) {
    perJobMs.verify = medianOf(run.verifyLast, "verifyMs");
    res.verify = rates(run.verifyMs, total);
    res.cpuMsPerVerify = summary(run.verifyCpuMs.map((c) => c / total));
    res.proveVerify = summary(run.proveMs.map((t, i) => (total * 1000) / (t + run.verifyMs[i]!)));
  }
  results.push(res);
  console.log(
    `${w} worker(s) prove           ${cell(prove)} proofs/s   CPU ${fmt(res.cpuMsPerProof.median)} ms per proof   bytes identical to serial: ${run.mismatches === 0 ? "yes" : `NO (${run.mismatches} differ)`}`,
  );
  if (res.verify && res.proveVerify) {
    console.log(
      `${w} worker(s) verify          ${cell(res.verify)} verifications/s   CPU ${fmt(res.cpuMsPerVerify!.median)} ms per verification`,
    );
    console.log(`${w} worker(s) prove + verify  ${cell(res.proveVerify)} proofs/s`);
  }
  console.log(
    `${w} worker(s) per job (worker, median ms): witness ${fmt(perJobMs.witness, 2)}, prove ${fmt(perJobMs.prove)}, encode ${fmt(perJobMs.encode, 2)}${perJobMs.verify !== undefined ? `, verify ${fmt(perJobMs.verify)}` : ""}; start + warm-up ${fmt(run.startupMs)} ms; round trip ${fmt(res.roundTripUs)} µs per job`,
  );
}

const capacityAfter = await machineSpeedup2(machineIterations);
const capacity = (capacityBefore + capacityAfter) / 2;
console.log(
  `machine: 2 threads of a pure integer loop run ${fmt(capacityBefore, 2)}× / ${fmt(capacityAfter, 2)}× as fast as 1 (before / after the pool runs; 2 = two free cores)`,
);

/** 2-worker / 1-worker rate of each pair of runs made back to back. */
const pairRatios = (() => {
  const a = runs.find((r) => r.workers === 1),
    b = runs.find((r) => r.workers === 2);
  return a && b ? summary(a.proveMs.map((t, i) => t / b.proveMs[i]!)) : undefined;
})();

const byWorkers = (w: number) => results.find((r) => r.workers === w);
const r1 = byWorkers(1),
  r2 = byWorkers(2);
if (r1 && r2) {
  console.log(
    `2 workers / 1 worker: ${fmt(r2.prove.median / r1.prove.median, 2)}× (back-to-back pairs ${pairRatios ? cell(pairRatios) : "—"})   2 workers / serial: ${fmt(r2.prove.median / serial.median, 2)}×`,
  );
  console.log(
    `CPU per proof, 2 workers / 1 worker: ${fmt(r2.cpuMsPerProof.median / r1.cpuMsPerProof.median, 2)} (1 = no parallel overhead; the wall-clock ratio is bounded by the CPU the machine has free)`,
  );
}

const path = writeResults("batch", {
  benchmark: "batch",
  conditions: cond,
  settings: {
    depth,
    jobsPerKind: perKind,
    jobsPerBatch: total,
    workerCounts,
    repeats,
    serialRepeats,
    verify: withVerify,
    availableParallelism: availableParallelism(),
    pool: "own worker_threads pool, one job per message, binary job encoding",
  },
  units: "rates in proofs (verifications) per second of wall time; times in ms unless named µs",
  prepareMs,
  sharing,
  jobEncodingUsPerJob: codec,
  serial: { rate: serial, wallMs: serialMs, cpuMsPerProof: serialCpuPerProof },
  pools: results,
  speedup2wOver1wPairs: pairRatios,
  machineTwoThreadSpeedup: { before: capacityBefore, after: capacityAfter },
});
progress(`wrote ${path}`);

const round = (x: number | undefined, d = 2) => (x === undefined ? NaN : Math.round(x * 10 ** d) / 10 ** d);
printHeadline({
  depth,
  jobs_per_kind: perKind,
  batch_serial_proofs_per_s: round(serial.median),
  batch_proofs_per_s_1w: round(r1?.prove.median),
  batch_proofs_per_s_2w: round(r2?.prove.median),
  batch_speedup_2w_vs_1w: round(r1 && r2 ? r2.prove.median / r1.prove.median : undefined),
  batch_speedup_2w_vs_serial: round(r2 ? r2.prove.median / serial.median : undefined),
  batch_verify_per_s_2w: round(r2?.verify?.median),
  batch_prove_verify_per_s_1w: round(r1?.proveVerify?.median),
  batch_prove_verify_per_s_2w: round(r2?.proveVerify?.median),
  batch_cpu_ms_per_proof_1w: round(r1?.cpuMsPerProof.median, 1),
  batch_cpu_ms_per_proof_2w: round(r2?.cpuMsPerProof.median, 1),
  load1_at_start: cond.load1,
  machine_2thread_speedup: round(capacity),
  bytes_identical: results.every((r) => r.identical) ? 1 : 0,
});
