/**
 * Prepared profile v2 circuits (docs/profile-v2.md §5–§8): compile once, commit once, build the
 * closed-form wiring once; immutable and shareable, valid for one (kind, depth, leaf bound).
 */
import type { Digest } from "../../hash/digest.js";
import { DerivedRegularWiring } from "../../gkr/wiring/derived.js";
import { type CircuitShape, shapeOf } from "../../gkr/shape.js";
import { StructuredWiring, type StructuredWiringMode } from "../../gkr/structured/wiring.js";
import { TableWiring } from "../../gkr/wiring/table.js";
import { type V2CompiledCircuit, compileV2 } from "../../smt/v2/compile.js";
import type { SyncConfig } from "../../smt/config.js";
import { opKindOf } from "../prepared.js";
import type { OpKind, OpKindName } from "../../statement/types.js";
import { v2CircuitCommitment } from "./commitment.js";

/** A circuit prepared for profile v2: kind, configuration, the compiled circuit, its shape, commitment (§8) and wiring. */
export interface PreparedV2 {
  readonly profile: "v2";
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly compiled: V2CompiledCircuit;
  readonly shape: CircuitShape;
  readonly commitment: Digest;
  readonly wiring: StructuredWiring;
}

/** Options of `prepareV2`. */
export interface PrepareV2Options {
  /** `"closed-form"` (default: derived plain wiring and closed-form groups) or `"table"`. */
  readonly wiring?: StructuredWiringMode;
}

/**
 * prepare for profile v2.
 * @param kind operation kind (tag or name).
 * @param config depth 1..64, leaf bound 10..65535 (defaults 24, 31).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`; SyncError for an unknown kind name.
 * @example
 *   const prepared = prepareV2("membership", { depth: 24 });
 */
export function prepareV2(
  kind: OpKind | OpKindName,
  config: Partial<SyncConfig> = {},
  options: PrepareV2Options = {},
): PreparedV2 {
  const compiled = compileV2(opKindOf(kind), config);
  const mode = options.wiring ?? "closed-form";
  const base = mode === "table" ? new TableWiring(compiled.circuit) : new DerivedRegularWiring(compiled.circuit);
  return Object.freeze({
    profile: "v2" as const,
    kind: compiled.kind,
    config: compiled.config,
    compiled,
    shape: shapeOf(compiled.circuit),
    commitment: v2CircuitCommitment(compiled),
    wiring: new StructuredWiring(compiled.circuit, base, mode),
  });
}
