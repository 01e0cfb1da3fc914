/**
 * The WHIR polynomial commitment (src/pcs) beside whir-p3's figures on this machine kind.
 *
 *   npm run bench -- pcs [--variables 22] [--sets cb90-r4,ud100-r4,cb100-r4-s3-l24-f6,ud100-r4-s3-l24-f6]
 *     [--repeats 5] [--verify-calls 11] [--verify-warmup 100] [--selfcheck-variables 10] [--threads N]
 *     [--block 1024] [--block-depth 48] [--block-base 20000] [--block-calls 3] [--full] [--pool-only]
 *
 * Per cell (m variables, parameter set): 2^m random base-field evaluations; `repeats` times:
 * `whirCommit`, `whirOpen` of two claims f(z_1) = v_1, f(z_2) = v_2 at random z_i ∈ K^m (as GKR
 * ends with x* and y*; the values from the coefficients, untimed), and `releaseWhirState` once the
 * proof is encoded, as a prover that proves again does (the v3 block prover), so that a repetition
 * reuses the pages of the previous one's plain copies; then, after a pause, `verify-warmup`
 * calls not counted (the verifier's code compiled) and `verify-calls` calls of `whirVerify` per
 * repetition's proof, timed by groups of `VERIFY_GROUP` calls (a call of about 2 ms is below what
 * the process's CPU clock resolves alone): a verification's time is its group's CPU over its calls.
 * Times are process CPU ms (`process.cpuUsage`), median (min–max); one thread,
 * WASM kernels. The commit + open time is split by prover phase (src/pcs/phases.ts: encoding,
 * Merkle hashing, grinding, sumcheck, folding, weights, evaluation, transcript, input copies,
 * queries; "other" = wall minus the phases, wall ms).
 * Without `--repeats`, a cell whose first commit + open takes over 20 s CPU gets 3 repetitions.
 * `--full`: m = 16, 18, 20, 22 × all six sets (cells above a set's limit are skipped).
 *
 * Pool figure (cb90-r4 and the default set at the largest m, and in `--full` every m of those
 * sets): commit + open wall ms on one thread (`workers: null`) and with a worker pool of
 * `--threads` workers (default one less than the available cores, at least 1; src/pcs-workers),
 * alternating, median of `repeats`; the proof bytes of the two are checked equal; phases (wall)
 * of each. `pcs22_scaling_2t` is the default set's one-thread wall over its pool wall.
 * `--pool-only`: the pool figure alone (no self-check, no per-set cells, no block), for the sets of `--sets`
 * when given (else cb90-r4 and the default set), e.g. `npm run bench -- pcs --pool-only --sets
 * cb100-r4-s3-l24-f6 --repeats 3` for `pcs22_scaling_2t` in about a tenth of the full run's time.
 *
 * Block (skipped with `--block 0`): a v3 block of `block` npm inserts into a registry of the first
 * `block-base` npm records at `block-depth` (bench/lib/npm-block.ts), proved on one thread with the
 * default set and with the former default `cb100-r4-s3` (Poseidon2-16 leaves), one proof of each
 * not counted, then `block-calls` of each alternating (which goes first alternates too); process
 * CPU ms, medians → `v3_block1024_prove_over_old_set` (default over former default).
 *
 * Self-check (at `selfcheck-variables`, default set): honest openings accepted; a wrong claimed
 * value, a changed opened Merkle row and a changed sumcheck h(0) rejected.
 */
import { extAdd, extRandom, type Ext } from "../src/field/extension.js";
import {
  decodeWhirCommitment,
  decodeWhirProof,
  encodeWhirCommitment,
  encodeWhirProof,
  maxVariables,
  whirCommit,
  whirOpen,
  releaseWhirState,
  whirParameterSet,
  whirParameterSets,
  whirSecurity,
  whirVerify,
  DEFAULT_WHIR_SET,
  PROVABLE_WHIR_SET,
  type WhirClaim,
  type WhirProof,
  type WhirSetId,
} from "../src/pcs/index.js";
import { evaluateCoefficients, evaluationsToCoefficients, liftToExtension } from "../src/pcs/multilinear.js";
import { withPhaseTimer, type PcsPhase } from "../src/pcs/phases.js";
import { hashBackend } from "../src/hash/fast-permutation.js";
import { createPcsPool, defaultPcsThreads, type PcsPool } from "../src/pcs-workers/index.js";
import { prepareV3, proveBlockV3 } from "../src/sync/v3/index.js";
import { updateRequestOf } from "../src/sync/v2/index.js";
import { oldLeafRule } from "../src/registry/block-v3.js";
import { OpKind } from "../src/statement/types.js";
import { withNpmBlock } from "./lib/npm-block.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { choices, flag, int, ints, parseOptions } from "./lib/options.js";
import { stat, type Stat } from "./lib/cpu.js";

