/**
 * Preparing circuits (compat-v1 §13.3 `prepare(kind)`): compile, §12 commitment, wiring oracle,
 * single thread, and the transcript's share of one proof.
 *
 *   npm run bench -- prepare [--depths 24,28,32] [--repeats 5] [--cold 3] [--reference]
 *
 * Per kind and depth (milliseconds per call, median / min / max over `repeats` warm calls in this
 * process, after one untimed call):
 *   compile     compile(kind, config) (src/smt/compile.ts)
 *   commitment  circuitCommitment: the WASM single-state sponge over the layer arrays
 *   wiring      derived wiring (src/gkr/wiring/derived.ts `DerivedRegularWiring`) when it is in the
 *               build, else the explicit `TableWiring`
 *   prepare     compile + commitment + wiring
 * Per depth, all three kinds (`prepareAll`): compile of the three, the three commitments side by
 * side (two interleaved sponges: Update in one lane, Membership then NonMembership in the other),
 * the three wirings; plus the three commitments alone with 4 SIMD lanes and one after another.
 * Cold: `--cold n` child processes each time the first `prepare("membership")` and the first
 * `prepareAll()` at depth 24 (module loading, JIT warm-up and WASM compilation included).
 * `--reference` also times the TypeScript commitment paths at depth 24 (one call each: the
 * scalar absorb with the TypeScript permutation, the state before the WASM kernels).
 * Transcript: a d24 Membership proof's Fiat–Shamir schedule simulated on a `DuplexChallenger`
 * (per sumcheck round: observe 5 extension coefficients, sample one extension challenge; rounds =
 * Σ over layers of 2 × the layer's input bits), with the WASM and the TypeScript permutation, plus
 * one permutation alone (µs).
 *
 * `prepare` and `prepareAll` are also timed in process CPU time (user + system of all threads,
 * `process.cpuUsage`), which stays close to the uncontended wall time when other processes load
 * the machine (the conditions line gives the load when the run started).
 *
 * Writes bench/results/prepare.json; the last stdout line holds the headline medians
 * prepare_ms (d24 Membership compile + commitment + wiring) and prepare_all_kinds_ms, with their
 * CPU-time twins prepare_cpu_ms and prepare_all_kinds_cpu_ms.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EXT_ONE, type Ext } from "../src/field/extension.js";
import { inputBitsOf, type Circuit } from "../src/gkr/circuit.js";
import type { CircuitTags } from "../src/gkr/builder.js";
import { TableWiring } from "../src/gkr/wiring/table.js";
import type { WiringOracle } from "../src/gkr/wiring/oracle.js";
import { hashBackend, permuteFast } from "../src/hash/fast-permutation.js";
import { permuteInPlace } from "../src/hash/poseidon2.js";
import { compile, type CompiledCircuit } from "../src/smt/compile.js";
import {
  circuitCommitment,
  circuitCommitmentReference,
  circuitCommitments,
  circuitCommitmentScalar,
  commitmentHeader,
  commitmentLength,
} from "../src/sync/commitment.js";
import { prepareAll } from "../src/sync/prepare-all.js";
import { prepare } from "../src/sync/prepared.js";
import { syncConfig } from "../src/smt/config.js";
import { OpKind } from "../src/statement/types.js";
import { DuplexChallenger, PROOF_DOMAIN_TAG } from "../src/transcript/index.js";
import {
  conditions,
  conditionsLine,
  fmt,
  measure,
  printHeadline,
  progress,
  writeResults,
  type Timing,
} from "./lib/index.js";
import { flag, int, ints, parseOptions } from "./lib/options.js";

const args = parseOptions(
  { depths: ints(1, 64), repeats: int(1, 1000), cold: int(0, 100), reference: flag, "child-cold": flag },
  {
    smoke: { depths: "4", repeats: "1", cold: "0" },
  },
);

type WiringFactory = (c: CompiledCircuit) => WiringOracle;

/** The derived wiring if this build has one, else the table wiring. */
async function wiringFactory(): Promise<{ name: string; make: WiringFactory }> {
  try {
    const mod = (await import("../src/gkr/wiring/derived.js" as string)) as {
      DerivedRegularWiring?: new (circuit: Circuit, tags?: CircuitTags) => WiringOracle;
    };
    const Derived = mod.DerivedRegularWiring;
    if (typeof Derived === "function")
      return { name: "derived (DerivedRegularWiring)", make: (c) => new Derived(c.circuit, c.tags) };
  } catch {
    // not in this build
  }
  return { name: "table (TableWiring)", make: (c) => new TableWiring(c.circuit) };
}

