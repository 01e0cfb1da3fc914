/**
 * Profile v3-zk (docs/profile-v3.md §11): zero-knowledge proofs about a name and blocks.
 *
 *   npm run bench -- zk [--depth 48] [--repeats 5] [--prove-warmup 50] [--verify-calls 11]
 *     [--warmup 3] [--verifier-warmup 100] [--block 1024] [--block-set cb100-r2-s3]
 *     [--block-calls 2] [--block-warmup 1] [--hiding-layout default|extra-variable|top-block]
 *
 * Statements about one name (membership and absence, depth --depth, B 31): v3-zk prove and verify
 * with the default WHIR set (cb100-r4-s3) and with the provable set (ud100-r4-s3), beside the plain v3
 * proof of the same statement, and the proof's bytes. Block: --block chained inserts into a sparse
 * Merkle tree of depth --depth proved as a v3 block and as a v3-zk block with --block-set, and
 * the ratio of the two provers. The default block set is rate 1/2: at 1,024 d48 updates (f of
 * 2^22 values) it halves the hiding commitment's codewords against the rate-1/4 default set, which
 * also holds the block in the hiding layout top-block (docs/pcs.md §12.10; with --hiding-layout
 * extra-variable only a rate-1/2 set does).
 *
 * Times are process CPU ms (`process.cpuUsage`), one thread, WASM kernels: provers medians of
 * --repeats proofs after --prove-warmup proofs of the same statement (the first, cold proof is
 * reported beside them; block: v3 and v3-zk alternately, medians of --block-calls proofs after
 * --block-warmup rounds), verifiers of a name's statement medians of
 * --verify-calls calls after --verifier-warmup calls (the steady state of a verifying process; its
 * first, cold call is reported beside them) in a process of their own that holds only the verifier's
 * data (bench/children/verifier.ts; the median of the same calls in this process, right after the
 * provers, after --warmup calls, is reported beside them), block verifiers in this process after
 * --warmup calls. The browser figure comes from the web benchmark (`npm run bench -- web`). The last
 * stdout line is the headline JSON.
 */
import { goldenFixture } from "../src/smt/fixture.js";
import { SparseMerkleTree } from "../src/smt/tree.js";
import type { Leaf } from "../src/smt/leaf.js";
import type { OpRequest } from "../src/smt/operation.js";
import { v3StatementOf } from "../src/smt/v3/input.js";
import type { V3OldLeafRule } from "../src/smt/v3/statement.js";
import { updateRequestOf } from "../src/sync/v2/index.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  v3ZkSoundness,
  type V3BlockUpdate,
  type V3Timings,
} from "../src/sync/v3/index.js";
import { DEFAULT_WHIR_SET, PROVABLE_WHIR_SET, type WhirSetId } from "../src/pcs/params.js";
import type { WhirHidingLayout } from "../src/pcs/types.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { cpuTimed, showStat, stat, type Stat } from "./lib/cpu.js";
import { choice, int, parseOptions } from "./lib/options.js";
import { runVerifierProcess } from "./lib/verifier-process.js";

