/**
 * Profile v2 against compat-v1, measured in one run (docs/profile-v2.md).
 *
 *   npm run bench -- v2 [--kinds membership,nonmembership,update] [--depths 24,32,48]
 *     [--repeats 15] [--warmup 10] [--agg 256,1024] [--agg-kinds membership] [--agg-depth 24]
 *     [--agg-threads 2] [--agg-batches 4] [--block 1024] [--block-base 20000] [--block-depth 48]
 *
 * Single operations, per (kind, depth): the golden fixture F(kind, d, 5); prepared, warm,
 * single thread; compat = prepare() (derived wiring) + provePrepared + encodeSyncResult, and
 * verifyEncoded; v2 = prepareV2() (closed-form wiring) + proveV2 + encodeV2, and verifyEncodedV2.
 * The four are timed in interleaved rounds (one call per sample, `repeats` rounds after `warmup`
 * interleaved warm-up rounds, default 10, so that every path is JIT-compiled before it is timed;
 * the aggregate ratios divide by these warm compat figures), so load changes affect them alike;
 * times are median (fastest–slowest) ms.
 *
 * Aggregates, per size K in --agg (kinds --agg-kinds, depth --agg-depth): K distinct requests
 * F(kind, d, i) (i < K), three proveAggregate calls on one thread (the median reported, witness
 * and encoding included, split by phase) and three timed verifyAggregate calls (median; with
 * --warmup N ≥ 2 they follow the cold call and N untimed ones, so they are JIT-warm like the
 * single-operation figures; otherwise the first of the three is the cold one), compared with the
 * same run's single compat figures of that kind and depth. Throughput, for the largest size K:
 * --agg-batches aggregates of K distinct requests proved on a pool of --agg-threads worker threads
 * (`AggregatePool.proveAggregates`, default one per core; 0 skips it) after one warm-up aggregate per
 * thread; ops/s = batches·K / wall clock from handing over the requests (encoding them for the
 * workers included) to having every proof's bytes (witness and encoding included); the first
 * batch's bytes are checked against the one-thread proof of the same requests.
 *
 * Block (--block K, 0 skips it): a name-keyed registry (depth --block-depth, B 31) holding the
 * first --block-base records of data/npm-repos-100k.ndjson.gz; the next K records of the file are
 * registered as one block of K inserts (applyNameBlock: one committed batch), proved with
 * proveBlock and checked with verifyBlock (three calls, median), proof bytes.
 *
 * Headline (last stdout line): ratios at d24 membership with the absolute milliseconds beside them,
 * agg256 and agg1024 figures when those sizes are run; `agg1024_ops_per_s` is the throughput on
 * the pool (`agg1024_ops_per_s_one_thread` the one-thread latency's rate, `agg_threads` the pool's
 * size beside them).
 */
import { availableParallelism } from "node:os";
import { createAggregatePool } from "../src/sync/v2/index.js";
import { goldenFixture } from "../src/smt/fixture.js";
import { prepare } from "../src/sync/prepared.js";
import { provePrepared } from "../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../src/sync/encoded.js";
import { OP_KIND_NAMES, type OpKind, type OpKindName } from "../src/statement/types.js";
import {
  encodeV2,
  prepareV2,
  proveAggregate,
  proveV2,
  verifyAggregate,
  verifyEncodedV2,
  type AggregateTimings,
} from "../src/sync/v2/index.js";
import { circuitGateTerms } from "../src/gkr/structured/linear.js";
import {
  conditions,
  conditionsLine,
  fmt,
  machineSpeedup2,
  printHeadline,
  progress,
  writeResults,
  type Timing,
} from "./lib/index.js";
import { choices, int, ints, parseOptions } from "./lib/options.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { NameStore } from "../src/registry/store/name-store.js";
import { importNames } from "../src/registry/import/name-import.js";
import { npmReposSource, npmReposSubsetPath } from "../src/registry/import/dataset.js";
import { applyNameBlock, type BlockUpdate } from "../src/registry/name-block.js";
import { OpKind as Kinds } from "../src/statement/types.js";
import { proveBlock, updateRequestOf, verifyBlock } from "../src/sync/v2/index.js";
import type { OpRequest } from "../src/smt/operation.js";