/** Child mode: one cold measurement, printed as JSON. */
if (args.has("child-cold")) {
  const { make } = await wiringFactory();
  const t0 = performance.now();
  const p = prepare("membership", {}, { wiring: make });
  const t1 = performance.now();
  const all = prepareAll({}, { wiring: make });
  const t2 = performance.now();
  process.stdout.write(
    JSON.stringify({ prepareMs: t1 - t0, prepareAllMs: t2 - t1, timings: p.timings, allTimings: all.timings }) + "\n",
  );
  process.exit(0);
}

const depths = (args.get("depths") ?? "24,28,32").split(",").map(Number);
const repeats = Number(args.get("repeats") ?? 5);
const coldRuns = Number(args.get("cold") ?? 3);
const withReference = args.has("reference");
const opts = { repeats, minSampleMs: 0, warmup: 1 };

const cond = conditions();
const wiring = await wiringFactory();
console.log(conditionsLine(cond));
console.log(
  `# single thread; hash backend ${hashBackend()}; wiring ${wiring.name}; repeats ${repeats}; ms per call, median (min–max)`,
);

const summary = (t: Timing) => ({ median: t.median, min: t.min, max: t.max });

/** Wall and process CPU time per call (ms): one untimed call, then `repeats` timed calls. */
function measureCpu(fn: () => unknown): { wall: Timing; cpu: Timing } {
  fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const timing = (xs: number[]): Timing => {
    const sorted = [...xs].sort((a, b) => a - b);
    const m = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
    return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, callsPerSample: 1, samples: xs };
  };
  return { wall: timing(wall), cpu: timing(cpu) };
}
const cell = (t: Timing) => `${fmt(t.median)} (${fmt(t.min)}–${fmt(t.max)})`;

interface KindRow {
  depth: number;
  kind: string;
  gates: number;
  commitmentWords: number;
  compile: Timing;
  commitment: Timing;
  wiring: Timing;
  prepare: Timing;
  prepareCpu: Timing;
}
const kindRows: KindRow[] = [];
const allRows: {
  depth: number;
  prepareAll: Timing;
  prepareAllCpu: Timing;
  commitments2: Timing;
  commitments4: Timing;
  commitmentsSequential: Timing;
  phases: Record<string, number>;
}[] = [];

