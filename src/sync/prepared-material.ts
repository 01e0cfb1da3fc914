/**
 * A prepared circuit as bytes and back (compat-v1 §13.3: a prepared circuit is immutable data):
 * the compiled circuit (gates, constants, input layout), the §12 commitment and the derived
 * wiring oracle's evaluation data, so that a process can reuse what another prepared without
 * compiling, committing or deriving the wiring again. The builder's scope tags, which only
 * deriving a wiring oracle reads, are not stored: `compiled.tags` of a circuit read back compiles
 * the circuit again on first use.
 *
 * Layout: u32 (little-endian) length J of a UTF-8 JSON description, the description, zero padding
 * to a multiple of 8, then every typed array of the description back to back, each at an offset
 * that is a multiple of 8. In the description a typed array is `{ "$a": type, "o": offset, "n":
 * length }` with the offset relative to the start of the arrays. Reading makes views of the
 * bytes (no copy when they are 8-byte aligned).
 *
 * The bytes carry no checksum: whoever stores them checks their integrity (the CLI's on-disk
 * cache, src/cli/prepared-disk.ts). Reading trusts that bytes which decode are bytes that
 * `preparedMaterial` wrote: it checks their structure and their kind and configuration, not that
 * the circuit is the compiler's.
 */
import type { Circuit, Layer } from "../gkr/circuit.js";
import type { CircuitTags } from "../gkr/builder.js";
import { DerivedRegularWiring, type DerivedWiringParts } from "../gkr/wiring/derived.js";
import { compile, type CompiledCircuit } from "../smt/compile.js";
import type { InputLayout } from "../smt/layout.js";
import type { SyncConfig } from "../smt/config.js";
import type { OpKind } from "../statement/types.js";
import { assemblePrepared, type PreparedSync } from "./prepared.js";

/** Version of the description; a description of another version is not read. */
export const PREPARED_MATERIAL_VERSION = 1;

type Typed = Uint8Array | Int32Array | Uint32Array;
const MAKERS = {
  u8: (b: ArrayBuffer, at: number, n: number): Typed => new Uint8Array(b, at, n),
  i32: (b: ArrayBuffer, at: number, n: number): Typed => new Int32Array(b, at, n),
  u32: (b: ArrayBuffer, at: number, n: number): Typed => new Uint32Array(b, at, n),
} as const;
const WIDTH = { u8: 1, i32: 4, u32: 4 } as const;
type ArrayType = keyof typeof MAKERS;

function arrayType(a: unknown): ArrayType | undefined {
  return a instanceof Uint8Array
    ? "u8"
    : a instanceof Int32Array
      ? "i32"
      : a instanceof Uint32Array
        ? "u32"
        : undefined;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** What the description holds. */
interface Description {
  readonly version: number;
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly circuit: Circuit;
  readonly layout: InputLayout;
  readonly outputCount: number;
  readonly commitment: Uint32Array;
  readonly wiring: DerivedWiringParts;
}

/**
 * The bytes of a prepared circuit whose wiring oracle is a `DerivedRegularWiring` (the default of
 * `prepare`), or undefined for another oracle (its data is not stored).
 * @returns the layout of the file comment; a few MB (d48 membership: about 8 MB).
 * @example
 *   const bytes = preparedMaterial(prepare("membership", { depth: 48 }));
 *   const again = readPreparedMaterial(bytes, "membership", syncConfig({ depth: 48 }));
 */
export function preparedMaterial(prepared: PreparedSync): Uint8Array | undefined {
  const wiring = prepared.wiring;
  if (!(wiring instanceof DerivedRegularWiring)) return undefined;
  const c = prepared.compiled;
  const description: Description = {
    version: PREPARED_MATERIAL_VERSION,
    kind: c.kind,
    config: c.config,
    circuit: c.circuit,
    layout: c.layout,
    outputCount: c.outputCount,
    commitment: Uint32Array.from(prepared.commitment),
    wiring: wiring.parts(),
  };
  const arrays: Typed[] = [];
  let bytes = 0;
  const json = JSON.stringify(description, (_key, value: unknown) => {
    const t = arrayType(value);
    if (t === undefined) return value;
    const a = value as Typed;
    const at = bytes;
    bytes = align8(bytes + a.byteLength);
    arrays.push(a);
    return { $a: t, o: at, n: a.length };
  });
  const text = new TextEncoder().encode(json);
  const base = align8(4 + text.length);
  const out = new Uint8Array(base + bytes);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 4);
  let at = base;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at = align8(at + a.byteLength);
  }
  return out;
}

/** Why bytes were not read as a prepared circuit. */
export interface MaterialProblem {
  readonly problem: string;
}

