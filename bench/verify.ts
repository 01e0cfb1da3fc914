/**
 * Verification time of one proof with the explicit table wiring versus the derived wiring, and
 * where the derived verifier's time goes.
 *
 *   npm run bench -- verify [--kinds membership,nonmembership,update] [--depths 24,28,32]
 *     [--repeats 9] [--min-sample-ms 100]
 *
 * Per (kind, depth): prepare once (compile + commitment), prove the golden fixture F(kind, d, 5),
 * then time `verifyPrepared` (the full §13.2 verifier: statement checks, input vector, GKR
 * verification with zero claimed outputs, input claim) with each wiring. Times are ms per
 * verification: median (fastest–slowest) of `repeats` samples, each sample at least
 * `min-sample-ms` long. Single thread.
 *
 * All functions are timed in interleaved rounds (each round samples every one once, after 5 warm-up
 * calls), so load changes on a shared machine affect them alike.
 *
 * Split of the derived verifier (each part timed alone by replaying exactly the work the verifier
 * does on this proof):
 *   statement: §13.2 steps 1–7 (checkStatement: leaf hashing, value digest) + step 8 input vector
 *     (native Poseidon2 hashing of the leaf and the d path steps);
 *   transcript: every observe and sample of §11 (statement prefix, z_0, 5 coefficients and one
 *     challenge per round, eval_x/eval_y, the combination challenge);
 *   wiring: every const~ and predicate evaluation (evalConstCombined + evalCombined per layer);
 *   sumcheck: the sumcheck verifier's checks with the challenges given (parsing, g(0)+g(1),
 *     g(r)), no hashing;
 *   input MLE: MLE(input)(x*) and MLE(input)(y*);
 *   other: the rest (claims, end checks, β(y), allocation): total − the parts (medians of separate
 *     samples, so it carries their noise and can come out slightly negative).
 * Also: the table wiring's evaluations alone, and the construction time of each wiring.
 */
import { TableWiring } from "../src/gkr/wiring/table.js";
import { DerivedRegularWiring } from "../src/gkr/wiring/derived.js";
import type { Claim } from "../src/gkr/claims.js";
import type { GkrProof } from "../src/gkr/proof.js";
import { verifyGkr } from "../src/gkr/verifier.js";
import type { LayerPredicates, WiringOracle } from "../src/gkr/wiring/oracle.js";
import type { GateKind } from "../src/gkr/circuit.js";
import type { Ext } from "../src/field/extension.js";
import { roundSum } from "../src/sumcheck/interpolate.js";
import { mleEvalBase } from "../src/sumcheck/mle.js";
import { verifySumcheck } from "../src/sumcheck/verifier.js";
import type { DuplexChallenger } from "../src/transcript/challenger.js";
import { goldenFixture } from "../src/smt/fixture.js";
import { checkStatement } from "../src/smt/semantics.js";
import { buildInputVectorFor } from "../src/smt/witness.js";
import { prepare, type PreparedSync } from "../src/sync/prepared.js";
import { provePrepared } from "../src/sync/prove.js";
import { statementTranscript } from "../src/sync/statement-transcript.js";
import { verifyPrepared } from "../src/sync/verify.js";
import { OP_KIND_NAMES, type OpKindName } from "../src/statement/types.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults, type Timing } from "./lib/index.js";
import { choices, ints, num, int, parseOptions } from "./lib/options.js";

const args = parseOptions(
  { kinds: choices(OP_KIND_NAMES), depths: ints(1, 64), repeats: int(1, 10_000), "min-sample-ms": num(0, 60_000) },
  {
    smoke: { kinds: "membership", depths: "4", repeats: "1", "min-sample-ms": "0" },
  },
);
const kinds = (args.get("kinds") ?? OP_KIND_NAMES.join(",")).split(",") as OpKindName[];
const depths = (args.get("depths") ?? "24,28,32").split(",").map(Number);
const repeats = Number(args.get("repeats") ?? 9);
const minSampleMs = Number(args.get("min-sample-ms") ?? 100);
const opts = { repeats, minSampleMs };
for (const k of kinds)
  if (!OP_KIND_NAMES.includes(k)) throw new Error(`unknown kind ${k} (known: ${OP_KIND_NAMES.join(", ")})`);

