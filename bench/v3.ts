/**
 * Profile v3 (docs/profile-v3.md) against profile v2 and against native replay of the same paths.
 *
 *   npm run bench -- v3 [--block 1024] [--block-base 20000] [--block-depths 48,24,32]
 *     [--agg 256] [--agg-depths 48] [--verify-calls 11] [--warmup 3] [--verifier-warmup 100]
 *     [--prove-calls 3] [--prove-warmup 1]
 *
 * Blocks (per depth of --block-depths; the first is the headline): a name-keyed registry (B 31)
 * holding the first --block-base records of data/npm-repos-100k.ndjson.gz; the next --block
 * records are registered as one block of inserts (one committed batch), proved as a v2 block
 * (`proveBlock`) and as a v3 block (`proveBlockV3`, default WHIR set, and once with the provable set for
 * its size), and checked: v2 with the witness (`verifyBlock` on the requests), v3 from the roots
 * and the update list alone (`verifyBlockV3`, the statements built from block.json's updates as
 * `ssgkr registry verify-block` builds them), and natively (the fastest replay this project can
 * write: every update's old and new root recomputed from its leaves and siblings in lock step
 * through the batched WASM permutation, then the chain compared). Verifier bytes: block.json (as
 * `prove-block --profile v3` writes it) + the proof.
 *
 * Aggregates (--agg operations of membership per depth of --agg-depths): v3 prove and verify from
 * (root, key, leaf) alone.
 *
 * Times are process CPU ms (`process.cpuUsage`), medians of --verify-calls calls (verifiers after
 * --verifier-warmup calls each, the steady state of a verifying process, in processes that hold
 * only the verifier's data, bench/children/verifier.ts: v3 with block.json and the proof, the
 * native replay then v2 with requests.json and the v2 proof; the first call is reported beside;
 * the v3 block check is also timed in this process after the provers and --warmup calls) or of
 * --prove-calls proofs after --prove-warmup (block provers, v2 and v3 alternately; the first proof
 * of each is reported beside) or of one proof (aggregate prover), one thread,
 * WASM kernels. The browser figure comes from `npm run bench -- web --v3-block 1024`. The last
 * stdout line is the headline JSON.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpRequest } from "../src/smt/operation.js";
import { goldenFixture } from "../src/smt/fixture.js";
import { OpKind } from "../src/statement/types.js";
import { NameStore } from "../src/registry/store/name-store.js";
import { importNames } from "../src/registry/import/name-import.js";
import { npmReposSource } from "../src/registry/import/dataset.js";
import { applyNameBlock, type BlockUpdate } from "../src/registry/name-block.js";
import { oldLeafRule, v3BlockUpdates } from "../src/registry/block-v3.js";
import { parseBlockDescription, updateJson } from "../src/registry/verify-block.js";
import { formatRoot } from "../src/registry/root.js";
import { prepareV2, proveBlock, updateRequestOf } from "../src/sync/v2/index.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  v3Soundness,
  type V3Timings,
} from "../src/sync/v3/index.js";
import { v3StatementOf } from "../src/smt/v3/input.js";
import { requestToJson } from "../src/sync/request.js";
import { fromOpRequest } from "../src/sync/request-convert.js";
import { PROVABLE_WHIR_SET } from "../src/pcs/params.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { cpuTimed, showStat, stat, type Stat } from "./lib/cpu.js";
import { int, ints, parseOptions } from "./lib/options.js";
import { runVerifierProcess } from "./lib/verifier-process.js";
import { npmInserts } from "./lib/npm-block.js";

const args = parseOptions(
  {
    block: int(1, 4096),
    "block-base": int(1, 90_000),
    "block-depths": ints(1, 48),
    agg: int(1, 4096),
    "agg-depths": ints(1, 64),
    "verify-calls": int(1, 1000),
    warmup: int(0, 100),
    "verifier-warmup": int(0, 10000),
    "prove-calls": int(1, 100),
    "prove-warmup": int(0, 100),
  },
  {
    smoke: {
      block: "4",
      "block-base": "10",
      "block-depths": "16",
      agg: "2",
      "agg-depths": "8",
      "verify-calls": "1",
      warmup: "0",
      "verifier-warmup": "0",
      "prove-calls": "1",
      "prove-warmup": "0",
    },
  },
);
const blockSize = Number(args.get("block") ?? 1024);
const blockBase = Number(args.get("block-base") ?? 20_000);
const blockDepths = (args.get("block-depths") ?? "48,24,32").split(",").map(Number);
const aggSize = Number(args.get("agg") ?? 256);
const aggDepths = (args.get("agg-depths") ?? "48").split(",").map(Number);
const verifyCalls = Number(args.get("verify-calls") ?? 11);
const warmup = Number(args.get("warmup") ?? 3);
const verifierWarmup = Number(args.get("verifier-warmup") ?? 100);
const proveCalls = Number(args.get("prove-calls") ?? 3);
const proveWarmup = Number(args.get("prove-warmup") ?? 1);

const cond = conditions();
console.log(conditionsLine(cond));

const cpu = cpuTimed;
const show = showStat;

interface BlockRow {
  depth: number;
  operations: number;
  registryRecords: number;
  /** Medians of the measured proofs. */
  v2ProveMs: number;
  v3ProveMs: number;
  v2Prove: Stat;
  v3Prove: Stat;
  /** The first proof of each in this process (cold: compilation, fresh memory). */
  v2FirstProveMs: number;
  v3FirstProveMs: number;
  v3Phases: V3Timings;
  v2VerifyMs: Stat;
  v3VerifyMs: Stat;
  /** The v3 check in the benchmark's own process, right after the provers. */
  v3VerifyInProverMs: Stat;
  /** The first v3 check of the verifier's process (cold). */
  v3FirstVerifyMs: number;
  nativeReplayMs: Stat;
  /** Wall-clock medians of the same calls (process CPU time also counts the runtime's helper threads). */
  v3VerifyWallMs: Stat;
  nativeReplayWallMs: Stat;
  v2Bytes: number;
  v2RequestsBytes: number;
  v3Bytes: number;
  v3BytesUd100: number;
  blockJsonBytes: number;
  securityBits: number;
}

