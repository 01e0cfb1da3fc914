/**
 * Encoded proof sizes (compat-v1 §14.1, §18): inner-proof-v1 bytes and layer counts per kind and
 * depth, from real proofs of the golden fixture.
 *
 *   npm run bench -- size [--depths 24,28,32] [--kinds membership,nonmembership,update] [--no-verify]
 *
 * For each kind and depth: prepare(kind, {depth}), provePrepared on F(kind, depth, 5) (§17),
 * encodeSyncResult → bytes. Compared with
 *   the formula   170 + Σ_layers (36 + 162·s_in), s_in = width bits of the vector the layer reads
 *                 (computed here from the compiled circuit's shape, independently of the codec);
 *   the spec      §18 sizes at depth 24: 176,948 / 181,646 / 186,992 bytes.
 * Each proof is decoded (layer count, 2·s_in rounds per layer) and, unless --no-verify, verified
 * against its request. Sizes are deterministic, so there are no repeats; the prove time of the one
 * run is recorded for information only (single sample, not a benchmark figure).
 * The membership growth from the smallest to the largest depth is reported in per cent (spec: 24 → 32
 * is +2.93 %).
 *
 * Writes bench/results/size.json; the last stdout line holds size_<kind>_d<depth>_bytes,
 * layers_<kind>_d<depth>, membership_growth_<lo>_to_<hi>_pct, formula_matches and spec_d24_matches
 * (1 = every size equals the formula / the spec, 0 = not).
 */
import { createHash } from "node:crypto";
import { decodeProof } from "../src/codec/decode.js";
import { inputBitsOf, type Circuit } from "../src/gkr/circuit.js";
import { goldenFixture } from "../src/smt/fixture.js";
import { encodeSyncResult, verifyEncoded } from "../src/sync/encoded.js";
import { prepare } from "../src/sync/prepared.js";
import { provePrepared } from "../src/sync/prove.js";
import { OpKind, OP_KIND_NAMES, type OpKindName } from "../src/statement/types.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { choices, flag, ints, parseOptions } from "./lib/options.js";

/** compat-v1 §18: encoded proof sizes of F(kind, 24, 5) in bytes. */
const SPEC_D24_BYTES: Readonly<Record<OpKindName, number>> = {
  membership: 176948,
  nonmembership: 181646,
  update: 186992,
};
/** compat-v1 §9.7: layers of every kind and depth with the default leaf bound. */
const SPEC_LAYERS = 118;
/** compat-v1 §14.1 / §18 (informative): membership growth 24 → 32 in per cent. */
const SPEC_MEMBERSHIP_GROWTH_24_32_PCT = 2.93;

const args = parseOptions(
  { depths: ints(1, 64), kinds: choices(OP_KIND_NAMES), "no-verify": flag },
  {
    smoke: { depths: "4", kinds: "membership" },
  },
);
const depths = (args.get("depths") ?? "24,28,32").split(",").map(Number);
const kinds = (args.get("kinds") ?? OP_KIND_NAMES.join(",")).split(",") as OpKindName[];
const withVerify = !args.has("no-verify");
for (const k of kinds)
  if (!OP_KIND_NAMES.includes(k)) throw new Error(`unknown kind ${k} (known: ${OP_KIND_NAMES.join(", ")})`);
for (const d of depths)
  if (!Number.isInteger(d) || d < 1 || d > 64) throw new Error(`depth must be an integer in 1..64, got ${d}`);

/** 170 + Σ_layers (36 + 162·s_in) (§14.1), with s_in read from the circuit. */
function formulaBytes(circuit: Circuit): number {
  let size = 170;
  for (let i = 0; i < circuit.layers.length; i++) size += 36 + 162 * inputBitsOf(circuit, i);
  return size;
}

/** Layers per s_in value, e.g. {8: 30, 9: 56, 10: 32}. */
function inputBitsHistogram(circuit: Circuit): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < circuit.layers.length; i++) {
    const s = String(inputBitsOf(circuit, i));
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}

interface Row {
  kind: OpKindName;
  depth: number;
  layers: number;
  gates: number;
  inputWidthBits: number;
  inputBitsHistogram: Record<string, number>;
  rounds: number;
  bytes: number;
  formulaBytes: number;
  formulaMatches: boolean;
  specBytes: number | null;
  specMatches: boolean | null;
  decodedLayers: number;
  verified: boolean | null;
  sha256: string;
  proveMsSingleRun: number;
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# golden fixture F(kind, depth, 5), depths ${depths.join(",")}; sizes in bytes; formula 170 + Σ_layers (36 + 162·s_in)`,
);
console.log(
  `${"kind".padEnd(14)} ${"depth".padStart(5)} ${"layers".padStart(6)} ${"gates".padStart(8)} ${"bytes".padStart(9)} ${"formula".padStart(9)} ${"spec".padStart(9)}  s_in histogram`,
);