const SET_IDS = whirParameterSets().map((s) => s.id);
const args = parseOptions(
  {
    variables: ints(1, 23),
    sets: choices(SET_IDS),
    repeats: int(1, 100),
    "verify-calls": int(1, 1000),
    "verify-warmup": int(0, 1000),
    "selfcheck-variables": int(1, 16),
    threads: int(1, 256),
    block: int(0, 4096),
    "block-depth": int(1, 48),
    "block-base": int(1, 90_000),
    "block-calls": int(1, 100),
    full: flag,
    "pool-only": flag,
  },
  {
    smoke: {
      variables: "8",
      repeats: "1",
      "verify-calls": "1",
      "verify-warmup": "0",
      "selfcheck-variables": "6",
      block: "4",
      "block-depth": "16",
      "block-base": "10",
      "block-calls": "1",
    },
  },
);
const full = args.has("full");
const poolOnly = args.has("pool-only");
const variables = (args.get("variables") ?? (full ? "16,18,20,22" : "22"))
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const sets = (
  args.get("sets") ?? (full ? SET_IDS.join(",") : `cb90-r4,ud100-r4,${DEFAULT_WHIR_SET},${PROVABLE_WHIR_SET}`)
).split(",") as WhirSetId[];
const repeatsGiven = args.has("repeats");
const repeatsDefault = Number(args.get("repeats") ?? 5);
const verifyCalls = Number(args.get("verify-calls") ?? 11);
const verifyWarmup = Number(args.get("verify-warmup") ?? 100);
/** Pause between a cell's provers and its verifications (the collector's threads finish meanwhile). */
const VERIFY_PAUSE_MS = 250;
/** Verifications timed together (one sample: the group's process CPU over its calls). */
const VERIFY_GROUP = 5;
const selfcheckM = Number(args.get("selfcheck-variables") ?? 10);
const blockSize = Number(args.get("block") ?? 1024);
const blockDepth = Number(args.get("block-depth") ?? 48);
const blockBase = Number(args.get("block-base") ?? 20_000);
const blockCalls = Number(args.get("block-calls") ?? 3);
/** The default set before the width-24 leaves: the block figure's baseline. */
const OLD_DEFAULT_SET: WhirSetId = "cb100-r4-s3";
const poolThreads = Number(args.get("threads") ?? defaultPcsThreads());
/** A first commit + open above this CPU time cuts the cell to 3 repetitions (unless --repeats is given). */
const SLOW_CELL_MS = 20_000;

/** whir-p3 on this machine kind, one thread, median of 5, one claim (issue anchors): commit / open / verify ms, proof KB (1,000 B). */
const ANCHORS: Partial<
  Record<WhirSetId, Record<number, { build: string; commitMs: number; openMs: number; verifyMs: number; kb: number }>>
> = {
  "cb90-r4": {
    20: { build: "AVX-512", commitMs: 143, openMs: 118, verifyMs: 1.5, kb: 57.3 },
    22: { build: "AVX-512", commitMs: 522, openMs: 361, verifyMs: 1.8, kb: 68.3 },
  },
  "cb100-r2": {
    20: { build: "AVX-512", commitMs: 73, openMs: 92, verifyMs: 2.7, kb: 102.3 },
    22: { build: "AVX-512", commitMs: 294, openMs: 1068, verifyMs: 3.2, kb: 118.2 },
  },
  "ud100-r4": {
    20: { build: "AVX-512", commitMs: 123, openMs: 140, verifyMs: 6.8, kb: 260.3 },
    22: { build: "AVX-512", commitMs: 573, openMs: 494, verifyMs: 9.7, kb: 365.6 },
  },
};