async function blockBench(depth: number): Promise<BlockRow> {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-bench-v3-"));
  try {
    progress(`block d${depth}: registry of the first ${blockBase} npm records`);
    const store = NameStore.openOrCreate(join(dir, "db"), { depth });
    // (at small depths some names share a key: the import skips all but the first)
    await importNames(store, () => npmReposSource(blockBase), { threads: 0, onError: "skip" });
    const B = store.config.leafMaxFields;
    const updates = npmInserts(blockBase, blockSize, depth);
    const p2 = prepareV2(OpKind.Update, { depth, leafMaxFields: B });
    const p3 = prepareV3(OpKind.Update, { depth, leafMaxFields: B });
    progress(`block d${depth}: apply ${blockSize} inserts, prove v2 and v3`);
    let requests: OpRequest[] = [];
    let blockJson = "";
    let listed: BlockUpdate[] = [];
    let v2Bytes: Uint8Array = new Uint8Array(0),
      v3Bytes: Uint8Array = new Uint8Array(0),
      v3Ud: Uint8Array = new Uint8Array(0);
    let v2Prove: Stat = { median: 0, min: 0, max: 0 },
      v3Prove: Stat = { median: 0, min: 0, max: 0 },
      v2FirstMs = 0,
      v3FirstMs = 0;
    let v3Phases: V3Timings | undefined;
    const applied = applyNameBlock(store, updates, (a) => {
      requests = a.updates.map((u) => updateRequestOf(u.record, B));
      listed = a.updates.map((u) => ({
        op: u.update.op,
        name: u.update.name,
        ...(u.planned.newValue !== undefined ? { value: u.planned.newValue } : {}),
      }));
      const rules = a.updates.map((u) => oldLeafRule(u.update));
      // v2 and v3 alternately (which goes first alternates too), --prove-warmup rounds and then
      // --prove-calls measured ones: the steady state of a proving process
      const v2Times: number[] = [],
        v3Times: number[] = [];
      for (let r = 0; r < proveWarmup + proveCalls; r++) {
        const one = (which: "v2" | "v3"): void => {
          if (which === "v2") {
            const [bytes, t] = cpu(() => proveBlock(p2, requests));
            v2Bytes = bytes;
            if (r === 0) v2FirstMs = t;
            if (r >= proveWarmup) v2Times.push(t);
          } else {
            const [bytes, t] = cpu(() =>
              proveBlockV3(p3, requests, {
                rules,
                onTimings: (ph) => {
                  if (r >= proveWarmup) v3Phases = ph;
                },
              }),
            );
            v3Bytes = bytes;
            if (r === 0) v3FirstMs = t;
            if (r >= proveWarmup) v3Times.push(t);
          }
        };
        for (const which of r % 2 === 0 ? (["v2", "v3"] as const) : (["v3", "v2"] as const)) one(which);
      }
      v2Prove = stat(v2Times);
      v3Prove = stat(v3Times);
      v3Ud = proveBlockV3(p3, requests, { rules, pcsSet: PROVABLE_WHIR_SET });
      blockJson =
        JSON.stringify(
          {
            profile: "v3",
            kind: "block",
            depth,
            leaf_max_fields: B,
            operations: a.updates.length,
            batch: 0,
            from_root: formatRoot(a.fromRoot),
            to_root: formatRoot(a.toRoot),
            proof_bytes: v3Bytes.length,
            prove_ms: Math.round(v3Prove.median),
            updates: listed.map((u) => updateJson(u)),
          },
          null,
          2,
        ) + "\n";
    });
    await store.close();
    const roots = { fromRoot: applied.fromRoot, toRoot: applied.toRoot };
    const requestsJson = JSON.stringify(requests.map((r) => requestToJson(fromOpRequest(r, depth, B)))) + "\n";
    const requestsBytes = Buffer.byteLength(requestsJson);
    progress(
      `block d${depth}: verify in processes of their own (${verifierWarmup} warm-up + ${verifyCalls} calls each; v3 from block.json, then native replay and v2 from requests.json)`,
    );
    // Each verifier runs in a process holding only its own data: the v3 auditor's block.json and
    // proof; the witness holder's requests.json (every path) and v2 proof for the native replay
    // and the v2 check (v2, which allocates the most, last). Process CPU time counts the
    // collector's threads, so other data or garbage in the process would be charged to it.
    const fromRoot = formatRoot(applied.fromRoot),
      toRoot = formatRoot(applied.toRoot);
    const auditor = runVerifierProcess({ "block.json": blockJson, "block-v3.bin": v3Bytes }, (f) => ({
      what: "block",
      blockJson: f["block.json"]!,
      fromRoot,
      toRoot,
      proof: f["block-v3.bin"]!,
      warmup: verifierWarmup,
      calls: verifyCalls,
    }));
    const witness = runVerifierProcess({ "requests.json": requestsJson, "block-v2.bin": v2Bytes }, (f) => ({
      what: "block-witness",
      depth,
      leafMaxFields: B,
      fromRoot,
      toRoot,
      requests: f["requests.json"]!,
      v2Proof: f["block-v2.bin"]!,
      warmup: verifierWarmup,
      calls: verifyCalls,
    }));
    const times = {
      cpu: { ...auditor.cpu, ...witness.cpu },
      wall: { ...auditor.wall, ...witness.wall },
      first: { ...auditor.first, ...witness.first },
    };
    // The same v3 check inside this (the prover's) process, for comparison.
    const inProver: number[] = [];
    for (let r = 0; r < warmup + verifyCalls; r++) {
      const [ok, t] = cpu(
        () => verifyBlockV3(p3, roots, v3BlockUpdates(parseBlockDescription(blockJson).updates, depth, B), v3Bytes).ok,
      );
      if (!ok) throw new RangeError("the v3 verifier rejected the honest block");
      if (r >= warmup) inProver.push(t);
    }
    return {
      depth,
      operations: blockSize,
      registryRecords: blockBase,
      v2ProveMs: v2Prove.median,
      v3ProveMs: v3Prove.median,
      v2Prove,
      v3Prove,
      v2FirstProveMs: v2FirstMs,
      v3FirstProveMs: v3FirstMs,
      v3Phases: v3Phases!,
      v2VerifyMs: stat(times.cpu["v2"]!),
      v3VerifyMs: stat(times.cpu["v3"]!),
      v3VerifyInProverMs: stat(inProver),
      v3FirstVerifyMs: times.first["v3"]!,
      nativeReplayMs: stat(times.cpu["native"]!),
      v3VerifyWallMs: stat(times.wall["v3"]!),
      nativeReplayWallMs: stat(times.wall["native"]!),
      v2Bytes: v2Bytes.length,
      v2RequestsBytes: requestsBytes,
      v3Bytes: v3Bytes.length,
      v3BytesUd100: v3Ud.length,
      blockJsonBytes: Buffer.byteLength(blockJson),
      securityBits: v3Soundness(p3, blockSize).bits,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface AggRow {
  depth: number;
  operations: number;
  proveMs: number;
  verifyMs: Stat;
  bytes: number;
  phases: V3Timings;
}

function aggBench(depth: number): AggRow {
  progress(`aggregate of ${aggSize} memberships d${depth}`);
  const p = prepareV3(OpKind.Membership, { depth });
  const requests = Array.from({ length: aggSize }, (_, i) => goldenFixture(OpKind.Membership, depth, BigInt(i + 1)));
  const statements = requests.map((r) => v3StatementOf(r));
  let phases: V3Timings | undefined;
  const [bytes, proveMs] = cpu(() =>
    proveAggregateV3(p, requests, {
      onTimings: (t) => {
        phases = t;
      },
    }),
  );
  const ts = runVerifierProcess({ "aggregate.bin": bytes }, (f) => ({
    what: "aggregate",
    kind: "membership",
    depth,
    seeds: requests.map((_, i) => String(i + 1)),
    proof: f["aggregate.bin"]!,
    options: {},
    warmup: verifierWarmup,
    calls: verifyCalls,
  })).cpu["v3"]!;
  const check = verifyAggregateV3(p, statements, bytes);
  if (!check.ok) throw new RangeError(`the honest aggregate was rejected: ${check.code}`);
  return { depth, operations: aggSize, proveMs, verifyMs: stat(ts), bytes: bytes.length, phases: phases! };
}

const blocks: BlockRow[] = [];
for (const d of blockDepths) {
  const b = await blockBench(d);
  blocks.push(b);
  const ph = b.v3Phases;
  console.log(
    `block of ${b.operations} npm inserts d${b.depth} (registry of ${b.registryRecords}): v3 verify ${show(b.v3VerifyMs)} ms from the roots and block.json, v2 verify ${show(b.v2VerifyMs)} ms with the paths, native replay ${show(b.nativeReplayMs)} ms; v3 / native ${fmt(b.v3VerifyMs.median / b.nativeReplayMs.median, 3)} (wall: v3 ${show(b.v3VerifyWallMs)}, native ${show(b.nativeReplayWallMs)}); the v3 check's first call ${fmt(b.v3FirstVerifyMs, 1)} ms, in the prover's process ${show(b.v3VerifyInProverMs)} ms`,
  );
  console.log(
    `  prove v3 ${show(b.v3Prove)} ms (witness ${fmt(ph.witnessMs, 0)}, commit ${fmt(ph.commitMs, 0)}, layer values ${fmt(ph.evaluateMs, 0)}, GKR ${fmt(ph.gkrMs, 0)}, opening ${fmt(ph.openMs, 0)}, encode ${fmt(ph.encodeMs, 0)}), v2 ${show(b.v2Prove)} ms, v3 / v2 ${fmt(b.v3ProveMs / b.v2ProveMs, 2)} (medians of ${proveCalls} after ${proveWarmup} warm-up; first proofs in this process: v2 ${fmt(b.v2FirstProveMs, 0)}, v3 ${fmt(b.v3FirstProveMs, 0)})`,
  );
  console.log(
    `  verifier bytes v3 ${b.blockJsonBytes + b.v3Bytes} (block.json ${b.blockJsonBytes} + proof ${b.v3Bytes}; with ${PROVABLE_WHIR_SET} proof ${b.v3BytesUd100}), v2 ${b.blockJsonBytes + b.v2Bytes + b.v2RequestsBytes} (proof ${b.v2Bytes} + requests.json ${b.v2RequestsBytes} + block.json); ${fmt(b.securityBits, 1)} bits`,
  );
}
const aggs: AggRow[] = [];
for (const d of aggDepths) {
  const a = aggBench(d);
  aggs.push(a);
  console.log(
    `aggregate of ${a.operations} memberships d${a.depth}: verify ${show(a.verifyMs)} ms from (root, key, leaf), prove ${fmt(a.proveMs, 0)} ms, ${a.bytes} B`,
  );
}

const path = writeResults("v3", {
  conditions: cond,
  blockSize,
  blockBase,
  verifyCalls,
  warmup,
  proveCalls,
  proveWarmup,
  blocks,
  aggregates: aggs,
});
console.log(`# full results: ${path}`);
const head: Record<string, number | string | null> = { load1: cond.load1 };
const b0 = blocks[0];
if (b0) {
  const k = `v3_block${b0.operations}`;
  Object.assign(head, {
    block_depth: b0.depth,
    [`${k}_verify_ms`]: +b0.v3VerifyMs.median.toFixed(1),
    [`${k}_verify_over_native_replay`]: +(b0.v3VerifyMs.median / b0.nativeReplayMs.median).toFixed(3),
    [`${k}_native_replay_ms`]: +b0.nativeReplayMs.median.toFixed(1),
    [`${k}_verify_wall_ms`]: +b0.v3VerifyWallMs.median.toFixed(1),
    [`${k}_verify_in_prover_process_ms`]: +b0.v3VerifyInProverMs.median.toFixed(1),
    [`${k}_verify_first_ms`]: +b0.v3FirstVerifyMs.toFixed(1),
    [`${k}_native_replay_wall_ms`]: +b0.nativeReplayWallMs.median.toFixed(1),
    [`${k}_v2_verify_ms`]: +b0.v2VerifyMs.median.toFixed(1),
    [`${k}_verifier_bytes`]: b0.blockJsonBytes + b0.v3Bytes,
    [`${k}_verifier_bytes_ud100`]: b0.blockJsonBytes + b0.v3BytesUd100,
    [`${k}_prove_ms`]: +b0.v3ProveMs.toFixed(0),
    [`${k}_prove_over_v2`]: +(b0.v3ProveMs / b0.v2ProveMs).toFixed(2),
    [`${k}_v2_prove_ms`]: +b0.v2ProveMs.toFixed(0),
    [`${k}_prove_first_ms`]: +b0.v3FirstProveMs.toFixed(0),
    [`${k}_v2_prove_first_ms`]: +b0.v2FirstProveMs.toFixed(0),
    [`${k}_verify_browser_ms`]: null,
  });
  for (const b of blocks.slice(1))
    Object.assign(head, {
      [`v3_block${b.operations}_d${b.depth}_verify_ms`]: +b.v3VerifyMs.median.toFixed(1),
      [`v3_block${b.operations}_d${b.depth}_prove_ms`]: +b.v3ProveMs.toFixed(0),
    });
}
const a0 = aggs[0];
if (a0)
  Object.assign(head, {
    [`v3_agg${a0.operations}_verify_ms`]: +a0.verifyMs.median.toFixed(1),
    [`v3_agg${a0.operations}_prove_ms`]: +a0.proveMs.toFixed(0),
    [`v3_agg${a0.operations}_bytes`]: a0.bytes,
    agg_depth: a0.depth,
  });
printHeadline(head);