const args = parseOptions(
  {
    depth: int(5, 64),
    repeats: int(1, 100),
    "prove-warmup": int(0, 1000),
    "verify-calls": int(1, 1000),
    warmup: int(0, 100),
    "verifier-warmup": int(0, 10000),
    block: int(1, 4096),
    "block-set": choice(["cb100-r4-s3", "cb100-r2-s3", "ud100-r2-s3", "cb100-r4", "cb100-r2", "ud100-r4", "cb90-r4"]),
    "block-calls": int(1, 100),
    "block-warmup": int(0, 100),
    "hiding-layout": choice(["default", "extra-variable", "top-block"]),
  },
  {
    smoke: {
      depth: "8",
      repeats: "1",
      "prove-warmup": "0",
      "verify-calls": "1",
      warmup: "0",
      "verifier-warmup": "0",
      block: "4",
      "block-set": "cb100-r4-s3",
      "block-calls": "1",
      "block-warmup": "0",
    },
  },
);
const depth = Number(args.get("depth") ?? 48);
const repeats = Number(args.get("repeats") ?? 5);
const proveWarmup = Number(args.get("prove-warmup") ?? 50);
const verifyCalls = Number(args.get("verify-calls") ?? 11);
const warmup = Number(args.get("warmup") ?? 3);
const verifierWarmup = Number(args.get("verifier-warmup") ?? 100);
const blockSize = Number(args.get("block") ?? 1024);
const blockSet = (args.get("block-set") ?? "cb100-r2-s3") as WhirSetId;
const blockCalls = Number(args.get("block-calls") ?? 2);
const blockWarmup = Number(args.get("block-warmup") ?? 1);
// the hiding commitment's layout of every v3-zk proof (docs/pcs.md §12.10): the prover's default or a forced one
const hidingLayoutArg = args.get("hiding-layout") ?? "default";
const layoutOption: { hidingLayout?: WhirHidingLayout } =
  hidingLayoutArg === "default" ? {} : { hidingLayout: hidingLayoutArg as WhirHidingLayout };

const cond = conditions();
console.log(conditionsLine(cond));

const cpu = cpuTimed;
const show = showStat;

interface NameRow {
  readonly kind: "membership" | "nonmembership";
  readonly set: WhirSetId;
  readonly zk: boolean;
  readonly proveMs: Stat;
  /** The first proof of the process (cold: compilation included). */
  readonly firstProveMs: number;
  readonly verifyMs: Stat;
  /** The same verifications in the benchmark's process, right after the provers. */
  readonly verifyInProverMs: Stat;
  /** The first verification of the verifier's process (cold). */
  readonly firstVerifyMs: number;
  readonly bytes: number;
  readonly phases: V3Timings;
  readonly bits: number | null;
}

/** The fixture seed of the name's statement (`goldenFixture`). */
const SEED = 0x5a5a5n % 2n ** BigInt(depth);

function nameBench(kind: "membership" | "nonmembership", set: WhirSetId, zk: boolean): NameRow {
  const p = prepareV3(kind, { depth });
  const requests = [goldenFixture(kind, depth, SEED)];
  const statements = requests.map((r) => v3StatementOf(r));
  let phases: V3Timings | undefined;
  let bytes: Uint8Array = new Uint8Array(0);
  const prove: number[] = [];
  let firstProveMs = 0;
  for (let r = 0; r < proveWarmup + repeats; r++) {
    const [b, t] = cpu(() =>
      proveAggregateV3(p, requests, {
        zk,
        pcsSet: set,
        ...(zk ? layoutOption : {}),
        onTimings: (x) => (phases = x),
      }),
    );
    bytes = b;
    if (r === 0) firstProveMs = t;
    if (r >= proveWarmup) prove.push(t);
  }
  const options = { accept: "provable" as const, alsoAccept: [set] };
  const own = runVerifierProcess({ "proof.bin": bytes }, (f) => ({
    what: "aggregate",
    kind,
    depth,
    seeds: [String(SEED)],
    proof: f["proof.bin"]!,
    options,
    warmup: verifierWarmup,
    calls: verifyCalls,
  }));
  const verify = own.cpu["v3"]!;
  const inProver: number[] = [];
  for (let r = 0; r < warmup + verifyCalls; r++) {
    const [v, t] = cpu(() => verifyAggregateV3(p, statements, bytes, options));
    if (!v.ok) throw new RangeError(`an honest ${kind} proof was rejected: ${v.code}`);
    if (r >= warmup) inProver.push(t);
  }
  progress(
    `${zk ? "v3-zk" : "v3"} ${kind} d${depth} ${set}: prove ${show(stat(prove))} ms (first ${fmt(firstProveMs, 1)}), verify ${show(stat(verify))} ms (first ${fmt(own.first["v3"]!, 1)}; in the prover's process ${show(stat(inProver))})`,
  );
  return {
    kind,
    set,
    zk,
    proveMs: stat(prove),
    firstProveMs,
    verifyMs: stat(verify),
    verifyInProverMs: stat(inProver),
    firstVerifyMs: own.first["v3"]!,
    bytes: bytes.length,
    phases: phases!,
    bits: zk ? v3ZkSoundness(p, 1, set).bits : null,
  };
}