function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
const P = 2_130_706_433;
function randomEvaluations(m: number): Uint32Array {
  return Uint32Array.from({ length: 1 << m }, () => Math.floor(Math.random() * P));
}
/** Two claims at random points, values from the multilinear extension. */
function randomClaims(evals: Uint32Array, m: number): WhirClaim[] {
  const coeffs = liftToExtension(evals);
  evaluationsToCoefficients(coeffs, 4);
  return [0, 1].map(() => {
    const point = Array.from({ length: m }, () => extRandom());
    return { point, value: evaluateCoefficients(coeffs, point) };
  });
}
const accept = (set: WhirSetId) => ({ alsoAccept: [set] });
const ONE: Ext = [1, 0, 0, 0];

/** Honest openings accepted; a wrong value, a changed Merkle row and a changed fold (sumcheck h(0)) rejected. */
function selfcheck(m: number): { ok: boolean; checks: Record<string, boolean> } {
  const set = DEFAULT_WHIR_SET;
  const evals = randomEvaluations(m);
  const claims = randomClaims(evals, m);
  const committed = whirCommit(evals, { set });
  const commitment = decodeWhirCommitment(encodeWhirCommitment(committed.commitment));
  const proof = whirOpen(committed, claims);
  const decoded = decodeWhirProof(proof);
  const edit = (f: (p: WhirProof) => WhirProof) => encodeWhirProof(f(decoded));
  const round0 = decoded.rounds[0]!;
  const badRow = edit((p) => {
    const rows = round0.rows.slice();
    rows[0] = (rows[0]! + 1) % P;
    return { ...p, rounds: [{ ...round0, rows }, ...p.rounds.slice(1)] };
  });
  const badFold = edit((p) => {
    const sumcheck = round0.sumcheck.map((h) => [h[0], h[1]] as const);
    sumcheck[0] = [extAdd(sumcheck[0]![0], ONE), sumcheck[0]![1]];
    return { ...p, rounds: [{ ...round0, sumcheck }, ...p.rounds.slice(1)] };
  });
  const badValue = [{ ...claims[0]!, value: extAdd(claims[0]!.value, ONE) }, claims[1]!];
  const checks = {
    honestAccepted: whirVerify(commitment, claims, proof, accept(set)).ok,
    honestReencodedEqual: Buffer.compare(Buffer.from(edit((p) => p)), Buffer.from(proof)) === 0,
    wrongValueRejected: !whirVerify(commitment, badValue, proof, accept(set)).ok,
    merkleRowRejected: !whirVerify(commitment, claims, badRow, accept(set)).ok,
    foldRejected: !whirVerify(commitment, claims, badFold, accept(set)).ok,
  };
  return { ok: Object.values(checks).every((x) => x), checks };
}

interface Cell {
  set: WhirSetId;
  m: number;
  repeats: number;
  commitMs: Stat;
  openMs: Stat;
  commitOpenMs: Stat;
  verifyMs: Stat;
  proofBytes: number;
  commitmentBytes: number;
  bits: number;
  regime: string;
  maxPowBits: number;
  /** Median wall ms per phase of commit + open. */
  phasesMs: Record<PcsPhase | "other", number>;
}