/**
 * The prepared circuit of (kind, config) from bytes of `preparedMaterial`, or the problem that
 * keeps them from being it (malformed, another version, another kind or configuration). Never
 * throws for bad bytes. The arrays of the result are views of `bytes` (copied first when `bytes`
 * is not 8-byte aligned): do not write them. Its timings are zero; reading `compiled.tags`
 * compiles the circuit (once).
 * @param config the configuration as `syncConfig` returns it.
 */
export function readPreparedMaterial(
  bytes: Uint8Array,
  kind: OpKind,
  config: SyncConfig,
): PreparedSync | MaterialProblem {
  try {
    return readUnchecked(bytes, kind, config);
  } catch (e) {
    return { problem: `malformed prepared material (${e instanceof Error ? e.message : String(e)})` };
  }
}

function readUnchecked(input: Uint8Array, kind: OpKind, config: SyncConfig): PreparedSync | MaterialProblem {
  if (input.byteLength < 4) return { problem: "shorter than its length field" };
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
  const length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (4 + length > bytes.byteLength) return { problem: "the description runs past the end" };
  const base = align8(4 + length);
  const buffer = bytes.buffer as ArrayBuffer;
  const start = bytes.byteOffset + base;
  const end = bytes.byteOffset + bytes.byteLength;
  let outside: string | undefined;
  const d = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)), (_key, value: unknown) => {
    if (value === null || typeof value !== "object" || !("$a" in value)) return value;
    const { $a: t, o, n } = value as { $a: unknown; o: unknown; n: unknown };
    if (
      typeof t !== "string" ||
      !(t in MAKERS) ||
      !Number.isSafeInteger(o) ||
      !Number.isSafeInteger(n) ||
      (o as number) < 0 ||
      (n as number) < 0 ||
      (o as number) % 8 !== 0
    ) {
      outside ??= `array reference ${JSON.stringify(value)} is malformed`;
      return new Uint8Array(0);
    }
    const at = start + (o as number);
    if (at + (n as number) * WIDTH[t as ArrayType] > end) {
      outside ??= `an array at ${String(o)} runs past the end`;
      return new Uint8Array(0);
    }
    return MAKERS[t as ArrayType](buffer, at, n as number);
  }) as Partial<Description> | null;
  if (outside !== undefined) return { problem: outside };
  if (d === null || typeof d !== "object") return { problem: "the description is not an object" };
  if (d.version !== PREPARED_MATERIAL_VERSION)
    return { problem: `description version ${String(d.version)}, this code reads ${PREPARED_MATERIAL_VERSION}` };
  const cfg = d.config;
  if (
    d.kind !== kind ||
    !cfg ||
    cfg.depth !== config.depth ||
    cfg.leafMaxFields !== config.leafMaxFields ||
    cfg.strategy?.id !== config.strategy.id ||
    cfg.strategy?.arg !== config.strategy.arg
  ) {
    return {
      problem: `prepared for ${String(d.kind)} at ${JSON.stringify(cfg)}, not ${kind} at ${JSON.stringify(config)}`,
    };
  }
  const circuit = d.circuit,
    wiring = d.wiring;
  if (
    !circuit ||
    !Array.isArray(circuit.layers) ||
    circuit.layers.length === 0 ||
    !Number.isInteger(circuit.inputWidthBits)
  )
    return { problem: "the circuit is malformed" };
  if (
    !wiring ||
    !Array.isArray(wiring.layers) ||
    wiring.layers.length !== circuit.layers.length ||
    !Number.isInteger(wiring.loBits) ||
    !wiring.stats
  )
    return { problem: "the wiring data is malformed" };
  if (!(d.commitment instanceof Uint32Array) || d.commitment.length !== 8)
    return { problem: "the commitment is malformed" };
  if (!d.layout || typeof d.layout !== "object" || !Number.isInteger(d.outputCount))
    return { problem: "the layout is malformed" };
  for (const [i, l] of (circuit.layers as Layer[]).entries()) {
    const gates = l.gateKind?.length;
    if (
      !Number.isInteger(l.widthBits) ||
      !(l.gateKind instanceof Uint8Array) ||
      [l.gateOut, l.gateIn1, l.gateIn2, l.gateCoeff].some((a) => !(a instanceof Uint32Array) || a.length !== gates) ||
      !(l.constWire instanceof Uint32Array) ||
      !(l.constValue instanceof Uint32Array) ||
      l.constValue.length !== l.constWire.length
    ) {
      return { problem: `circuit layer ${i} is malformed` };
    }
  }
  let tags: CircuitTags | undefined;
  const compiled = Object.freeze(
    Object.defineProperty({ kind, config, circuit, layout: d.layout, outputCount: d.outputCount as number }, "tags", {
      enumerable: true,
      get: (): CircuitTags => (tags ??= compile(kind, config).tags),
    }),
  ) as CompiledCircuit;
  return assemblePrepared(compiled, d.commitment, DerivedRegularWiring.fromParts(wiring), {
    compileMs: 0,
    commitmentMs: 0,
    wiringMs: 0,
  });
}