/** --block chained inserts of random keys into a tree of depth --depth, with their old-leaf rules. */
function blockRequests(): { requests: OpRequest[]; rules: V3OldLeafRule[]; from: Uint32Array; to: Uint32Array } {
  const tree = new SparseMerkleTree({ depth });
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const from = tree.root();
  const keys = new Set<bigint>();
  const requests: OpRequest[] = [];
  while (requests.length < blockSize) {
    const key = ((BigInt(next()) << 32n) | BigInt(next())) % 2n ** BigInt(depth);
    if (keys.has(key)) continue;
    keys.add(key);
    requests.push(updateRequestOf(tree.insert(key, [next() % 1000, requests.length], new Uint8Array(32).fill(7))));
  }
  return { requests, rules: requests.map(() => ({ rule: "empty" as const })), from, to: tree.root() };
}

const names: NameRow[] = [];
for (const kind of ["membership", "nonmembership"] as const) {
  names.push(nameBench(kind, DEFAULT_WHIR_SET, false));
  names.push(nameBench(kind, DEFAULT_WHIR_SET, true));
  names.push(nameBench(kind, PROVABLE_WHIR_SET, true));
}
const row = (kind: string, set: string, zk: boolean) =>
  names.find((n) => n.kind === kind && n.set === set && n.zk === zk)!;

progress(`block of ${blockSize} inserts at depth ${depth} …`);
const blk = blockRequests();
const prepared = prepareV3("update", { depth });
const updates: V3BlockUpdate[] = blk.requests.map((r) => {
  const op = r.operation as { key: bigint; newLeaf: Leaf };
  return { key: op.key, newLeaf: op.newLeaf, oldLeaf: { rule: "empty" } };
});
let v3Phases: V3Timings | undefined, zkPhases: V3Timings | undefined;
// v3 and v3-zk alternately (which goes first alternates too): --block-warmup rounds, then
// --block-calls measured ones (medians), the steady state of a proving process
let v3Block: Uint8Array = new Uint8Array(0),
  zkBlock: Uint8Array = new Uint8Array(0);
const v3BlockTimes: number[] = [],
  zkBlockTimes: number[] = [];
for (let r = 0; r < blockWarmup + blockCalls; r++) {
  const measured = r >= blockWarmup;
  for (const zk of r % 2 === 0 ? [false, true] : [true, false]) {
    const [bytes, t] = cpu(() =>
      proveBlockV3(prepared, blk.requests, {
        rules: blk.rules,
        pcsSet: blockSet,
        zk,
        ...(zk ? layoutOption : {}),
        onTimings: (ph) => {
          if (zk) zkPhases = ph;
          else v3Phases = ph;
        },
      }),
    );
    if (zk) zkBlock = bytes;
    else v3Block = bytes;
    if (measured) (zk ? zkBlockTimes : v3BlockTimes).push(t);
  }
}
const v3BlockMs = stat(v3BlockTimes).median,
  zkBlockMs = stat(zkBlockTimes).median;
const opts = { accept: "provable" as const, alsoAccept: [blockSet] };
const blockVerify = (bytes: Uint8Array): Stat => {
  const ts: number[] = [];
  for (let r = 0; r < Math.max(1, Math.min(verifyCalls, 5)); r++) {
    const [v, t] = cpu(() => verifyBlockV3(prepared, { fromRoot: blk.from, toRoot: blk.to }, updates, bytes, opts));
    if (!v.ok) throw new RangeError(`an honest block was rejected: ${v.code}`);
    ts.push(t);
  }
  return stat(ts);
};
const v3BlockVerify = blockVerify(v3Block);
const zkBlockVerify = blockVerify(zkBlock);

