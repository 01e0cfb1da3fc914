/**
 * Circuit configuration (compat-v1 §6.6): tree depth, leaf bound B = leaf_max_fields and layer
 * strategy. Only strategy A = (id 0, arg 0) compiles; B{k} = (1, k) and C = (2, 0) are
 * recognised identities that are rejected.
 */
import { CompileError } from "../smt/errors.js";
import { DEFAULT_LEAF_MAX_FIELDS, MIN_LEAF_MAX_FIELDS } from "../smt/leaf.js";
import { DEFAULT_DEPTH } from "../smt/path.js";

/** Largest tree depth a configuration may have (keys are u64). */
export const MAX_CONFIG_DEPTH = 64;

/** Largest leaf bound B a configuration may have (the tag + up to 53 sync-state fields + 9 identity limbs). */
export const MAX_CONFIG_LEAF_MAX_FIELDS = 63;

/** Layer strategy identity (id, arg), committed in §12. */
export interface LayerStrategy {
  readonly id: number;
  readonly arg: number;
}

/** Strategy A, the only one that compiles. */
export const STRATEGY_A: LayerStrategy = Object.freeze({ id: 0, arg: 0 });

/** The configuration of a circuit (compat-v1 §9): tree depth, leaf bound B and layer strategy (A only). */
export interface SyncConfig {
  /** Tree depth, 1..64 (u32 on the wire). */
  readonly depth: number;
  /** Leaf bound B: maximum encoding length, tag included; 10..63 (`MAX_CONFIG_LEAF_MAX_FIELDS`). */
  readonly leafMaxFields: number;
  readonly strategy: LayerStrategy;
}

/** depth 24, B = 31, strategy A. */
export const DEFAULT_CONFIG: SyncConfig = Object.freeze({
  depth: DEFAULT_DEPTH,
  leafMaxFields: DEFAULT_LEAF_MAX_FIELDS,
  strategy: STRATEGY_A,
});

/**
 * Completes a partial configuration with the defaults and validates it.
 * @throws CompileError `UNSUPPORTED_CONFIG` if the strategy is not A = (0, 0), depth is not an
 *   integer in [1, 64] (0 is the case named in §6.6; above 64 keys stop being u64), or B is not an
 *   integer in [10, 63] (B < 10 per §6.6; above 63 is outside this engine's work limit, src/sync/limits.ts:
 *   the layer count grows with B and a large B would make preparing a circuit take minutes and gigabytes).
 *   Checked before any work.
 */
export function syncConfig(partial: Partial<SyncConfig> = {}): SyncConfig {
  const depth = partial.depth ?? DEFAULT_CONFIG.depth;
  const leafMaxFields = partial.leafMaxFields ?? DEFAULT_CONFIG.leafMaxFields;
  const strategy = partial.strategy ?? STRATEGY_A;
  if (strategy === null || typeof strategy !== "object" || strategy.id !== 0 || strategy.arg !== 0) {
    const s = strategy && typeof strategy === "object" ? `(${strategy.id}, ${strategy.arg})` : String(strategy);
    throw new CompileError("UNSUPPORTED_CONFIG", `only layer strategy A = (0, 0) compiles, got ${s}`, {
      field: "strategy",
    });
  }
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_CONFIG_DEPTH) {
    throw new CompileError("UNSUPPORTED_CONFIG", `depth must be an integer in [1, ${MAX_CONFIG_DEPTH}], got ${depth}`, {
      field: "depth",
      depth,
    });
  }
  if (
    !Number.isInteger(leafMaxFields) ||
    leafMaxFields < MIN_LEAF_MAX_FIELDS ||
    leafMaxFields > MAX_CONFIG_LEAF_MAX_FIELDS
  ) {
    throw new CompileError(
      "UNSUPPORTED_CONFIG",
      `leaf_max_fields must be an integer in [${MIN_LEAF_MAX_FIELDS}, ${MAX_CONFIG_LEAF_MAX_FIELDS}] (the work limit on the leaf bound, docs/security.md), got ${leafMaxFields}`,
      { field: "leafMaxFields", leafMaxFields },
    );
  }
  return Object.freeze({ depth, leafMaxFields, strategy: Object.freeze({ id: 0, arg: 0 }) });
}