function measureCell(set: WhirSetId, m: number): Cell {
  const evals = randomEvaluations(m);
  const claims = randomClaims(evals, m);
  const commit: number[] = [],
    open: number[] = [],
    verify: number[] = [],
    both: number[] = [];
  const phases: Record<string, number[]> = {};
  let repeats = repeatsDefault;
  let proof: Uint8Array = new Uint8Array(0);
  let commitmentBytes = 0;
  const opened: { commitment: ReturnType<typeof decodeWhirCommitment>; proof: Uint8Array }[] = [];
  for (let r = 0; r < repeats; r++) {
    const ph: Record<string, number> = {};
    const t0 = performance.now();
    let committed!: ReturnType<typeof whirCommit>;
    withPhaseTimer(
      (name, ms) => {
        ph[name] = (ph[name] ?? 0) + ms;
      },
      () => {
        commit.push(
          cpuMs(() => {
            committed = whirCommit(evals, { set, workers: null });
          }),
        );
        open.push(
          cpuMs(() => {
            proof = whirOpen(committed, claims, { workers: null });
            releaseWhirState(committed.state);
          }),
        );
      },
    );
    const wall = performance.now() - t0;
    both.push(commit[r]! + open[r]!);
    ph["other"] = wall - Object.values(ph).reduce((a, b) => a + b, 0);
    for (const [k, v] of Object.entries(ph)) (phases[k] ??= []).push(v);
    const encoded = encodeWhirCommitment(committed.commitment);
    commitmentBytes = encoded.length;
    opened.push({ commitment: decodeWhirCommitment(encoded), proof });
    if (r === 0 && !repeatsGiven && both[0]! > SLOW_CELL_MS && repeats > 3) {
      repeats = 3;
      progress(
        `${set} m=${m}: one commit + open took ${fmt(both[0]! / 1000, 1)} s CPU (over ${SLOW_CELL_MS / 1000} s): 3 repetitions instead of ${repeatsDefault}`,
      );
    }
  }
  // The verifications after the provers: a pause of VERIFY_PAUSE_MS lets the collector's threads
  // finish with the prover's tables outside the timed calls, then `verifyWarmup` calls not counted
  // and `verifyCalls` timed calls per repetition's proof, the proofs in turn.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, VERIFY_PAUSE_MS);
  let v = 0;
  const verifyOne = () => {
    const o = opened[v++ % opened.length]!;
    if (!whirVerify(o.commitment, claims, o.proof, accept(set)).ok)
      throw new Error(`${set} m=${m}: an honest opening was rejected`);
  };
  while (v < verifyWarmup) verifyOne();
  for (let left = verifyCalls * opened.length; left > 0; left -= VERIFY_GROUP) {
    const calls = Math.min(VERIFY_GROUP, left);
    verify.push(
      cpuMs(() => {
        for (let c = 0; c < calls; c++) verifyOne();
      }) / calls,
    );
  }
  const sec = whirSecurity(whirParameterSet(set), m);
  const phasesMs = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stat(v).median])) as Cell["phasesMs"];
  return {
    set,
    m,
    repeats,
    commitMs: stat(commit),
    openMs: stat(open),
    commitOpenMs: stat(both),
    verifyMs: stat(verify),
    proofBytes: proof.length,
    commitmentBytes,
    bits: sec.bits,
    regime: whirParameterSet(set).regime,
    maxPowBits: sec.maxPowBits,
    phasesMs,
  };
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# WHIR (src/pcs), one thread, hash backend ${hashBackend()}; process CPU ms, median (min–max); two claims per opening; ${repeatsGiven ? `${repeatsDefault} repetitions` : `${repeatsDefault} repetitions (3 for a cell over ${SLOW_CELL_MS / 1000} s)`}, ${verifyCalls} verifications each after ${verifyWarmup} not counted`,
);

if (!poolOnly) progress(`self-check at m = ${selfcheckM} (${DEFAULT_WHIR_SET})`);
const check = poolOnly ? { ok: true, checks: {} } : selfcheck(selfcheckM);
if (!poolOnly)
  console.log(
    `self-check (m = ${selfcheckM}, ${DEFAULT_WHIR_SET}): ${Object.entries(check.checks)
      .map(([k, v]) => `${k} ${v ? "yes" : "NO"}`)
      .join(", ")}`,
  );

const cells: Cell[] = [];
const cellText = (s: Stat, d = 0) => `${fmt(s.median, d)} (${fmt(s.min, d)}–${fmt(s.max, d)})`;
for (const m of poolOnly ? [] : variables) {
  for (const set of sets) {
    const limit = maxVariables(whirParameterSet(set));
    if (m > limit) {
      progress(`${set} m=${m}: skipped (the set's limit is m = ${limit})`);
      continue;
    }
    progress(`${set} m=${m}: commit, open, verify`);
    const c = measureCell(set, m);
    cells.push(c);
    const phaseTotal = Object.values(c.phasesMs).reduce((a, b) => a + b, 0);
    const share = (Object.entries(c.phasesMs) as [string, number][])
      .map(([k, v]) => `${k} ${fmt((100 * v) / phaseTotal, 0)}%`)
      .join(", ");
    console.log(
      `${set.padEnd(9)} m=${String(m).padEnd(3)} commit ${cellText(c.commitMs).padEnd(20)} open ${cellText(c.openMs).padEnd(20)} verify ${cellText(c.verifyMs, 2).padEnd(22)} proof ${c.proofBytes} B   ${c.bits} bits (${c.regime}), grinding ≤ ${c.maxPowBits} bits   ×${c.repeats}`,
    );
    console.log(`  commit + open by phase (wall): ${share}`);
  }
}

