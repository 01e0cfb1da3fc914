/**
 * Field and hash primitives, single thread, TypeScript and WASM side by side.
 *
 *   npm run bench -- primitives [--sizes 16,20] [--repeats 9] [--min-sample-ms 20]
 *
 * Sizes are log2 of the array length in field elements (extension arrays: elements of K, each
 * 4 words; Poseidon2: the states array holds 2^k words = 2^k / 16 permutations). Rates are
 * millions per second at the median / slowest / fastest sample:
 *   base mul, ext mul, inner product: products per second;
 *   folds: table entries read per second (a fold of a table of len entries counts len; it
 *     writes len/2); "fold ext" folds an extension table, "fold base·ext" a base table with an
 *     extension challenge;
 *   Poseidon2: permutations per second.
 * WASM figures are for the region API on data already in WASM memory (products on Montgomery
 * form, folds out of place), except rows marked "array API", which include copying in and out
 * and the canonical-range check.
 */
import { P, vecMul, innerProduct, ExtVector, type Ext } from "../src/field/index.js";
import { permuteInPlace } from "../src/hash/poseidon2.js";
import { Kernels, foldBaseRef, foldBaseExtRef, foldExtRef, extVecMulRef } from "../src/kernels/index.js";
import {
  conditions,
  conditionsLine,
  measure,
  rate,
  progress,
  writeResults,
  printHeadline,
  fmt,
  type Rate,
  type Timing,
} from "./lib/index.js";
import { int, ints, num, parseOptions } from "./lib/options.js";

const args = parseOptions(
  { sizes: ints(1, 24), repeats: int(1, 1000), "min-sample-ms": num(0, 60_000) },
  {
    smoke: { sizes: "8", repeats: "1", "min-sample-ms": "0" },
  },
);
const sizes = (args.get("sizes") ?? "16,20").split(",").map(Number);
const repeats = Number(args.get("repeats") ?? 9);
const minSampleMs = Number(args.get("min-sample-ms") ?? 20);
const opts = { repeats, minSampleMs };

function randomWords(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * P);
  return out;
}
const randomElement = (): number => Math.floor(Math.random() * P);
const randomExt = (): Ext => [randomElement(), randomElement(), randomElement(), randomElement()];

interface Row {
  op: string;
  logSize: number;
  unit: string;
  ts?: { timing: Timing; rate: Rate };
  wasm?: { timing: Timing; rate: Rate };
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# repeats ${repeats}, samples ≥ ${minSampleMs} ms; rates in millions per second, median (slowest–fastest)`,
);

const kernels = Kernels.create({ initialPages: 1024 });
const k = kernels.instance;
const rows: Row[] = [];

function row(
  op: string,
  logSize: number,
  unit: string,
  count: number,
  ts: (() => unknown) | undefined,
  wasm: (() => unknown) | undefined,
): Row {
  progress(`${op} 2^${logSize}`);
  const r: Row = { op, logSize, unit };
  if (ts) {
    const t = measure(ts, opts);
    r.ts = { timing: t, rate: rate(t, count) };
  }
  if (wasm) {
    const t = measure(wasm, opts);
    r.wasm = { timing: t, rate: rate(t, count) };
  }
  rows.push(r);
  const cell = (x?: { rate: Rate }) =>
    x ? `${fmt(x.rate.median, 2)} (${fmt(x.rate.min, 2)}–${fmt(x.rate.max, 2)})` : "—";
  const speedup = r.ts && r.wasm ? `${fmt(r.wasm.rate.median / r.ts.rate.median)}×` : "";
  console.log(
    `${op.padEnd(24)} 2^${String(logSize).padEnd(3)} ${unit.padEnd(8)} TS ${cell(r.ts).padEnd(26)} WASM ${cell(r.wasm).padEnd(26)} ${speedup}`,
  );
  return r;
}