/** Records every wiring call of one verification, for replay. */
class RecordingWiring implements WiringOracle {
  readonly calls: { layer: number; claims: readonly Claim[]; x: readonly Ext[] | null; y: readonly Ext[] | null }[] =
    [];
  constructor(private readonly inner: WiringOracle) {}
  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    return this.inner.evalPredicate(layer, kind, z, x, y);
  }
  evalConst(layer: number, z: readonly Ext[]): Ext {
    return this.inner.evalConst(layer, z);
  }
  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    this.calls.push({ layer, claims, x, y });
    return this.inner.evalCombined!(layer, claims, x, y);
  }
  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    this.calls.push({ layer, claims, x: null, y: null });
    return this.inner.evalConstCombined!(layer, claims);
  }
}

function replayWiring(w: WiringOracle, calls: RecordingWiring["calls"]): void {
  for (const c of calls) {
    if (c.x === null) w.evalConstCombined!(c.layer, c.claims);
    else w.evalCombined!(c.layer, c.claims, c.x, c.y!);
  }
}

/** The verifier's transcript work on this proof: statement prefix and the §11 GKR schedule. */
function replayTranscript(
  prep: PreparedSync,
  publicInputs: Parameters<typeof statementTranscript>[4],
  proof: GkrProof,
): void {
  const zeros = new Uint32Array(2 ** prep.shape.layerWidthBits[0]!);
  const t = statementTranscript(prep.circuit, prep.kind, prep.config.depth, prep.commitment, publicInputs, zeros);
  for (let j = 0; j < prep.shape.layerWidthBits[0]!; j++) t.sampleExt();
  const D = proof.layers.length;
  proof.layers.forEach((lp, i) => {
    for (const round of lp.rounds) {
      for (const a of round) t.observeExt(a);
      t.sampleExt();
    }
    t.observeExt(lp.evalX);
    t.observeExt(lp.evalY);
    if (i < D - 1) t.sampleExt();
  });
}

/** A transcript stand-in that hands out recorded challenges and ignores observations. */
function challengeFeed(challenges: readonly Ext[]): { reset(): void; transcript: DuplexChallenger } {
  let k = 0;
  const ignore = (): void => {};
  const fake = {
    observe: ignore,
    observeUnchecked: ignore,
    observeMany: ignore,
    observeAllUnchecked: ignore,
    observeExt: ignore,
    observeDigest: ignore,
    observeBytes: ignore,
    sampleExt: (): Ext => challenges[k++]!,
  };
  return {
    reset: () => {
      k = 0;
    },
    transcript: fake as unknown as DuplexChallenger,
  };
}

/**
 * Times several functions in interleaved rounds (round r samples every function once), so that
 * load changes on a shared machine affect all of them alike. Each function first gets `warmup`
 * untimed calls and a calls-per-sample count giving samples of at least `minSampleMs`.
 */
function measureInterleaved(
  fns: Record<string, () => unknown>,
  o: { repeats: number; minSampleMs: number; warmup: number },
): Record<string, Timing> {
  const names = Object.keys(fns);
  const calls: Record<string, number> = {};
  for (const name of names) {
    const fn = fns[name]!;
    for (let i = 0; i < o.warmup; i++) fn();
    let n = 1;
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      const dt = performance.now() - t0;
      if (dt >= o.minSampleMs || n >= 1 << 16) {
        calls[name] = dt > 0 ? Math.max(n, Math.ceil((n * o.minSampleMs) / dt)) : n;
        break;
      }
      n *= 2;
    }
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < o.repeats; r++) {
    for (const name of names) {
      const fn = fns[name]!,
        n = calls[name]!;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      samples[name]!.push((performance.now() - t0) / n);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const xs = samples[name]!;
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
      return [
        name,
        { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, callsPerSample: calls[name]!, samples: xs },
      ];
    }),
  );
}

