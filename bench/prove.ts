/**
 * Proving one request (compat-v1 §13.1), single thread: prepared versus fresh, per kind, and
 * where a prepared proof's time goes.
 *
 *   npm run bench -- prove [--kinds membership,nonmembership,update] [--depth 24] [--repeats 21]
 *     [--fresh-repeats 5] [--reference-repeats 5] [--no-reference]
 *
 * Per kind (ms per proof, median (min–max) over the repeats, one proof per sample, after one
 * untimed proof):
 *   prepared   provePrepared(prepared, F(kind, depth, 5)): witness (§9.2 input vector and every
 *              layer's values) + statement transcript + GKR proof, with the default engine (WASM
 *              layer oracle and WASM circuit evaluation when the kernel module is built)
 *   fresh      proveSync(request, { depth }): compile + commitment + wiring + the same proof
 *   cpu        CPU time (user + system) of one prepared proof, median over `repeats` proofs: on a
 *              shared machine the wall-clock times include waiting for a core, this does not
 *   ratio      fresh / prepared (medians)
 *   reference  the same prepared proof on the TypeScript path (evaluateCircuit + the sparse
 *              TypeScript oracle), the engine before the WASM kernels
 * Split of a prepared proof (medians of the parts, each timed alone):
 *   witness     buildWitness
 *   transcript  every observe and sample of the proof's §11 schedule replayed on a fresh
 *               DuplexChallenger (statement prefix, z_0, 5 coefficients and 1 challenge per round,
 *               eval_x/eval_y, the combination challenge)
 *   rounds      the fused fold-and-evaluate round kernels (gkr_round)
 *   folding     binds of the last variable of each phase (gkr_round at length 2) and V(y*)
 *               (gkr_mle_base)
 *   tables      claim weights (eq tables), phase-1 tables from the gates, phase-2 start
 *   other       prepared − the parts (the prover driver in TypeScript: copying V in, round
 *               messages, β, witness checks, allocation)
 * The kernel parts come from a context that times every kernel call (performance.now around each
 * call, which adds a little): per part, the median over `repeats` proofs.
 *
 * Writes bench/results/prove.json; the last stdout line holds the headline medians
 * prove_prepared_ms and prove_fresh_ms (d24 Membership), per-kind values and the split.
 */
import type { Ext } from "../src/field/extension.js";
import { evaluateCircuit } from "../src/gkr/circuit.js";
import type { GkrProof } from "../src/gkr/proof.js";
import { proveGkr } from "../src/gkr/prover.js";
import { sparseLayerOracle } from "../src/gkr/sparse-oracle.js";
import { GkrKernels, gkrKernels } from "../src/gkr/wasm/kernels.js";
import { wasmLayerOracleFactory } from "../src/gkr/wasm/oracle.js";
import { hashBackend } from "../src/hash/fast-permutation.js";
import { goldenFixture } from "../src/smt/fixture.js";
import { buildInputVectorFor } from "../src/smt/witness.js";
import { prepare, type PreparedSync } from "../src/sync/prepared.js";
import { buildWitness, provePrepared, proveSync } from "../src/sync/prove.js";
import { statementTranscript } from "../src/sync/statement-transcript.js";
import { OP_KIND_NAMES, type OpKindName } from "../src/statement/types.js";
import type { OpRequest } from "../src/smt/operation.js";
import type { DuplexChallenger } from "../src/transcript/challenger.js";
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
import { choices, flag, int, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    kinds: choices(OP_KIND_NAMES),
    depth: int(1, 64),
    repeats: int(1, 10_000),
    "fresh-repeats": int(0, 1000),
    "reference-repeats": int(0, 1000),
    "no-reference": flag,
  },
  {
    smoke: { kinds: "membership", depth: "4", repeats: "1", "fresh-repeats": "1", "no-reference": "true" },
  },
);
const kinds = (args.get("kinds") ?? OP_KIND_NAMES.join(",")).split(",") as OpKindName[];
for (const k of kinds)
  if (!OP_KIND_NAMES.includes(k)) throw new Error(`unknown kind ${k} (known: ${OP_KIND_NAMES.join(", ")})`);