/** One thread against the pool, wall ms, alternating (the same polynomial and claims). */
interface PoolCell {
  set: WhirSetId;
  m: number;
  threads: number;
  repeats: number;
  singleWallMs: Stat;
  poolWallMs: Stat;
  speedup: number;
  bytesEqual: boolean;
  /** Share of the pool runs' Merkle chunks and kernel calls the workers ran (the rest: the calling thread). */
  workerShare: number;
  /** Median wall ms per phase, one thread and pool. */
  singlePhasesMs: Record<string, number>;
  poolPhasesMs: Record<string, number>;
}

function wallRun(
  evals: Uint32Array,
  claims: WhirClaim[],
  set: WhirSetId,
  workers: PcsPool | null,
  ph: Record<string, number>,
): { ms: number; proof: Uint8Array } {
  let proof!: Uint8Array;
  const t0 = performance.now();
  withPhaseTimer(
    (name, ms) => {
      ph[name] = (ph[name] ?? 0) + ms;
    },
    () => {
      const committed = whirCommit(evals, { set, workers });
      proof = whirOpen(committed, claims, { workers });
      releaseWhirState(committed.state);
    },
  );
  const ms = performance.now() - t0;
  ph["other"] = ms - Object.values(ph).reduce((a, b) => a + b, 0);
  return { ms, proof };
}

function medians(runs: Record<string, number>[]): Record<string, number> {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => [k, stat(runs.map((r) => r[k] ?? 0)).median]));
}

function measurePool(pool: PcsPool, set: WhirSetId, m: number): PoolCell {
  const evals = randomEvaluations(m);
  const claims = randomClaims(evals, m);
  const repeats = repeatsGiven ? repeatsDefault : m >= 22 ? 3 : repeatsDefault;
  const single: number[] = [],
    pooled: number[] = [];
  const singlePh: Record<string, number>[] = [],
    poolPh: Record<string, number>[] = [];
  let bytesEqual = true;
  const before = pool.stats;
  for (let r = 0; r < repeats; r++) {
    const a: Record<string, number> = {},
      b: Record<string, number> = {};
    const one = wallRun(evals, claims, set, null, a);
    const two = wallRun(evals, claims, set, pool, b);
    single.push(one.ms);
    pooled.push(two.ms);
    singlePh.push(a);
    poolPh.push(b);
    if (Buffer.compare(Buffer.from(one.proof), Buffer.from(two.proof)) !== 0) bytesEqual = false;
  }
  const singleWallMs = stat(single),
    poolWallMs = stat(pooled);
  const after = pool.stats;
  const workerShare =
    (after.workerChunks - before.workerChunks + after.workerCalls - before.workerCalls) /
    Math.max(1, after.chunks - before.chunks + after.calls - before.calls);
  return {
    set,
    m,
    threads: pool.threads,
    repeats,
    singleWallMs,
    poolWallMs,
    speedup: singleWallMs.median / poolWallMs.median,
    bytesEqual,
    workerShare,
    singlePhasesMs: medians(singlePh),
    poolPhasesMs: medians(poolPh),
  };
}