const args = parseOptions(
  {
    kinds: choices(OP_KIND_NAMES),
    depths: ints(1, 64),
    repeats: int(1, 10_000),
    warmup: int(0, 1000),
    agg: ints(1, 4096),
    "agg-kinds": choices(OP_KIND_NAMES),
    "agg-depth": int(1, 64),
    "agg-threads": int(0, 64),
    "agg-batches": int(1, 64),
    block: int(0, 4096),
    "block-base": int(1, 90_000),
    "block-depth": int(1, 48),
  },
  {
    smoke: {
      kinds: "membership",
      depths: "4",
      repeats: "1",
      warmup: "0",
      agg: "2",
      "agg-depth": "4",
      "agg-threads": "0",
      "agg-batches": "1",
      block: "2",
      "block-base": "10",
      "block-depth": "24",
    },
  },
);
const kindList = (s: string) =>
  s.split(",").map((k) => {
    if (!OP_KIND_NAMES.includes(k as OpKindName))
      throw new Error(`unknown kind ${k} (known: ${OP_KIND_NAMES.join(", ")})`);
    return k as OpKindName;
  });
const kinds = kindList(args.get("kinds") ?? OP_KIND_NAMES.join(","));
const depths = (args.get("depths") ?? "24,32,48").split(",").map(Number);
const repeats = Number(args.get("repeats") ?? 15);
const warmup = Number(args.get("warmup") ?? 10);
const aggSizes = (args.get("agg") ?? "256,1024")
  .split(",")
  .filter((s) => s !== "")
  .map(Number);
const aggKinds = kindList(args.get("agg-kinds") ?? "membership");
const aggDepth = Number(args.get("agg-depth") ?? 24);
const aggThreads = Number(args.get("agg-threads") ?? availableParallelism());
const aggBatches = Number(args.get("agg-batches") ?? 4);
const blockSize = Number(args.get("block") ?? 1024);
const blockBase = Number(args.get("block-base") ?? 20_000);
const blockDepth = Number(args.get("block-depth") ?? 48);
for (const d of [...depths, aggDepth])
  if (!Number.isInteger(d) || d < 1 || d > 64) throw new Error(`depth must be an integer in [1, 64], got ${d}`);
for (const k of aggSizes)
  if (!Number.isInteger(k) || k < 1 || k > 4096)
    throw new Error(`aggregate sizes must be integers in [1, 4096], got ${k}`);
