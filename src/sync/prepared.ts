/**
 * Prepared execution (compat-v1 §13.3 `prepare(kind)`): compile a circuit, compute its full
 * commitment and build its wiring oracle once per (kind, configuration), then reuse it for any
 * number of requests. A `PreparedSync` is immutable and can be shared; every request keeps its own
 * witness, transcript and proof.
 */
import type { Digest } from "../hash/digest.js";
import type { Circuit } from "../gkr/circuit.js";
import { type CircuitShape, shapeOf } from "../gkr/shape.js";
import type { WiringOracle } from "../gkr/wiring/oracle.js";
import { DerivedRegularWiring } from "../gkr/wiring/derived.js";
import { compile, type CompiledCircuit } from "../smt/compile.js";
import { type SyncConfig, syncConfig } from "../smt/config.js";
import { circuitCommitment, commitmentHeader } from "./commitment.js";
import {
  type CircuitIdentity,
  type OpKind,
  opKindOf,
  type OpKindName,
  type OpKindTag,
  opKindTag,
} from "../statement/types.js";

/**
 * A circuit ready to prove and verify one kind of statement at one configuration (compat-v1 §13.1): the compiled circuit and shape, the verifier's wiring, the circuit commitment (§12, 8 elements) and identity (§13.3), and the ms spent building them. Made by `prepare`; reuse it for every request of its kind.
 * @example
 *   const prepared = prepare("update", { depth: 24 });
 *   const verdict = verifyPrepared(prepared, request, provePrepared(prepared, request));
 */
export interface PreparedSync {
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly compiled: CompiledCircuit;
  readonly circuit: Circuit;
  readonly shape: CircuitShape;
  /** The verifier's wiring predicates (derived closed form unless another oracle was given). */
  readonly wiring: WiringOracle;
  /** Full circuit commitment (§12), 8 elements. */
  readonly commitment: Digest;
  /** circuit_identity(prepared) (§13.3). */
  readonly identity: CircuitIdentity;
  /** Milliseconds spent compiling and committing. */
  readonly timings: { readonly compileMs: number; readonly commitmentMs: number; readonly wiringMs: number };
}

/** Options of `prepare`: the wiring oracle to build. */
export interface PrepareOptions {
  /**
   * Builds the wiring oracle from the compiled circuit; default `DerivedRegularWiring` (§10.6,
   * audited against the gates). `(c) => new TableWiring(c.circuit)` selects the explicit table.
   */
  readonly wiring?: (compiled: CompiledCircuit) => WiringOracle;
}

export { opKindOf } from "../statement/types.js";

/**
 * Compiles the circuit of `kind` for `config`, computes its commitment and builds its wiring.
 * @param kind `"membership"`, `"nonmembership"` or `"update"` (`OpKind.*`), or the §6.4 tag 0/1/2.
 * @param config depth (default 24), leafMaxFields (default 31), strategy A.
 * @throws CompileError `UNSUPPORTED_CONFIG`; SyncError `BAD_KIND`.
 * @example
 * ```ts
 * const prepared = prepare("membership", { depth: 24 }); // once per kind; share it across requests
 * ```
 */
export function prepare(
  kind: OpKindName | OpKindTag,
  config: Partial<SyncConfig> = {},
  options: PrepareOptions = {},
): PreparedSync {
  const k = opKindOf(kind);
  const cfg = syncConfig(config);
  const t0 = performance.now();
  const compiled = compile(k, cfg);
  const t1 = performance.now();
  const commitment = circuitCommitment(commitmentHeader(k, cfg), compiled.circuit);
  const t2 = performance.now();
  const wiring = options.wiring ? options.wiring(compiled) : new DerivedRegularWiring(compiled.circuit, compiled.tags);
  const t3 = performance.now();
  return assemblePrepared(compiled, commitment, wiring, {
    compileMs: t1 - t0,
    commitmentMs: t2 - t1,
    wiringMs: t3 - t2,
  });
}

/**
 * A `PreparedSync` from its parts (the commitment must be the §12 commitment of `compiled`).
 * `wiring` may be a builder: then the wiring is built on first use and `timings.wiringMs` tells
 * its cost (0 before).
 */
export function assemblePrepared(
  compiled: CompiledCircuit,
  commitment: Digest,
  wiring: WiringOracle | (() => WiringOracle),
  timings: PreparedSync["timings"],
): PreparedSync {
  const k = compiled.kind;
  const cfg = compiled.config;
  const identity: CircuitIdentity = Object.freeze({
    opKindTag: opKindTag(k),
    depth: cfg.depth,
    circuitVersion: 1,
    leafEncodingVersion: 1,
    leafMaxFields: cfg.leafMaxFields,
    strategyId: cfg.strategy.id,
    commitment,
  });
  const parts = {
    kind: k,
    config: cfg,
    compiled,
    circuit: compiled.circuit,
    shape: shapeOf(compiled.circuit),
    commitment,
    identity,
  };
  if (typeof wiring !== "function") return Object.freeze({ ...parts, wiring, timings: Object.freeze({ ...timings }) });
  const build = wiring;
  let built: WiringOracle | null = null;
  let wiringMs = timings.wiringMs;
  return Object.freeze(
    Object.defineProperties(parts, {
      wiring: {
        enumerable: true,
        get(): WiringOracle {
          if (!built) {
            const t0 = performance.now();
            built = build();
            wiringMs = performance.now() - t0;
          }
          return built;
        },
      },
      timings: { enumerable: true, get: () => Object.freeze({ ...timings, wiringMs }) },
    }),
  ) as PreparedSync;
}
