/**
 * A prepared circuit shared between threads without copying (compat-v1 §13.3: a prepared circuit
 * is immutable and shareable; §15: batch jobs share compilation, wiring and the commitment).
 *
 * `sharePrepared` copies every typed array of the compiled circuit (gates, constants, scope
 * tags) once into one `SharedArrayBuffer` and returns a postMessage-able descriptor;
 * `attachPrepared` (in any thread) rebuilds a `PreparedSync` whose arrays are views of that
 * buffer: no compilation, no commitment. Only the verifier's wiring oracle is rebuilt per
 * thread (it keeps per-thread caches), of the same kind as the original's (derived closed form,
 * or explicit table), and only when a verification first asks for it: a thread that only
 * proves never pays for it.
 */
import type { Circuit, Layer } from "../../gkr/circuit.js";
import type { CircuitTags, FamilyPlacement, LayerTags } from "../../gkr/builder.js";
import { TableWiring } from "../../gkr/wiring/table.js";
import { DerivedRegularWiring } from "../../gkr/wiring/derived.js";
import type { CompiledCircuit } from "../../smt/compile.js";
import type { InputLayout } from "../../smt/layout.js";
import { syncConfig, type SyncConfig } from "../../smt/config.js";
import { assemblePrepared, opKindOf, type PrepareOptions, type PreparedSync } from "../prepared.js";
import type { OpKind } from "../../statement/types.js";
import { ParallelError } from "./errors.js";

/** Byte offsets (in `SharedPrepared.buffer`) of one layer's arrays, in this order. */
const ARRAYS = [
  "gateKind",
  "gateOut",
  "gateIn1",
  "gateIn2",
  "gateCoeff",
  "constWire",
  "constValue",
  "gateFamily",
  "gateBlock",
  "constFamily",
  "constBlock",
] as const;

/** One layer of a shared circuit: sizes, array offsets and the (small) tag placements. */
export interface SharedLayer {
  readonly widthBits: number;
  /** Number of gates. */
  readonly gates: number;
  /** Number of constants. */
  readonly consts: number;
  /** Byte offsets of gateKind (u8), gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue
   * (u32), gateFamily, gateBlock, constFamily, constBlock (i32); each 8-byte aligned. */
  readonly offsets: readonly number[];
  readonly families: readonly FamilyPlacement[];
  readonly untaggedBase: number;
}

/**
 * A prepared circuit as a structured-cloneable descriptor: the buffer is shared (not copied) by
 * `postMessage`; everything else is a few hundred bytes per layer.
 */
export interface SharedPrepared {
  /** Descriptor format, 1. */
  readonly format: 1;
  readonly kind: OpKind;
  readonly config: SyncConfig;
  /** Full circuit commitment (§12), 8 canonical elements. */
  readonly commitment: readonly number[];
  readonly inputWidthBits: number;
  /** Output layer first. */
  readonly layers: readonly SharedLayer[];
  readonly layout: InputLayout;
  readonly outputCount: number;
  /**
   * The original's wiring oracle: "table" (`TableWiring`) or "derived" (`DerivedRegularWiring`,
   * also used for any other oracle: every oracle returns the same field values).
   */
  readonly wiring: "derived" | "table";
  /** Every layer's arrays, back to back. */
  readonly buffer: SharedArrayBuffer;
}

const shared = new WeakMap<PreparedSync, SharedPrepared>();

type ArrayName = (typeof ARRAYS)[number];
type Arrays = Record<ArrayName, Uint8Array | Uint32Array | Int32Array>;

function layerArrays(layer: Layer, tags: LayerTags): Arrays {
  return {
    gateKind: layer.gateKind,
    gateOut: layer.gateOut,
    gateIn1: layer.gateIn1,
    gateIn2: layer.gateIn2,
    gateCoeff: layer.gateCoeff,
    constWire: layer.constWire,
    constValue: layer.constValue,
    gateFamily: tags.gateFamily,
    gateBlock: tags.gateBlock,
    constFamily: tags.constFamily,
    constBlock: tags.constBlock,
  };
}

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * The shared form of a prepared circuit. The arrays are copied once per prepared circuit (the
 * descriptor is cached: sharing the same `PreparedSync` again returns the same descriptor, and
 * a circuit attached from a descriptor shares that descriptor).
 * @returns a descriptor for `postMessage`; attach it with `attachPrepared`.
 */
export function sharePrepared(prepared: PreparedSync): SharedPrepared {
  const cached = shared.get(prepared);
  if (cached) return cached;
  const { circuit, tags } = prepared.compiled;
  let bytes = 0;
  const plan = circuit.layers.map((layer, i) => {
    const arrays = layerArrays(layer, tags.layers[i]!);
    const offsets = ARRAYS.map((name) => {
      const at = bytes;
      bytes = align8(bytes + arrays[name].byteLength);
      return at;
    });
    return { arrays, offsets };
  });
  const buffer = new SharedArrayBuffer(Math.max(bytes, 8));
  const u8 = new Uint8Array(buffer);
  const layers: SharedLayer[] = plan.map(({ arrays, offsets }, i) => {
    ARRAYS.forEach((name, j) => {
      const a = arrays[name];
      u8.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offsets[j]!);
    });
    const layer = circuit.layers[i]!;
    const t = tags.layers[i]!;
    return {
      widthBits: layer.widthBits,
      gates: layer.gateKind.length,
      consts: layer.constWire.length,
      offsets,
      families: t.families.map((f) => ({
        family: f.family,
        base: f.base,
        stride: f.stride,
        blocks: [...f.blocks],
        blockSizes: [...f.blockSizes],
      })),
      untaggedBase: t.untaggedBase,
    };
  });
  const cfg = prepared.config;
  const descriptor: SharedPrepared = Object.freeze({
    format: 1,
    kind: prepared.kind,
    config: {
      depth: cfg.depth,
      leafMaxFields: cfg.leafMaxFields,
      strategy: { id: cfg.strategy.id, arg: cfg.strategy.arg },
    },
    commitment: Array.from(prepared.commitment),
    inputWidthBits: circuit.inputWidthBits,
    layers,
    layout: { ...prepared.compiled.layout },
    outputCount: prepared.compiled.outputCount,
    wiring: prepared.wiring instanceof TableWiring ? "table" : "derived",
    buffer,
  });
  shared.set(prepared, descriptor);
  return descriptor;
}