if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, got ${repeats}`);

function summarise(xs: number[]): Timing {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, callsPerSample: 1, samples: xs };
}

function interleaved(fns: Record<string, () => unknown>, rounds: number): Record<string, Timing> {
  const names = Object.keys(fns);
  for (let w = 0; w < Math.max(1, warmup); w++) for (const n of names) fns[n]!();
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of names) {
      const t0 = performance.now();
      fns[n]!();
      samples[n]!.push(performance.now() - t0);
    }
  }
  return Object.fromEntries(names.map((n) => [n, summarise(samples[n]!)]));
}

interface SingleRow {
  kind: OpKindName;
  depth: number;
  compatLayers: number;
  v2Layers: number;
  v2GateTerms: number;
  compatGates: number;
  compatBytes: number;
  v2Bytes: number;
  compatProveMs: Timing;
  v2ProveMs: Timing;
  compatVerifyMs: Timing;
  v2VerifyMs: Timing;
  v2ProveSplitMs: { witness: number; gkrAndEncode: number };
}

interface AggRow {
  kind: OpKindName;
  depth: number;
  operations: number;
  /** Median of three single-thread proofs (fastest, slowest beside it). */
  proveMs: number;
  proveRangeMs: [number, number];
  perOpMs: number;
  verifyMs: number;
  verifyColdMs: number;
  bytes: number;
  opsPerS: number;
  phases: AggregateTimings;
  compatProveMs: number;
  compatVerifyMs: number;
  compatBytes: number;
  /** The pool's throughput for this size (largest size only). */
  throughput: ThroughputRow | null;
}

interface ThroughputRow {
  threads: number;
  batches: number;
  operations: number;
  wallMs: number;
  opsPerS: number;
  warmMs: number;
  /** Worker time per phase, median over the batches (ms). */
  workerMs: { decode: number; witness: number; gkr: number; encode: number };
  load1Before: number;
  load1After: number;
  /** 2 threads of a pure integer loop against 1, just before and after the timed run (2 = two free cores). */
  machineSpeedup2: [number, number];
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# single operations: ${repeats} interleaved rounds after ${Math.max(1, warmup)} warm-up rounds, one call per sample, ms median (fastest–slowest); aggregates: three proofs and three verifications each (median${warmup >= 2 ? `, after the cold one and ${warmup} untimed ones` : ", the first cold"}), single thread; throughput of the largest aggregate: ${aggThreads > 0 ? `${aggBatches} aggregates on ${aggThreads} worker threads` : "skipped"}`,
);
const t = (x: Timing) => `${fmt(x.median, 1)} (${fmt(x.min, 1)}–${fmt(x.max, 1)})`;
const singles: SingleRow[] = [];
const compatOf = new Map<string, { prove: number; verify: number; bytes: number }>();

for (const depth of depths) {
  for (const kindName of kinds) {
    progress(`${kindName} d${depth}: prepare compat and v2`);
    const kind = kindName as OpKind;
    const compat = prepare(kind, { depth });
    const v2 = prepareV2(kind, { depth });
    const req = goldenFixture(kind, depth, 5n);
    const compatBytes = encodeSyncResult(compat, provePrepared(compat, req));
    const v2Bytes = encodeV2(v2, proveV2(v2, req));
    if (!verifyEncoded(compat, req, compatBytes).ok || !verifyEncodedV2(v2, req, v2Bytes).ok)
      throw new Error(`${kindName} d${depth}: an honest proof does not verify`);
    progress(`${kindName} d${depth}: timing`);
    const split = { witness: [] as number[], gkr: [] as number[] };
    const tm = interleaved(
      {
        compatProve: () => encodeSyncResult(compat, provePrepared(compat, req)),
        v2Prove: () =>
          encodeV2(
            v2,
            proveV2(v2, req, (x) => {
              split.witness.push(x.witnessMs);
              split.gkr.push(x.proveMs);
            }),
          ),
        compatVerify: () => verifyEncoded(compat, req, compatBytes),
        v2Verify: () => verifyEncodedV2(v2, req, v2Bytes),
      },
      repeats,
    );
    const row: SingleRow = {
      kind: kindName,
      depth,
      compatLayers: compat.circuit.layers.length,
      v2Layers: v2.compiled.circuit.layers.length,
      v2GateTerms: circuitGateTerms(v2.compiled.circuit),
      compatGates: compat.circuit.layers.reduce((a, l) => a + l.gateKind.length, 0),
      compatBytes: compatBytes.length,
      v2Bytes: v2Bytes.length,
      compatProveMs: tm.compatProve!,
      v2ProveMs: tm.v2Prove!,
      compatVerifyMs: tm.compatVerify!,
      v2VerifyMs: tm.v2Verify!,
      v2ProveSplitMs: { witness: summarise(split.witness).median, gkrAndEncode: summarise(split.gkr).median },
    };
    singles.push(row);
    compatOf.set(`${kindName}/${depth}`, {
      prove: row.compatProveMs.median,
      verify: row.compatVerifyMs.median,
      bytes: row.compatBytes,
    });
    console.log(
      `${kindName} d${depth}: layers ${row.compatLayers} → ${row.v2Layers}; gates ${row.compatGates} → gate terms ${row.v2GateTerms}; bytes ${row.compatBytes} → ${row.v2Bytes} (${fmt(row.v2Bytes / row.compatBytes, 3)}×)`,
    );
    console.log(
      `  prove  compat ${t(row.compatProveMs)}  v2 ${t(row.v2ProveMs)}  (${fmt(row.v2ProveMs.median / row.compatProveMs.median, 3)}×; v2 witness ${fmt(row.v2ProveSplitMs.witness, 1)} + GKR ${fmt(row.v2ProveSplitMs.gkrAndEncode, 1)})`,
    );
    console.log(
      `  verify compat ${t(row.compatVerifyMs)}  v2 ${t(row.v2VerifyMs)}  (${fmt(row.v2VerifyMs.median / row.compatVerifyMs.median, 3)}×)`,
    );
  }
}