const phasesLine = (ph: V3Timings) =>
  `witness ${fmt(ph.witnessMs, 0)}, commit ${fmt(ph.commitMs, 0)}, layer values ${fmt(ph.evaluateMs, 0)}, GKR ${fmt(ph.gkrMs, 0)}, opening ${fmt(ph.openMs, 0)}`;
for (const n of names)
  console.log(
    `${n.zk ? "v3-zk" : "v3   "} ${n.kind.padEnd(13)} d${depth} ${n.set}: prove ${show(n.proveMs)} ms (${phasesLine(n.phases)}), verify ${show(n.verifyMs)} ms, ${n.bytes} B${n.bits === null ? "" : `, ${fmt(n.bits, 1)} bits`}`,
  );
console.log(
  `block of ${blockSize} inserts d${depth} ${blockSet}: v3 prove ${fmt(v3BlockMs, 0)} ms (${phasesLine(v3Phases!)}), v3-zk prove ${fmt(zkBlockMs, 0)} ms (${phasesLine(zkPhases!)}), zk / v3 ${fmt(zkBlockMs / v3BlockMs, 2)} (medians of ${blockCalls} after ${blockWarmup} warm-up, alternately); verify v3 ${show(v3BlockVerify)} ms, v3-zk ${show(zkBlockVerify)} ms; ${v3Block.length} / ${zkBlock.length} B`,
);

const path = writeResults("zk", {
  conditions: cond,
  depth,
  repeats,
  verifyCalls,
  warmup,
  names,
  block: {
    operations: blockSize,
    set: blockSet,
    v3ProveMs: v3BlockMs,
    zkProveMs: zkBlockMs,
    v3Phases,
    zkPhases,
    v3VerifyMs: v3BlockVerify,
    zkVerifyMs: zkBlockVerify,
    v3Bytes: v3Block.length,
    zkBytes: zkBlock.length,
  },
});
console.log(`# full results: ${path}`);
const m = row("membership", DEFAULT_WHIR_SET, true);
const mu = row("membership", PROVABLE_WHIR_SET, true);
const a = row("nonmembership", DEFAULT_WHIR_SET, true);
const m3 = row("membership", DEFAULT_WHIR_SET, false);
printHeadline({
  load1: cond.load1,
  depth,
  zk_member_prove_ms: +m.proveMs.median.toFixed(1),
  zk_member_verify_ms: +m.verifyMs.median.toFixed(2),
  zk_member_prove_first_ms: +m.firstProveMs.toFixed(1),
  zk_member_verify_in_prover_process_ms: +m.verifyInProverMs.median.toFixed(2),
  zk_member_verify_first_ms: +m.firstVerifyMs.toFixed(1),
  zk_member_bytes: m.bytes,
  zk_member_prove_ms_ud100: +mu.proveMs.median.toFixed(1),
  zk_member_verify_ms_ud100: +mu.verifyMs.median.toFixed(2),
  zk_member_bytes_ud100: mu.bytes,
  zk_absence_prove_ms: +a.proveMs.median.toFixed(1),
  zk_absence_verify_ms: +a.verifyMs.median.toFixed(2),
  zk_absence_bytes: a.bytes,
  v3_member_prove_ms: +m3.proveMs.median.toFixed(1),
  v3_member_verify_ms: +m3.verifyMs.median.toFixed(2),
  zk_member_verify_browser_ms: null,
  block_operations: blockSize,
  block_set: blockSet,
  hiding_layout: hidingLayoutArg,
  [`zk_block${blockSize}_prove_over_v3`]: +(zkBlockMs / v3BlockMs).toFixed(2),
  [`zk_block${blockSize}_prove_ms`]: +zkBlockMs.toFixed(0),
  [`v3_block${blockSize}_prove_ms`]: +v3BlockMs.toFixed(0),
  [`zk_block${blockSize}_verify_ms`]: +zkBlockVerify.median.toFixed(1),
  [`zk_block${blockSize}_bytes`]: zkBlock.length,
});