interface Row {
  kind: OpKindName;
  depth: number;
  layers: number;
  gates: number;
  tableMs: Timing;
  derivedMs: Timing;
  ratio: number;
  split: Record<string, number>;
  wiringTableMs: number;
  wiringDerivedMs: number;
  buildMs: { table: number; derived: number };
  derived: DerivedRegularWiring["stats"];
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# repeats ${repeats}, samples ≥ ${minSampleMs} ms; ms per verification, median (fastest–slowest); single thread`,
);
const rows: Row[] = [];
const t = (x: Timing) => `${fmt(x.median, 2)} (${fmt(x.min, 2)}–${fmt(x.max, 2)})`;

for (const kindName of kinds) {
  for (const depth of depths) {
    progress(`${kindName} d${depth}: prepare`);
    const tb0 = performance.now();
    const base = prepare(kindName, { depth }, { wiring: (c) => new TableWiring(c.circuit) });
    const tableBuild = base.timings.wiringMs;
    const tb1 = performance.now();
    const derivedWiring = new DerivedRegularWiring(base.circuit, base.compiled.tags);
    const derivedBuild = performance.now() - tb1;
    const tablePrep: PreparedSync = base;
    const derivedPrep: PreparedSync = Object.freeze({ ...base, wiring: derivedWiring });
    progress(`${kindName} d${depth}: prove (prepare took ${fmt((tb1 - tb0) / 1000, 1)} s)`);
    const request = goldenFixture(base.kind, depth, 5n);
    const result = provePrepared(base, request);
    for (const p of [tablePrep, derivedPrep]) {
      const v = verifyPrepared(p, request, result);
      if (!v.ok) throw new Error(`${kindName} d${depth}: the proof does not verify (${v.code})`);
    }

    // Record one derived verification (wiring calls, challenges) for the replays.
    const rec = new RecordingWiring(derivedWiring);
    const zeros = new Uint32Array(2 ** base.shape.layerWidthBits[0]!);
    const tr = statementTranscript(base.circuit, base.kind, depth, base.commitment, request.publicInputs, zeros);
    const challenges: Ext[] = [];
    const sampleExt = tr.sampleExt.bind(tr);
    tr.sampleExt = () => {
      const c = sampleExt();
      challenges.push(c);
      return c;
    };
    const gkr = verifyGkr(base.shape, rec, zeros, result.proof, tr);
    if (!gkr.ok) throw new Error(`${kindName} d${depth}: recording verification failed`);
    const input = buildInputVectorFor(base.compiled.layout, base.config.leafMaxFields, request);

    // Challenges of each layer's sumcheck: skip z_0, then per layer 2s rounds and one combination challenge.
    const s0 = base.shape.layerWidthBits[0]!;
    const perLayer: Ext[][] = [];
    let at = s0;
    result.proof.layers.forEach((lp) => {
      perLayer.push(challenges.slice(at, at + lp.rounds.length));
      at += lp.rounds.length + 1;
    });
    const feeds = perLayer.map(challengeFeed);
    const claims0 = result.proof.layers.map((lp) => roundSum(lp.rounds[0]!));
    const sumcheckReplay = () => {
      result.proof.layers.forEach((lp, i) => {
        feeds[i]!.reset();
        const r = verifySumcheck(claims0[i]!, lp.rounds, lp.rounds.length, feeds[i]!.transcript);
        if (!r.ok) throw new Error("sumcheck replay rejected");
      });
    };

    progress(`${kindName} d${depth}: verify and split (interleaved)`);
    const tableWiring = tablePrep.wiring;
    const m = measureInterleaved(
      {
        table: () => verifyPrepared(tablePrep, request, result),
        derived: () => verifyPrepared(derivedPrep, request, result),
        statement: () => {
          checkStatement(request, base.config);
          buildInputVectorFor(base.compiled.layout, base.config.leafMaxFields, request);
        },
        transcript: () => replayTranscript(base, request.publicInputs, result.proof),
        wiring: () => replayWiring(derivedWiring, rec.calls),
        wiringTable: () => replayWiring(tableWiring, rec.calls),
        sumcheck: sumcheckReplay,
        inputMle: () => {
          mleEvalBase(input, gkr.inputClaim.x);
          mleEvalBase(input, gkr.inputClaim.y);
        },
      },
      { ...opts, warmup: 5 },
    );
    const tableMs = m["table"]!,
      derivedMs = m["derived"]!;
    const statement = m["statement"]!.median,
      transcript = m["transcript"]!.median,
      wiringDerived = m["wiring"]!.median;
    const wiringTable = m["wiringTable"]!.median,
      sumcheck = m["sumcheck"]!.median,
      inputMle = m["inputMle"]!.median;
    const total = derivedMs.median;
    const split = {
      total,
      statement,
      transcript,
      wiring: wiringDerived,
      sumcheck,
      inputMle,
      other: total - statement - transcript - wiringDerived - sumcheck - inputMle,
    };
    const gates = base.circuit.layers.reduce((n, l) => n + l.gateKind.length, 0);
    const row: Row = {
      kind: kindName,
      depth,
      layers: base.circuit.layers.length,
      gates,
      tableMs,
      derivedMs,
      ratio: tableMs.median / derivedMs.median,
      split,
      wiringTableMs: wiringTable,
      wiringDerivedMs: wiringDerived,
      buildMs: { table: tableBuild, derived: derivedBuild },
      derived: derivedWiring.stats,
    };
    rows.push(row);
    console.log(
      `${kindName.padEnd(14)} d${String(depth).padEnd(3)} gates ${String(gates).padEnd(7)} table ${t(tableMs).padEnd(24)} derived ${t(derivedMs).padEnd(22)} ` +
        `${fmt(row.ratio)}×  wiring ${fmt(wiringTable, 1)} → ${fmt(wiringDerived, 2)} ms (${fmt(wiringTable / wiringDerived)}×)`,
    );
    console.log(
      `  split (derived, ms): statement ${fmt(statement, 2)}, transcript ${fmt(transcript, 2)}, wiring ${fmt(wiringDerived, 2)}, ` +
        `sumcheck ${fmt(sumcheck, 2)}, input MLE ${fmt(inputMle, 2)}, other ${fmt(split.other, 2)}; ` +
        `build: table ${fmt(tableBuild, 0)} ms, derived ${fmt(derivedBuild, 0)} ms (${derivedWiring.stats.patterns} patterns, ` +
        `${derivedWiring.stats.placements} placements, residue ${derivedWiring.stats.residueGates} gates)`,
    );
  }
}