const POOL_SETS: WhirSetId[] = poolOnly && args.has("sets") ? sets : ["cb90-r4", DEFAULT_WHIR_SET];
const poolVariables = full ? variables : variables.slice(-1);
const poolCells: PoolCell[] = [];
if (poolVariables.length > 0) {
  const pool = createPcsPool({ threads: poolThreads });
  try {
    await pool.ready();
    const phaseText = (p: Record<string, number>) =>
      Object.entries(p)
        .map(([k, v]) => `${k} ${fmt(v, 0)}`)
        .join(", ");
    for (const m of poolVariables) {
      for (const poolSet of POOL_SETS) {
        if (m > maxVariables(whirParameterSet(poolSet))) continue;
        progress(
          `${poolSet} m=${m}: commit + open wall, one thread vs a pool of ${poolThreads} workers + the calling thread`,
        );
        const c = measurePool(pool, poolSet, m);
        poolCells.push(c);
        console.log(
          `pool     ${poolSet} m=${String(m).padEnd(3)} commit + open wall: one thread ${cellText(c.singleWallMs)}, pool (${c.threads} workers + caller) ${cellText(c.poolWallMs)}, ${fmt(c.speedup, 2)}×, bytes equal ${c.bytesEqual ? "yes" : "NO"}, workers ran ${fmt(100 * c.workerShare, 0)} % of the chunks and calls   ×${c.repeats}`,
        );
        console.log(`  phases (wall ms), one thread: ${phaseText(c.singlePhasesMs)}`);
        console.log(`  phases (wall ms), pool:       ${phaseText(c.poolPhasesMs)}`);
        if (!c.bytesEqual) process.exitCode = 1;
      }
    }
  } finally {
    await pool.close();
  }
}

/** A v3 block proved with the default set and with the former default, one thread, alternating. */
interface BlockCell {
  updates: number;
  depth: number;
  registryRecords: number;
  calls: number;
  defaultSet: WhirSetId;
  oldSet: WhirSetId;
  defaultMs: Stat;
  oldMs: Stat;
  /** Median of the default set's proofs over the former default's. */
  ratio: number;
  defaultBytes: number;
  oldBytes: number;
}

let blockCell: BlockCell | null = null;
if (blockSize > 0 && !poolOnly) {
  progress(
    `v3 block of ${blockSize} npm inserts at depth ${blockDepth} (registry of ${blockBase}): ${DEFAULT_WHIR_SET} against ${OLD_DEFAULT_SET}, one thread`,
  );
  blockCell = await withNpmBlock(
    { depth: blockDepth, base: blockBase, size: blockSize, label: "pcs-block" },
    (applied, store): BlockCell => {
      const B = store.config.leafMaxFields;
      const requests = applied.updates.map((u) => updateRequestOf(u.record, B));
      const rules = applied.updates.map((u) => oldLeafRule(u.update));
      const p3 = prepareV3(OpKind.Update, { depth: blockDepth, leafMaxFields: B });
      const times: Record<"new" | "old", number[]> = { new: [], old: [] };
      const bytes: Record<"new" | "old", number> = { new: 0, old: 0 };
      // one proof of each not counted (compilation, first tables), then block-calls of each
      for (let r = 0; r <= blockCalls; r++) {
        for (const which of r % 2 === 0 ? (["new", "old"] as const) : (["old", "new"] as const)) {
          const pcsSet = which === "new" ? DEFAULT_WHIR_SET : OLD_DEFAULT_SET;
          let proof: Uint8Array = new Uint8Array(0);
          const t = cpuMs(() => {
            proof = proveBlockV3(p3, requests, { rules, pcsSet });
          });
          bytes[which] = proof.length;
          if (r > 0) times[which].push(t);
        }
      }
      const defaultMs = stat(times.new),
        oldMs = stat(times.old);
      return {
        updates: requests.length,
        depth: blockDepth,
        registryRecords: blockBase,
        calls: blockCalls,
        defaultSet: DEFAULT_WHIR_SET,
        oldSet: OLD_DEFAULT_SET,
        defaultMs,
        oldMs,
        ratio: defaultMs.median / oldMs.median,
        defaultBytes: bytes.new,
        oldBytes: bytes.old,
      };
    },
  );
  console.log(
    `block    v3, ${blockCell.updates} updates at depth ${blockDepth}, one thread: ${DEFAULT_WHIR_SET} ${cellText(blockCell.defaultMs)} ms (${blockCell.defaultBytes} B), ${OLD_DEFAULT_SET} ${cellText(blockCell.oldMs)} ms (${blockCell.oldBytes} B): ${fmt(blockCell.ratio, 2)}×   ×${blockCalls}`,
  );
}