for (const logSize of sizes) {
  const n = 2 ** logSize;
  const a = randomWords(n),
    b = randomWords(n),
    out = new Uint32Array(n);
  const ea = new ExtVector(n, randomWords(4 * n)),
    eb = new ExtVector(n, randomWords(4 * n));
  const r = randomElement(),
    re = randomExt();

  // Regions: Montgomery-form operands for the product kernels.
  const ra = kernels.heap.allocFrom(a),
    rb = kernels.heap.allocFrom(b),
    rd = kernels.heap.alloc(4 * n);
  const rea = kernels.heap.allocFrom(ea.data),
    reb = kernels.heap.allocFrom(eb.data);
  for (const x of [ra, rb, rea, reb]) k.toMontgomery(x, x);

  row(
    "base mul",
    logSize,
    "mul",
    n,
    () => vecMul(a, b, out),
    () => k.baseMul(rd, ra, rb, n),
  );
  row(
    "ext mul",
    logSize,
    "mul",
    n,
    () => extVecMulRef(ea, eb),
    () => k.extMul(rd, rea, reb, n),
  );
  row(
    "inner product",
    logSize,
    "mul+add",
    n,
    () => innerProduct(a, b),
    () => k.innerProduct(ra, rb, n),
  );
  row(
    "fold base",
    logSize,
    "entry",
    n,
    () => foldBaseRef(a, r),
    () => k.foldBase(rd, ra, n, r),
  );
  row(
    "fold base·ext",
    logSize,
    "entry",
    n,
    () => foldBaseExtRef(a, re),
    () => k.foldBaseExt(rd, ra, n, re),
  );
  row(
    "fold ext",
    logSize,
    "entry",
    n,
    () => foldExtRef(ea, re),
    () => k.foldExt(rd, rea, n, re),
  );

  const perms = n / 16;
  const states = randomWords(n);
  const rs = kernels.heap.allocFrom(states);
  row(
    "poseidon2",
    logSize,
    "perm",
    perms,
    () => {
      for (let i = 0; i < n; i += 16) permuteInPlace(states.subarray(i, i + 16));
    },
    () => k.poseidon2Permute(rs, perms),
  );
  row("base mul (array API)", logSize, "mul", n, undefined, () => kernels.vecMul(a, b));
  row("poseidon2 (array API)", logSize, "perm", perms, undefined, () => kernels.permuteMany(states));

  for (const x of [ra, rb, rd, rea, reb, rs]) kernels.heap.release(x);
}

const results = {
  benchmark: "primitives",
  conditions: cond,
  settings: { sizes, repeats, minSampleMs, threads: 1 },
  units: "rates in millions per second; timings in ms per call",
  rows: rows.map((x) => ({
    op: x.op,
    logSize: x.logSize,
    unit: x.unit,
    ts: x.ts && {
      rate: x.ts.rate,
      ms: { median: x.ts.timing.median, min: x.ts.timing.min, max: x.ts.timing.max },
      callsPerSample: x.ts.timing.callsPerSample,
    },
    wasm: x.wasm && {
      rate: x.wasm.rate,
      ms: { median: x.wasm.timing.median, min: x.wasm.timing.min, max: x.wasm.timing.max },
      callsPerSample: x.wasm.timing.callsPerSample,
    },
  })),
};
const path = writeResults("primitives", results);
progress(`wrote ${path}`);

// Headline: medians at the largest size.
const top = Math.max(...sizes);
const pick = (op: string, side: "ts" | "wasm"): number => {
  const found = rows.find((x) => x.op === op && x.logSize === top)?.[side];
  return found ? Math.round(found.rate.median * 100) / 100 : NaN;
};
printHeadline({
  size: `2^${top}`,
  poseidon2_wasm_Mperm_s: pick("poseidon2", "wasm"),
  poseidon2_ts_Mperm_s: pick("poseidon2", "ts"),
  base_mul_wasm_M_s: pick("base mul", "wasm"),
  base_mul_ts_M_s: pick("base mul", "ts"),
  ext_mul_wasm_M_s: pick("ext mul", "wasm"),
  ext_mul_ts_M_s: pick("ext mul", "ts"),
  inner_product_wasm_M_s: pick("inner product", "wasm"),
  inner_product_ts_M_s: pick("inner product", "ts"),
  fold_base_wasm_M_s: pick("fold base", "wasm"),
  fold_base_ts_M_s: pick("fold base", "ts"),
  fold_base_ext_challenge_wasm_M_s: pick("fold base·ext", "wasm"),
  fold_base_ext_challenge_ts_M_s: pick("fold base·ext", "ts"),
  fold_ext_wasm_M_s: pick("fold ext", "wasm"),
  fold_ext_ts_M_s: pick("fold ext", "ts"),
});
