/**
 * Preparing all three operation kinds at once (compat-v1 §13.3 `prepare(kind)` for each kind):
 * the three circuits are compiled one after another, their §12 commitments are absorbed side by
 * side (`circuitCommitments`: the longest sponge, Update, in one lane; Membership then
 * NonMembership in the other), then each wiring oracle is built.
 */
import { TableWiring } from "../gkr/wiring/table.js";
import { compile } from "../smt/compile.js";
import { type SyncConfig, syncConfig } from "../smt/config.js";
import { circuitCommitments, commitmentHeader, type CommitmentsOptions } from "./commitment.js";
import { assemblePrepared, type PreparedSync, type PrepareOptions } from "./prepared.js";
import { OpKind } from "../statement/types.js";

/** The three prepared circuits of one configuration. */
export interface PreparedAll {
  readonly membership: PreparedSync;
  readonly nonmembership: PreparedSync;
  readonly update: PreparedSync;
  /** Milliseconds per phase over the three kinds (commitments are computed together). */
  readonly timings: {
    readonly compileMs: number;
    readonly commitmentMs: number;
    readonly wiringMs: number;
    readonly totalMs: number;
  };
}

/** Options of `prepareAll`: the wiring factory of `prepare` and the sponge lane count. */
export interface PrepareAllOptions extends PrepareOptions, CommitmentsOptions {}

/**
 * Compiles, commits and builds the wiring of Membership, NonMembership and Update for `config`.
 * Each `PreparedSync` equals what `prepare(kind, config)` returns (same circuit, commitment and
 * identity); its `timings.commitmentMs` is the shared commitment time.
 * @param config depth (default 24), leafMaxFields (default 31), strategy A.
 * @throws CompileError `UNSUPPORTED_CONFIG`.
 */
export function prepareAll(config: Partial<SyncConfig> = {}, options: PrepareAllOptions = {}): PreparedAll {
  const cfg = syncConfig(config);
  const kinds = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
  const t0 = performance.now();
  const compileMs: number[] = [];
  const compiled = kinds.map((k) => {
    const s = performance.now();
    const c = compile(k, cfg);
    compileMs.push(performance.now() - s);
    return c;
  });
  const t1 = performance.now();
  const commitments = circuitCommitments(
    compiled.map((c) => ({ header: commitmentHeader(c.kind, cfg), circuit: c.circuit })),
    options.lanes === undefined ? {} : { lanes: options.lanes },
  );
  const t2 = performance.now();
  const prepared = compiled.map((c, i) => {
    const s = performance.now();
    const wiring = options.wiring ? options.wiring(c) : new TableWiring(c.circuit);
    const wiringMs = performance.now() - s;
    return assemblePrepared(c, commitments[i]!, wiring, { compileMs: compileMs[i]!, commitmentMs: t2 - t1, wiringMs });
  });
  const t3 = performance.now();
  return Object.freeze({
    membership: prepared[0]!,
    nonmembership: prepared[1]!,
    update: prepared[2]!,
    timings: Object.freeze({ compileMs: t1 - t0, commitmentMs: t2 - t1, wiringMs: t3 - t2, totalMs: t3 - t0 }),
  });
}