const aggs: AggRow[] = [];
for (const kindName of aggKinds) {
  const kind = kindName as OpKind;
  let c = compatOf.get(`${kindName}/${aggDepth}`);
  if (!c) {
    progress(`${kindName} d${aggDepth}: compat reference for the aggregates`);
    const compat = prepare(kind, { depth: aggDepth });
    const req = goldenFixture(kind, aggDepth, 5n);
    const bytes = encodeSyncResult(compat, provePrepared(compat, req));
    const tm = interleaved(
      {
        prove: () => encodeSyncResult(compat, provePrepared(compat, req)),
        verify: () => verifyEncoded(compat, req, bytes),
      },
      repeats,
    );
    c = { prove: tm.prove!.median, verify: tm.verify!.median, bytes: bytes.length };
    compatOf.set(`${kindName}/${aggDepth}`, c);
  }
  const v2 = prepareV2(kind, { depth: aggDepth });
  for (const n of aggSizes) {
    progress(`${kindName} d${aggDepth}: aggregate of ${n}`);
    const requests = Array.from({ length: n }, (_, i) =>
      goldenFixture(kind, aggDepth, BigInt(i) % (1n << BigInt(Math.min(aggDepth, 62)))),
    );
    // Three proofs (single thread), the median reported with its phases.
    const proofs: { ms: number; phases: AggregateTimings }[] = [];
    let bytes: Uint8Array = new Uint8Array(0);
    for (let r = 0; r < 3; r++) {
      let ph: AggregateTimings | undefined;
      const tp = performance.now();
      bytes = proveAggregate(v2, requests, (x) => {
        ph = x;
      });
      proofs.push({ ms: performance.now() - tp, phases: ph! });
    }
    const proveTiming = summarise(proofs.map((x) => x.ms));
    const medianProof = [...proofs].sort((a, b) => a.ms - b.ms)[1]!;
    const phases = medianProof.phases;
    const proveMs = medianProof.ms;
    // With --warmup ≥ 2 the three timed verifications follow the cold one and --warmup untimed
    // ones (JIT-warm, as the single-operation figures); otherwise the cold one is the first of three.
    const aggWarmup = warmup >= 2 ? warmup : 0;
    const verifies: number[] = [];
    let verifyColdMs = 0;
    for (let r = 0; r < (aggWarmup > 0 ? 1 + aggWarmup : 0) + 3; r++) {
      const tv = performance.now();
      const verdict = verifyAggregate(v2, requests, bytes);
      const ms = performance.now() - tv;
      if (r === 0) verifyColdMs = ms;
      if (aggWarmup === 0 || r > aggWarmup) verifies.push(ms);
      if (!verdict.ok) throw new Error(`aggregate of ${n} does not verify: ${verdict.code}`);
    }
    const verify = summarise(verifies);
    const row: AggRow = {
      kind: kindName,
      depth: aggDepth,
      operations: n,
      proveMs,
      proveRangeMs: [proveTiming.min, proveTiming.max],
      perOpMs: proveMs / n,
      verifyMs: verify.median,
      verifyColdMs,
      bytes: bytes.length,
      opsPerS: n / (proveMs / 1000),
      phases,
      compatProveMs: c.prove,
      compatVerifyMs: c.verify,
      compatBytes: c.bytes,
      throughput: aggThreads > 0 && n === Math.max(...aggSizes) ? await throughput(v2, kind, n, requests, bytes) : null,
    };
    aggs.push(row);
    const tp = row.throughput;
    if (tp)
      console.log(
        `  throughput × ${n}: ${tp.batches} aggregates on ${tp.threads} threads in ${fmt(tp.wallMs, 0)} ms wall = ${fmt(tp.opsPerS, 1)} ops/s (one thread ${fmt(row.opsPerS, 1)} ops/s: ${fmt(tp.opsPerS / row.opsPerS, 2)}×); per aggregate in its worker, median: decode ${fmt(tp.workerMs.decode, 0)}, witness ${fmt(tp.workerMs.witness, 0)}, GKR ${fmt(tp.workerMs.gkr, 0)}, encode ${fmt(tp.workerMs.encode, 1)} ms; warm-up ${fmt(tp.warmMs, 0)} ms; load ${tp.load1Before} → ${tp.load1After}; machine: 2 threads of an integer loop ran ${fmt(tp.machineSpeedup2[0], 2)}× / ${fmt(tp.machineSpeedup2[1], 2)}× as fast as 1 (before / after; 2 = two free cores)`,
      );
    console.log(
      `aggregate ${kindName} d${aggDepth} × ${n}: prove ${fmt(row.proveMs, 0)} ms median of 3 (${fmt(row.proveRangeMs[0], 0)}–${fmt(row.proveRangeMs[1], 0)}; ${fmt(row.perOpMs, 2)} ms/op = ${fmt(row.perOpMs / c.prove, 3)}× one compat prove; circuit ${fmt(phases.circuitMs, 0)}, witness ${fmt(phases.witnessMs, 0)} (layer values ${fmt(phases.evaluateMs, 0)}), GKR ${fmt(phases.proveMs, 0)}, encode ${fmt(phases.encodeMs, 1)}), verify ${fmt(row.verifyMs, 0)} ms median of 3, first ${fmt(row.verifyColdMs, 0)} ms (${fmt(row.verifyMs / c.verify, 2)}× one compat verify), ${row.bytes} B (${fmt(row.bytes / c.bytes, 3)}× one compat proof), ${fmt(row.opsPerS, 1)} ops/s`,
    );
  }
}