// Beside the anchor (whir-p3, one claim): ratios ours / theirs.
const comparisons: Record<string, unknown>[] = [];
for (const c of cells) {
  const a = ANCHORS[c.set]?.[c.m];
  if (!a) continue;
  const cmp = {
    set: c.set,
    m: c.m,
    anchor: a,
    commitOpenRatio: c.commitOpenMs.median / (a.commitMs + a.openMs),
    verifyRatio: c.verifyMs.median / a.verifyMs,
    bytesRatio: c.proofBytes / (a.kb * 1000),
  };
  comparisons.push(cmp);
  console.log(
    `vs whir-p3 ${a.build} ${c.set} m=${c.m}: commit + open ${fmt(c.commitOpenMs.median, 0)} vs ${a.commitMs} + ${a.openMs} ms (${fmt(cmp.commitOpenRatio, 2)}×, goal ≤ 2×); verify ${fmt(c.verifyMs.median, 2)} vs ${a.verifyMs} ms (${fmt(cmp.verifyRatio, 2)}×, goal ≤ 2×); proof ${c.proofBytes} B vs ${a.kb} KB (${fmt(cmp.bytesRatio, 3)}×, goal ≤ 1.05×)`,
  );
}

const path = writeResults("pcs", {
  benchmark: "pcs",
  conditions: cond,
  settings: {
    variables,
    sets,
    repeats: repeatsDefault,
    slowCellRepeats: repeatsGiven ? null : 3,
    verifyCalls,
    verifyWarmup,
    claimsPerOpening: 2,
    threads: 1,
    poolThreads,
    hashBackend: hashBackend(),
    full,
  },
  units: "process CPU ms (median, min, max); phases in wall ms (median); bytes",
  selfcheck: { variables: selfcheckM, set: DEFAULT_WHIR_SET, ...check },
  cells,
  poolCells,
  block: blockCell,
  comparisons,
  browser: null,
});
progress(`wrote ${path}`);

// The headline cells: the largest m measured (22 by default).
const hm = variables[variables.length - 1]!;
const at = (set: WhirSetId) => cells.find((c) => c.set === set && c.m === hm);
const round = (x: number | undefined, d = 2) => (x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);
const cb90 = at("cb90-r4"),
  ud100 = at("ud100-r4"),
  def = at(DEFAULT_WHIR_SET),
  provable = at(PROVABLE_WHIR_SET);
const poolAt = poolCells.find((c) => c.m === hm && c.set === "cb90-r4");
const poolDefault = poolCells.find((c) => c.m === hm && c.set === DEFAULT_WHIR_SET);
printHeadline({
  pcs_selfcheck_ok: poolOnly ? null : check.ok ? 1 : 0,
  pcs_headline_variables: hm,
  pcs22_cb90_commit_open_ms: round(cb90?.commitOpenMs.median, 0),
  pcs22_cb90_verify_ms: round(cb90?.verifyMs.median),
  pcs22_cb90_bytes: cb90?.proofBytes ?? null,
  pcs22_ud100_commit_open_ms: round(ud100?.commitOpenMs.median, 0),
  pcs22_ud100_verify_ms: round(ud100?.verifyMs.median),
  pcs22_ud100_bytes: ud100?.proofBytes ?? null,
  pcs22_default_bits:
    def?.bits ??
    (hm <= maxVariables(whirParameterSet(DEFAULT_WHIR_SET))
      ? whirSecurity(whirParameterSet(DEFAULT_WHIR_SET), hm).bits
      : null),
  pcs20_verify_browser_ms: null,
  pcs22_cb90_commit_open_wall_ms: round(poolAt?.singleWallMs.median, 0),
  pcs22_cb90_commit_open_pool_ms: round(poolAt?.poolWallMs.median, 0),
  pcs_pool_threads: poolThreads,
  pcs22_scaling_2t: round(poolDefault?.speedup),
  pcs22_cb_r4_commit_open_ms: round(def?.commitOpenMs.median, 0),
  pcs22_cb_r4_verify_ms: round(def?.verifyMs.median),
  pcs22_cb_r4_bytes: def?.proofBytes ?? null,
  pcs22_ud_r4_commit_open_ms: round(provable?.commitOpenMs.median, 0),
  pcs22_ud_r4_verify_ms: round(provable?.verifyMs.median),
  pcs22_ud_r4_bytes: provable?.proofBytes ?? null,
  v3_block1024_prove_over_old_set: round(blockCell?.ratio),
});
if (!check.ok) process.exitCode = 1;