for (const depth of depths) {
  const cfg = syncConfig({ depth });
  const compiled: CompiledCircuit[] = [];
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const name = kind;
    progress(`d${depth} ${name}`);
    const compileT = measure(() => compile(kind, cfg), opts);
    const c = compile(kind, cfg);
    compiled.push(c);
    const header = commitmentHeader(kind, cfg);
    const commitT = measure(() => circuitCommitment(header, c.circuit), opts);
    const wiringT = measure(() => wiring.make(c), opts);
    const prepareBoth = measureCpu(() => prepare(kind, cfg, { wiring: wiring.make }));
    const prepareT = prepareBoth.wall;
    const gates = c.circuit.layers.reduce((n, l) => n + l.gateKind.length, 0);
    const row: KindRow = {
      depth,
      kind: name,
      gates,
      commitmentWords: commitmentLength(c.circuit),
      compile: compileT,
      commitment: commitT,
      wiring: wiringT,
      prepare: prepareT,
      prepareCpu: prepareBoth.cpu,
    };
    kindRows.push(row);
    console.log(
      `d${String(depth).padEnd(3)} ${name.padEnd(14)} ${String(gates).padStart(8)} gates  compile ${cell(compileT).padEnd(22)} commitment ${cell(commitT).padEnd(22)} wiring ${cell(wiringT).padEnd(22)} prepare ${cell(prepareT).padEnd(22)} CPU ${cell(prepareBoth.cpu)}`,
    );
  }
  progress(`d${depth} all kinds`);
  const items = compiled.map((c) => ({ header: commitmentHeader(c.kind, cfg), circuit: c.circuit }));
  const commitments2 = measure(() => circuitCommitments(items, { lanes: 2 }), opts);
  const commitments4 = measure(() => circuitCommitments(items, { lanes: 4 }), opts);
  const commitmentsSequential = measure(() => items.map((it) => circuitCommitment(it.header, it.circuit)), opts);
  let phases: Record<string, number> = {};
  const prepareAllBoth = measureCpu(() => {
    phases = { ...prepareAll(cfg, { wiring: wiring.make }).timings };
  });
  const prepareAllT = prepareAllBoth.wall;
  allRows.push({
    depth,
    prepareAll: prepareAllT,
    prepareAllCpu: prepareAllBoth.cpu,
    commitments2,
    commitments4,
    commitmentsSequential,
    phases,
  });
  console.log(
    `d${String(depth).padEnd(3)} all kinds       prepareAll ${cell(prepareAllT)} (CPU ${cell(prepareAllBoth.cpu)}); commitments: 2 lanes ${cell(commitments2)}, 4 SIMD lanes ${cell(commitments4)}, one by one ${cell(commitmentsSequential)}`,
  );
}

// Cold: fresh processes.
const cold: { prepareMs: number; prepareAllMs: number }[] = [];
for (let i = 0; i < coldRuns; i++) {
  progress(`cold run ${i + 1}/${coldRuns}`);
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child-cold"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cold child failed: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n");
  cold.push(JSON.parse(lines[lines.length - 1]!));
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
if (coldRuns > 0) {
  console.log(
    `cold (fresh process, d24): prepare membership ${fmt(median(cold.map((c) => c.prepareMs)))} ms, then prepareAll ${fmt(median(cold.map((c) => c.prepareAllMs)))} ms (medians of ${coldRuns})`,
  );
}

// Reference commitment paths (the state before the WASM kernels), one call each.
let reference: { scalarMs: number; duplexMs: number } | undefined;
if (withReference) {
  progress("reference commitment paths (d24 membership)");
  const c = compile(OpKind.Membership);
  const h = commitmentHeader(OpKind.Membership, c.config);
  let t0 = performance.now();
  circuitCommitmentScalar(h, c.circuit);
  const scalarMs = performance.now() - t0;
  t0 = performance.now();
  circuitCommitmentReference(h, c.circuit);
  reference = { scalarMs, duplexMs: performance.now() - t0 };
  console.log(
    `reference d24 membership commitment: TypeScript absorb ${fmt(scalarMs)} ms, DuplexChallenger with TypeScript permutation ${fmt(reference.duplexMs)} ms`,
  );
}

// Transcript share of one proof (simulated schedule of a d24 Membership proof).
progress("transcript");
const m24 = compile(OpKind.Membership).circuit;
let rounds = 0;
m24.layers.forEach((_, i) => (rounds += 2 * inputBitsOf(m24, i)));
let permutations = 0;
function transcript(permute: (s: Uint32Array) => void): Ext {
  const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG, permute);
  let e: Ext = EXT_ONE;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < 5; k++) t.observeExt(e);
    e = t.sampleExt();
  }
  return e;
}
transcript((s) => {
  permutations++;
  permuteInPlace(s);
});
const transcriptFast = measure(() => transcript(permuteFast), opts);
const transcriptTs = measure(() => transcript(permuteInPlace), { repeats: 3, minSampleMs: 0, warmup: 1 });
const state = new Uint32Array(16);
const permFast = measure(
  () => {
    for (let i = 0; i < 1000; i++) permuteFast(state);
  },
  { repeats: 9, minSampleMs: 20 },
);
const permTs = measure(
  () => {
    for (let i = 0; i < 100; i++) permuteInPlace(state);
  },
  { repeats: 9, minSampleMs: 20 },
);
const permFastUs = permFast.median,
  permTsUs = permTs.median * 10;