/** --agg-batches aggregates of n distinct requests on a pool of --agg-threads workers (see the module comment). */
async function throughput(
  v2: ReturnType<typeof prepareV2>,
  kind: OpKind,
  n: number,
  first: readonly OpRequest[],
  firstBytes: Uint8Array,
): Promise<ThroughputRow> {
  progress(`${kind} d${aggDepth}: ${aggBatches} aggregates of ${n} on ${aggThreads} threads`);
  const span = 1n << BigInt(Math.min(aggDepth, 62));
  const batches = Array.from({ length: aggBatches }, (_, b) =>
    b === 0 ? first : Array.from({ length: n }, (_, i) => goldenFixture(kind, aggDepth, BigInt(b * n + i) % span)),
  );
  const pool = createAggregatePool({ workers: aggThreads });
  try {
    const tw = performance.now();
    const warm = await pool.proveAggregates(
      v2,
      batches
        .slice(0, aggThreads)
        .concat(Array.from({ length: Math.max(0, aggThreads - batches.length) }, () => first)),
    );
    const warmMs = performance.now() - tw;
    for (const o of warm) if (!o.ok) throw new Error(`warm-up aggregate failed: ${o.error.code} ${o.error.message}`);
    const speedBefore = await machineSpeedup2(1e8);
    const load1Before = conditions().load1;
    const t0 = performance.now();
    const out = await pool.proveAggregates(v2, batches);
    const wallMs = performance.now() - t0;
    const load1After = conditions().load1;
    const speedAfter = await machineSpeedup2(1e8);
    out.forEach((o, i) => {
      if (!o.ok) throw new Error(`aggregate ${i} failed on the pool: ${o.error.code} ${o.error.message}`);
    });
    const ok = out.map((o) => (o.ok ? o : null)!);
    if (Buffer.compare(Buffer.from(ok[0]!.bytes), Buffer.from(firstBytes)) !== 0)
      throw new Error("the pool's aggregate differs from the one-thread proof of the same requests");
    const med = (f: (t: (typeof ok)[number]["timings"]) => number) => summarise(ok.map((o) => f(o.timings))).median;
    return {
      threads: aggThreads,
      batches: aggBatches,
      operations: n * aggBatches,
      wallMs,
      opsPerS: (n * aggBatches) / (wallMs / 1000),
      warmMs,
      workerMs: {
        decode: med((t) => t.decodeMs),
        witness: med((t) => t.witnessMs),
        gkr: med((t) => t.proveMs),
        encode: med((t) => t.encodeMs),
      },
      load1Before,
      load1After,
      machineSpeedup2: [speedBefore, speedAfter],
    };
  } finally {
    await pool.close();
  }
}