const depth = Number(args.get("depth") ?? 24);
const repeats = Number(args.get("repeats") ?? 21);
const freshRepeats = Number(args.get("fresh-repeats") ?? 5);
const referenceRepeats = args.has("no-reference") ? 0 : Number(args.get("reference-repeats") ?? 5);
const one = { minSampleMs: 0, warmup: 1 };

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# single thread; depth ${depth}; engine ${gkrKernels() ? "wasm" : "typescript"} oracle, hash backend ${hashBackend()}; ms per proof, median (min–max)`,
);

const summary = (t: Timing) => ({ median: t.median, min: t.min, max: t.max });
const cell = (t: Timing) => `${fmt(t.median)} (${fmt(t.min)}–${fmt(t.max)})`;

/** The prepared proof on the TypeScript path (what provePrepared did before the WASM kernels). */
function proveReference(prep: PreparedSync, request: OpRequest): GkrProof {
  const input = buildInputVectorFor(prep.compiled.layout, prep.config.leafMaxFields, request);
  const layers = evaluateCircuit(prep.circuit, input);
  const t = statementTranscript(
    prep.circuit,
    prep.kind,
    prep.config.depth,
    prep.commitment,
    request.publicInputs,
    layers[0]!,
  );
  return proveGkr(prep.circuit, layers, t, { oracleFactory: sparseLayerOracle }).proof;
}

/** Replays the §11 schedule of `proof` (statement prefix included) on a fresh transcript. */
function replayTranscript(prep: PreparedSync, request: OpRequest, outputs: Uint32Array, proof: GkrProof): void {
  const t: DuplexChallenger = statementTranscript(
    prep.circuit,
    prep.kind,
    prep.config.depth,
    prep.commitment,
    request.publicInputs,
    outputs,
  );
  for (let j = 0; j < prep.circuit.layers[0]!.widthBits; j++) t.sampleExt();
  const D = proof.layers.length;
  proof.layers.forEach((lp, i) => {
    for (const coeffs of lp.rounds) {
      for (const a of coeffs) t.observeExt(a as Ext);
      t.sampleExt();
    }
    t.observeExt(lp.evalX);
    t.observeExt(lp.evalY);
    if (i < D - 1) t.sampleExt();
  });
}

/** Median CPU milliseconds (user + system) of `fn` over `n` calls, after one untimed call. */
function cpuMedian(fn: () => unknown, n: number): number {
  fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    xs.push((c.user + c.system) / 1000);
  }
  xs.sort((a, b) => a - b);
  return xs[xs.length >> 1]!;
}

interface Row {
  kind: string;
  gates: number;
  prepared: Timing;
  preparedCpu: number;
  fresh: Timing;
  ratio: number;
  reference: Timing | null;
  split: Record<string, number>;
  kernelCalls: Record<string, { calls: number; msPerProof: number }>;
}
const rows: Row[] = [];