const rows: Row[] = [];
for (const kindName of kinds) {
  const kind: OpKind = kindName;
  for (const depth of depths) {
    progress(`${kindName} d${depth}: prepare, prove, encode`);
    const prep = prepare(kind, { depth });
    const request = goldenFixture(kind, depth, 5n);
    const t0 = performance.now();
    const result = provePrepared(prep, request);
    const proveMs = performance.now() - t0;
    const bytes = encodeSyncResult(prep, result);
    const decoded = decodeProof(bytes);
    const rounds = decoded.proof.layers.reduce((n, l) => n + l.rounds.length, 0);
    const verified = withVerify ? verifyEncoded(prep, request, bytes).ok : null;
    const circuit = prep.circuit;
    const gates = circuit.layers.reduce((n, l) => n + l.gateKind.length, 0);
    const formula = formulaBytes(circuit);
    const spec = depth === 24 ? SPEC_D24_BYTES[kindName] : null;
    const row: Row = {
      kind: kindName,
      depth,
      layers: circuit.layers.length,
      gates,
      inputWidthBits: circuit.inputWidthBits,
      inputBitsHistogram: inputBitsHistogram(circuit),
      rounds,
      bytes: bytes.length,
      formulaBytes: formula,
      formulaMatches: formula === bytes.length,
      specBytes: spec,
      specMatches: spec === null ? null : spec === bytes.length,
      decodedLayers: decoded.proof.layers.length,
      verified,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      proveMsSingleRun: proveMs,
    };
    rows.push(row);
    const hist = Object.entries(row.inputBitsHistogram)
      .map(([s, n]) => `${n}×${s}`)
      .join(" ");
    console.log(
      `${kindName.padEnd(14)} ${String(depth).padStart(5)} ${String(row.layers).padStart(6)} ${String(gates).padStart(8)} ${String(row.bytes).padStart(9)} ` +
        `${(row.formulaMatches ? "=" : String(formula)).padStart(9)} ${(spec === null ? "—" : row.specMatches ? "=" : String(spec)).padStart(9)}  ${hist}` +
        (verified === false ? "  NOT VERIFIED" : ""),
    );
  }
}

const find = (k: OpKindName, d: number) => rows.find((r) => r.kind === k && r.depth === d);
const lo = Math.min(...depths),
  hi = Math.max(...depths);
const growth = (k: OpKindName): number | null => {
  const a = find(k, lo),
    b = find(k, hi);
  return a && b && lo !== hi ? ((b.bytes - a.bytes) / a.bytes) * 100 : null;
};
const growthByKind = Object.fromEntries(kinds.map((k) => [k, growth(k)]));
for (const k of kinds) {
  const g = growthByKind[k];
  if (g !== null && g !== undefined)
    console.log(
      `# ${k} growth d${lo} → d${hi}: +${fmt(g, 2)} %${k === "membership" && lo === 24 && hi === 32 ? ` (spec +${SPEC_MEMBERSHIP_GROWTH_24_32_PCT} %)` : ""}`,
    );
}
const formulaMatches = rows.every((r) => r.formulaMatches && r.decodedLayers === r.layers);
const specRows = rows.filter((r) => r.specMatches !== null);
const specMatches = specRows.every((r) => r.specMatches);
const layersMatch = rows.every((r) => r.layers === SPEC_LAYERS);
console.log(
  `# formula ${formulaMatches ? "matches every proof" : "DIFFERS"}; §18 d24 sizes ${specRows.length === 0 ? "not measured" : specMatches ? "match" : "DIFFER"}; ${layersMatch ? `${SPEC_LAYERS} layers everywhere` : "layer counts differ from 118"}`,
);

const path = writeResults("size", {
  benchmark: "size",
  conditions: cond,
  settings: { depths, kinds, fixture: "goldenFixture(kind, depth, 5)", verify: withVerify, threads: 1 },
  units: "bytes; proveMsSingleRun is one unrepeated run in ms (informative)",
  spec: { d24Bytes: SPEC_D24_BYTES, layers: SPEC_LAYERS, membershipGrowth24To32Pct: SPEC_MEMBERSHIP_GROWTH_24_32_PCT },
  rows,
  growthPct: { from: lo, to: hi, byKind: growthByKind },
  formulaMatches,
  specD24Matches: specRows.length === 0 ? null : specMatches,
});
progress(`wrote ${path}`);

const headline: Record<string, number | string> = {};
for (const r of rows) headline[`size_${r.kind}_d${r.depth}_bytes`] = r.bytes;
for (const r of rows) headline[`layers_${r.kind}_d${r.depth}`] = r.layers;
const mg = growthByKind["membership"];
if (mg !== null && mg !== undefined) headline[`membership_growth_${lo}_to_${hi}_pct`] = Math.round(mg * 100) / 100;
headline["formula_matches"] = formulaMatches ? 1 : 0;
if (specRows.length > 0) headline["spec_d24_matches"] = specMatches ? 1 : 0;
printHeadline(headline);