function bad(message: string): never {
  throw new ParallelError("BAD_SHARED", `shared prepared circuit: ${message}`);
}

function isCount(n: unknown): n is number {
  return Number.isInteger(n) && (n as number) >= 0;
}

/**
 * Rebuilds a `PreparedSync` from a descriptor made by `sharePrepared` (in this or another
 * thread). Its arrays are views of the shared buffer (never written); the commitment and
 * identity are taken from the descriptor, not recomputed. Proofs and verdicts are those of the
 * original prepared circuit. The wiring oracle is built on the first read of `wiring` (then
 * `timings.wiringMs` tells its cost; 0 before).
 * @param options.wiring builds the verifier's wiring oracle (default: the descriptor's kind,
 *   `DerivedRegularWiring` or `TableWiring`).
 * @throws ParallelError `BAD_SHARED` for a descriptor that does not fit its buffer;
 *   CircuitError if the circuit it describes is malformed; CompileError `UNSUPPORTED_CONFIG`.
 */
export function attachPrepared(descriptor: SharedPrepared, options: PrepareOptions = {}): PreparedSync {
  const d = descriptor as Partial<SharedPrepared> | null;
  if (d === null || typeof d !== "object" || d.format !== 1) bad("format must be 1");
  if (!(d.buffer instanceof SharedArrayBuffer)) bad("buffer must be a SharedArrayBuffer");
  if (!Array.isArray(d.layers) || d.layers.length === 0) bad("layers must be a non-empty array");
  if (!Array.isArray(d.commitment) || d.commitment.length !== 8) bad("commitment must have 8 elements");
  if (!isCount(d.inputWidthBits) || !isCount(d.outputCount) || d.layout === null || typeof d.layout !== "object")
    bad("inputWidthBits, outputCount and layout are required");
  if (d.wiring !== undefined && d.wiring !== "derived" && d.wiring !== "table")
    bad(`wiring must be "derived" or "table", got ${String(d.wiring)}`);
  const kind = opKindOf(d.kind as OpKind);
  const config = syncConfig(d.config);
  const buffer = d.buffer;
  const layers: Layer[] = [];
  const tagLayers: LayerTags[] = [];
  d.layers.forEach((l, i) => {
    if (
      l === null ||
      typeof l !== "object" ||
      !isCount(l.widthBits) ||
      !isCount(l.gates) ||
      !isCount(l.consts) ||
      !Array.isArray(l.offsets) ||
      l.offsets.length !== ARRAYS.length
    ) {
      bad(`layer ${i} is malformed`);
    }
    const view = <T>(
      j: number,
      make: (b: SharedArrayBuffer, at: number, n: number) => T,
      n: number,
      width: number,
    ): T => {
      const at = l.offsets[j]!;
      if (!isCount(at) || at % 8 !== 0 || at + n * width > buffer.byteLength)
        bad(`layer ${i}: ${ARRAYS[j]} lies outside the buffer`);
      return make(buffer, at, n);
    };
    const u8 = (b: SharedArrayBuffer, at: number, n: number) => new Uint8Array(b, at, n);
    const u32 = (b: SharedArrayBuffer, at: number, n: number) => new Uint32Array(b, at, n);
    const i32 = (b: SharedArrayBuffer, at: number, n: number) => new Int32Array(b, at, n);
    layers.push({
      widthBits: l.widthBits,
      gateKind: view(0, u8, l.gates, 1),
      gateOut: view(1, u32, l.gates, 4),
      gateIn1: view(2, u32, l.gates, 4),
      gateIn2: view(3, u32, l.gates, 4),
      gateCoeff: view(4, u32, l.gates, 4),
      constWire: view(5, u32, l.consts, 4),
      constValue: view(6, u32, l.consts, 4),
    });
    tagLayers.push({
      gateFamily: view(7, i32, l.gates, 4),
      gateBlock: view(8, i32, l.gates, 4),
      constFamily: view(9, i32, l.consts, 4),
      constBlock: view(10, i32, l.consts, 4),
      families: Array.isArray(l.families) ? l.families : bad(`layer ${i}: families must be an array`),
      untaggedBase: l.untaggedBase,
    });
  });
  const circuit: Circuit = { layers, inputWidthBits: d.inputWidthBits };
  const tags: CircuitTags = { layers: tagLayers };
  const compiled: CompiledCircuit = {
    kind,
    config,
    circuit,
    tags,
    layout: { ...d.layout },
    outputCount: d.outputCount,
  };
  const commitment = Uint32Array.from(d.commitment);
  const build =
    options.wiring ??
    (d.wiring === "table"
      ? (c: CompiledCircuit) => new TableWiring(c.circuit)
      : (c: CompiledCircuit) => new DerivedRegularWiring(c.circuit, c.tags));
  const prepared = assemblePrepared(compiled, commitment, () => build(compiled), {
    compileMs: 0,
    commitmentMs: 0,
    wiringMs: 0,
  });
  shared.set(prepared, descriptor);
  return prepared;
}