interface BlockRow {
  operations: number;
  depth: number;
  registryRecords: number;
  importMs: number;
  prepareMs: number;
  applyMs: number;
  proveMs: number;
  phases: AggregateTimings;
  verifyMs: number;
  verifyColdMs: number;
  bytes: number;
}

/** Records [from, from + n) of the bundled npm subset as block inserts. */
function npmInserts(from: number, n: number): BlockUpdate[] {
  const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n");
  if (from + n > lines.length - 1)
    throw new Error(`the npm subset has ${lines.length - 1} records, fewer than ${from + n}`);
  return lines.slice(from, from + n).map((l) => {
    const r = JSON.parse(l) as { name: string; value: string | null };
    return { op: "insert", name: r.name, value: r.value };
  });
}

async function blockBench(): Promise<BlockRow> {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-bench-block-"));
  try {
    progress(`block: registry of the first ${blockBase} npm records (depth ${blockDepth})`);
    const ti = performance.now();
    const store = NameStore.openOrCreate(join(dir, "db"), { depth: blockDepth });
    await importNames(store, () => npmReposSource(blockBase), { threads: 0 });
    const importMs = performance.now() - ti;
    const updates = npmInserts(blockBase, blockSize);
    const tp = performance.now();
    const prepared = prepareV2(Kinds.Update, { depth: blockDepth, leafMaxFields: store.config.leafMaxFields });
    const prepareMs = performance.now() - tp;
    progress(`block: apply and prove ${blockSize} inserts`);
    let requests: OpRequest[] = [];
    let bytes: Uint8Array = new Uint8Array(0);
    let phases: AggregateTimings | undefined;
    let applyMs = 0,
      proveMs = 0;
    const ta = performance.now();
    const applied = applyNameBlock(store, updates, (a) => {
      applyMs = performance.now() - ta;
      requests = a.updates.map((u) => updateRequestOf(u.record, store.config.leafMaxFields));
      const t0 = performance.now();
      bytes = proveBlock(prepared, requests, (x) => {
        phases = x;
      });
      proveMs = performance.now() - t0;
    });
    await store.close();
    progress("block: verify");
    const verifies: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const v = verifyBlock({ fromRoot: applied.fromRoot, toRoot: applied.toRoot }, requests, bytes, { prepared });
      verifies.push(performance.now() - t0);
      if (!v.ok) throw new Error(`the block proof does not verify: ${v.code} ${v.reason}`);
    }
    return {
      operations: blockSize,
      depth: blockDepth,
      registryRecords: blockBase,
      importMs,
      prepareMs,
      applyMs,
      proveMs,
      phases: phases!,
      verifyMs: summarise(verifies).median,
      verifyColdMs: verifies[0]!,
      bytes: bytes.length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const blockRow = blockSize > 0 ? await blockBench() : undefined;
if (blockRow) {
  const b = blockRow;
  console.log(
    `block of ${b.operations} npm inserts (registry of ${b.registryRecords} records, depth ${b.depth}): apply ${fmt(b.applyMs, 0)} ms, prove ${fmt(b.proveMs, 0)} ms (witness ${fmt(b.phases.witnessMs, 0)}, GKR ${fmt(b.phases.proveMs, 0)}, encode ${fmt(b.phases.encodeMs, 1)}; ${fmt(b.operations / (b.proveMs / 1000), 1)} updates/s), verify ${fmt(b.verifyMs, 0)} ms median of 3 (first ${fmt(b.verifyColdMs, 0)}), ${b.bytes} B`,
  );
}

const path = writeResults("v2", {
  conditions: cond,
  repeats,
  warmup: Math.max(1, warmup),
  singles,
  aggregates: aggs,
  block: blockRow ?? null,
});
console.log(`# full results: ${path}`);
const head: Record<string, number | string> = { load1: cond.load1 };
const m = singles.find((r) => r.kind === "membership" && r.depth === 24) ?? singles[0];
if (m) {
  Object.assign(head, {
    reference: `${m.kind} d${m.depth}`,
    v2_over_compat_prove: +(m.v2ProveMs.median / m.compatProveMs.median).toFixed(3),
    v2_prove_ms: +m.v2ProveMs.median.toFixed(1),
    compat_prove_ms: +m.compatProveMs.median.toFixed(1),
    v2_over_compat_verify: +(m.v2VerifyMs.median / m.compatVerifyMs.median).toFixed(3),
    v2_verify_ms: +m.v2VerifyMs.median.toFixed(1),
    compat_verify_ms: +m.compatVerifyMs.median.toFixed(1),
    v2_over_compat_bytes: +(m.v2Bytes / m.compatBytes).toFixed(3),
    v2_bytes: m.v2Bytes,
    compat_bytes: m.compatBytes,
    v2_layers: m.v2Layers,
    compat_layers: m.compatLayers,
  });
}
const a256 = aggs.find((a) => a.operations === 256 && a.kind === "membership");
if (a256) {
  Object.assign(head, {
    agg256_per_op_over_compat_prove: +(a256.perOpMs / a256.compatProveMs).toFixed(3),
    agg256_per_op_ms: +a256.perOpMs.toFixed(2),
    agg256_verify_over_compat_verify: +(a256.verifyMs / a256.compatVerifyMs).toFixed(3),
    agg256_verify_ms: +a256.verifyMs.toFixed(1),
    agg256_bytes_over_compat_bytes: +(a256.bytes / a256.compatBytes).toFixed(3),
    agg256_bytes: a256.bytes,
  });
}
const a1024 = aggs.find((a) => a.operations === 1024 && a.kind === "membership");
if (a1024)
  Object.assign(head, {
    agg1024_ops_per_s: +(a1024.throughput?.opsPerS ?? a1024.opsPerS).toFixed(1),
    agg1024_ops_per_s_one_thread: +a1024.opsPerS.toFixed(1),
    agg_threads: a1024.throughput?.threads ?? 1,
    ...(a1024.throughput
      ? {
          agg_throughput_batches: a1024.throughput.batches,
          agg1024_throughput_wall_ms: +a1024.throughput.wallMs.toFixed(0),
          agg_machine_speedup2: +Math.min(...a1024.throughput.machineSpeedup2).toFixed(2),
        }
      : {}),
    agg1024_prove_ms: +a1024.proveMs.toFixed(0),
    agg1024_verify_ms: +a1024.verifyMs.toFixed(0),
    agg1024_bytes: a1024.bytes,
  });
if (blockRow)
  Object.assign(head, {
    [`block${blockRow.operations}_prove_ms`]: +blockRow.proveMs.toFixed(0),
    [`block${blockRow.operations}_verify_ms`]: +blockRow.verifyMs.toFixed(0),
    [`block${blockRow.operations}_bytes`]: blockRow.bytes,
    block_depth: blockRow.depth,
  });
printHeadline(head);