console.log(
  `transcript of one d24 membership proof (simulated: ${rounds} sumcheck rounds, ${permutations} permutations): WASM ${cell(transcriptFast)} ms, TypeScript ${cell(transcriptTs)} ms`,
);
console.log(
  `one permutation through DuplexChallenger's permutation: WASM ${fmt(permFastUs, 3)} µs, TypeScript ${fmt(permTsUs, 2)} µs`,
);

const results = {
  benchmark: "prepare",
  conditions: cond,
  settings: { depths, repeats, coldRuns, threads: 1, hashBackend: hashBackend(), wiring: wiring.name },
  units: "ms per call (median, min, max over repeats); permutation in µs",
  kinds: kindRows.map((r) => ({
    depth: r.depth,
    kind: r.kind,
    gates: r.gates,
    commitmentWords: r.commitmentWords,
    compileMs: summary(r.compile),
    commitmentMs: summary(r.commitment),
    wiringMs: summary(r.wiring),
    prepareMs: summary(r.prepare),
    prepareCpuMs: summary(r.prepareCpu),
  })),
  allKinds: allRows.map((r) => ({
    depth: r.depth,
    prepareAllMs: summary(r.prepareAll),
    prepareAllCpuMs: summary(r.prepareAllCpu),
    lastPhasesMs: r.phases,
    commitments: {
      twoLanesMs: summary(r.commitments2),
      fourSimdLanesMs: summary(r.commitments4),
      oneByOneMs: summary(r.commitmentsSequential),
    },
  })),
  cold: {
    runs: cold,
    prepareMsMedian: median(cold.map((c) => c.prepareMs)),
    prepareAllMsMedian: median(cold.map((c) => c.prepareAllMs)),
  },
  reference,
  transcript: {
    rounds,
    permutations,
    wasmMs: summary(transcriptFast),
    typescriptMs: summary(transcriptTs),
    permutationUs: { wasm: permFastUs, typescript: permTsUs },
  },
};
const path = writeResults("prepare", results);
progress(`wrote ${path}`);

const d24 = kindRows.find((r) => r.depth === 24 && r.kind === "membership");
const all24 = allRows.find((r) => r.depth === 24);
const round2 = (x: number | undefined) => (x === undefined ? NaN : Math.round(x * 100) / 100);
printHeadline({
  prepare_ms: round2(d24?.prepare.median),
  prepare_all_kinds_ms: round2(all24?.prepareAll.median),
  prepare_cpu_ms: round2(d24?.prepareCpu.median),
  prepare_all_kinds_cpu_ms: round2(all24?.prepareAllCpu.median),
  compile_ms: round2(d24?.compile.median),
  commitment_ms: round2(d24?.commitment.median),
  wiring_ms: round2(d24?.wiring.median),
  commitments_all_kinds_2_lanes_ms: round2(all24?.commitments2.median),
  commitments_all_kinds_4_lanes_ms: round2(all24?.commitments4.median),
  cold_prepare_ms: round2(median(cold.map((c) => c.prepareMs))),
  cold_prepare_all_kinds_ms: round2(median(cold.map((c) => c.prepareAllMs))),
  transcript_ms: round2(transcriptFast.median),
  transcript_ts_ms: round2(transcriptTs.median),
  permutation_us: round2(permFastUs * 1000) / 1000,
});