const results = {
  benchmark: "verify",
  conditions: cond,
  settings: { kinds, depths, repeats, minSampleMs, threads: 1, fixture: "goldenFixture(kind, depth, 5)" },
  units: "ms per verification (median, min, max over samples); split parts are medians of separate replays",
  rows: rows.map((r) => ({
    kind: r.kind,
    depth: r.depth,
    layers: r.layers,
    gates: r.gates,
    verifyTableMs: {
      median: r.tableMs.median,
      min: r.tableMs.min,
      max: r.tableMs.max,
      callsPerSample: r.tableMs.callsPerSample,
    },
    verifyDerivedMs: {
      median: r.derivedMs.median,
      min: r.derivedMs.min,
      max: r.derivedMs.max,
      callsPerSample: r.derivedMs.callsPerSample,
    },
    ratio: r.ratio,
    wiringOnlyMs: { table: r.wiringTableMs, derived: r.wiringDerivedMs },
    splitDerivedMs: r.split,
    wiringBuildMs: r.buildMs,
    derivedStats: r.derived,
  })),
};
const path = writeResults("verify", results);
progress(`wrote ${path}`);

const head = rows.find((r) => r.kind === "membership" && r.depth === 24) ?? rows[0]!;
const round = (x: number) => Math.round(x * 100) / 100;
printHeadline({
  point: `${head.kind} d${head.depth}`,
  verify_derived_ms: round(head.derivedMs.median),
  verify_table_ms: round(head.tableMs.median),
  ratio: round(head.ratio),
  wiring_derived_ms: round(head.wiringDerivedMs),
  wiring_table_ms: round(head.wiringTableMs),
  transcript_ms: round(head.split["transcript"]!),
  sumcheck_ms: round(head.split["sumcheck"]!),
  statement_ms: round(head.split["statement"]!),
  input_mle_ms: round(head.split["inputMle"]!),
  other_ms: round(head.split["other"]!),
});