for (const name of kinds) {
  progress(`${name}: prepare`);
  const request = goldenFixture(name, depth, 5n);
  const prep = prepare(name, { depth });
  const gates = prep.circuit.layers.reduce((n, l) => n + l.gateKind.length, 0);
  progress(`${name}: prepared proofs`);
  const prepared = measure(() => provePrepared(prep, request), { ...one, repeats });
  const preparedCpu = cpuMedian(() => provePrepared(prep, request), repeats);
  progress(`${name}: fresh proofs`);
  const fresh = measure(() => proveSync(request, { depth }), { ...one, repeats: freshRepeats });
  let reference: Timing | null = null;
  if (referenceRepeats > 0) {
    progress(`${name}: TypeScript reference proofs`);
    reference = measure(() => proveReference(prep, request), { ...one, repeats: referenceRepeats });
  }

  progress(`${name}: split`);
  const witness = buildWitness(prep, request);
  const witnessT = measure(() => buildWitness(prep, request), { ...one, repeats });
  const { proof } = provePrepared(prep, request);
  const transcriptT = measure(() => replayTranscript(prep, request, witness.layers[0]!, proof), { ...one, repeats });
  const timed = GkrKernels.create({ timed: true });
  const factory = wasmLayerOracleFactory(timed);
  const runTimed = () => {
    const t = statementTranscript(
      prep.circuit,
      prep.kind,
      prep.config.depth,
      prep.commitment,
      request.publicInputs,
      witness.layers[0]!,
    );
    proveGkr(prep.circuit, witness.layers, t, { oracleFactory: factory });
  };
  runTimed();
  const parts: Record<"rounds" | "folding" | "tables", string[]> = {
    rounds: ["gkr_round"],
    folding: ["gkr_round_fold", "gkr_mle_base"],
    tables: ["gkr_eq", "gkr_weights", "gkr_fill", "gkr_phase2_start", "to_mont"],
  };
  const samples: Record<keyof typeof parts, number[]> = { rounds: [], folding: [], tables: [] };
  const totals = new Map<string, { calls: number; ms: number }>();
  for (let r = 0; r < repeats; r++) {
    for (const e of timed.timings!.values()) {
      e.calls = 0;
      e.ms = 0;
    }
    runTimed();
    for (const key of Object.keys(parts) as (keyof typeof parts)[]) {
      samples[key].push(parts[key].reduce((sum, n) => sum + (timed.timings!.get(n)?.ms ?? 0), 0));
    }
    for (const [n, e] of timed.timings!) {
      const t = totals.get(n) ?? { calls: 0, ms: 0 };
      t.calls += e.calls;
      t.ms += e.ms;
      totals.set(n, t);
    }
  }
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;
  const rounds = median(samples.rounds);
  const folding = median(samples.folding);
  const tables = median(samples.tables);
  const split = {
    witness: witnessT.median,
    transcript: transcriptT.median,
    rounds,
    folding,
    tables,
    other: Math.max(0, prepared.median - witnessT.median - transcriptT.median - rounds - folding - tables),
  };
  const kernelCalls: Row["kernelCalls"] = {};
  for (const [k, e] of totals)
    if (e.calls > 0) kernelCalls[k] = { calls: e.calls / repeats, msPerProof: e.ms / repeats };
  rows.push({
    kind: name,
    gates,
    prepared,
    preparedCpu,
    fresh,
    ratio: fresh.median / prepared.median,
    reference,
    split,
    kernelCalls,
  });
}

console.log("\n| kind | gates | prepared ms | prepared CPU ms | fresh ms | fresh/prepared | TypeScript path ms |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.kind} | ${r.gates} | ${cell(r.prepared)} | ${fmt(r.preparedCpu)} | ${cell(r.fresh)} | ${fmt(r.ratio)} | ${r.reference ? cell(r.reference) : "–"} |`,
  );
}
console.log("\nSplit of a prepared proof (ms):\n");
console.log("| kind | witness | transcript | rounds | folding | tables | other |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  const s = r.split;
  console.log(
    `| ${r.kind} | ${fmt(s.witness!, 2)} | ${fmt(s.transcript!, 2)} | ${fmt(s.rounds!, 2)} | ${fmt(s.folding!, 2)} | ${fmt(s.tables!, 2)} | ${fmt(s.other!, 2)} |`,
  );
}

const path = writeResults("prove", {
  conditions: cond,
  depth,
  repeats: { prepared: repeats, fresh: freshRepeats, reference: referenceRepeats },
  engine: gkrKernels() ? "wasm" : "typescript",
  rows: rows.map((r) => ({
    ...r,
    prepared: summary(r.prepared),
    fresh: summary(r.fresh),
    reference: r.reference ? summary(r.reference) : null,
  })),
});
progress(`results written to ${path}`);

const headline: Record<string, number> = {};
const m = rows.find((r) => r.kind === "membership") ?? rows[0]!;
headline["prove_prepared_ms"] = m.prepared.median;
headline["prove_fresh_ms"] = m.fresh.median;
headline["prove_prepared_cpu_ms"] = m.preparedCpu;
headline["fresh_over_prepared"] = m.ratio;
if (m.reference) headline["prove_prepared_typescript_ms"] = m.reference.median;
for (const r of rows) {
  headline[`prove_prepared_${r.kind}_ms`] = r.prepared.median;
  headline[`prove_prepared_cpu_${r.kind}_ms`] = r.preparedCpu;
  headline[`prove_fresh_${r.kind}_ms`] = r.fresh.median;
}
for (const [k, v] of Object.entries(m.split)) headline[`split_${k}_ms`] = v;
printHeadline(headline);
