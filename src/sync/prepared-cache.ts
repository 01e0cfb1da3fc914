/**
 * A bounded least-recently-used cache of prepared circuits, one entry per (kind, depth, leaf
 * bound, strategy), so that a caller verifying or proving many requests of one configuration
 * compiles and commits once (compat-v1 §13.3: a prepared circuit is valid for exactly one kind,
 * depth, leaf bound and strategy, and immutable, so sharing it is safe).
 */
import { type SyncConfig, syncConfig } from "../smt/config.js";
import { opKindOf, prepare, type PreparedSync } from "./prepared.js";
import type { OpKind, OpKindName } from "../statement/types.js";

/** Options of a `PreparedCache`. */
export interface PreparedCacheOptions {
  /** Most prepared circuits kept (default 3: the three kinds of one configuration); at least 1. */
  readonly capacity?: number;
  /** How a missing entry is prepared (default `prepare(kind, config)` with the derived wiring). */
  readonly prepare?: (kind: OpKind, config: SyncConfig) => PreparedSync;
}

/** Counters of a cache since it was made (or last cleared). */
export interface PreparedCacheStats {
  /** Lookups answered from the cache. */
  readonly hits: number;
  /** Lookups that prepared a circuit. */
  readonly prepares: number;
  /** Entries dropped to stay within the capacity. */
  readonly evictions: number;
}

/** The cache key of (kind, configuration). */
function keyOf(kind: OpKind, cfg: SyncConfig): string {
  return `${kind}/${cfg.depth}/${cfg.leafMaxFields}/${cfg.strategy.id}.${cfg.strategy.arg}`;
}

/**
 * Prepared circuits by configuration, least recently used dropped first.
 *
 * @example
 * const cache = new PreparedCache();
 * const prepared = cache.get("membership", { depth: 24 });   // compiles and commits
 * cache.get("membership", { depth: 24 }) === prepared;        // true, no work
 */
export class PreparedCache {
  readonly capacity: number;
  private readonly make: (kind: OpKind, config: SyncConfig) => PreparedSync;
  private readonly entries = new Map<string, PreparedSync>();
  private readonly pinned = new Map<string, PreparedSync>();
  private counts = { hits: 0, prepares: 0, evictions: 0 };

  /** @throws RangeError if `capacity` is not an integer ≥ 1. */
  constructor(options: PreparedCacheOptions = {}) {
    const capacity = options.capacity ?? 3;
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`PreparedCache capacity must be an integer ≥ 1, got ${String(capacity)}`);
    this.capacity = capacity;
    this.make = options.prepare ?? ((kind, config) => prepare(kind, config));
  }

  /**
   * The prepared circuit of `kind` for `config` (defaults: depth 24, B = 31, strategy A),
   * prepared on first use. The configuration is validated (`syncConfig`, its limits included)
   * before anything is compiled.
   * @throws CompileError `UNSUPPORTED_CONFIG`; SyncError `BAD_KIND`.
   */
  get(kind: OpKind | OpKindName, config: Partial<SyncConfig> = {}): PreparedSync {
    const k = opKindOf(kind);
    const cfg = syncConfig(config);
    const key = keyOf(k, cfg);
    const kept = this.pinned.get(key);
    if (kept) {
      this.counts.hits++;
      return kept;
    }
    const hit = this.entries.get(key);
    if (hit) {
      this.counts.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const prepared = this.make(k, cfg);
    this.counts.prepares++;
    this.entries.set(key, prepared);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value!);
      this.counts.evictions++;
    }
    return prepared;
  }

  /**
   * Puts an already prepared circuit (e.g. one of `prepareAll`) into the cache under its own kind
   * and configuration, as the most recently used entry.
   */
  put(prepared: PreparedSync): void {
    const key = keyOf(prepared.kind, prepared.config);
    if (this.pinned.has(key)) return;
    this.entries.delete(key);
    this.entries.set(key, prepared);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value!);
      this.counts.evictions++;
    }
  }

  /**
   * Keeps an already prepared circuit for the life of the cache (until `clear`): `get` of its
   * kind and configuration answers it, and it is never evicted nor counted in the capacity (e.g.
   * the configurations a server verifies, prepared once at start-up).
   */
  pin(prepared: PreparedSync): void {
    const key = keyOf(prepared.kind, prepared.config);
    this.entries.delete(key);
    this.pinned.set(key, prepared);
  }

  /** True if (kind, config) is cached (pinned or not); does not count as a use. */
  has(kind: OpKind | OpKindName, config: Partial<SyncConfig> = {}): boolean {
    const key = keyOf(opKindOf(kind), syncConfig(config));
    return this.pinned.has(key) || this.entries.has(key);
  }

  /** Number of cached prepared circuits, pinned ones included. */
  get size(): number {
    return this.entries.size + this.pinned.size;
  }

  /** Counters since the cache was made or cleared. */
  get stats(): PreparedCacheStats {
    return { ...this.counts };
  }

  /** Drops every entry, pinned ones included, and resets the counters. */
  clear(): void {
    this.entries.clear();
    this.pinned.clear();
    this.counts = { hits: 0, prepares: 0, evictions: 0 };
  }
}

/** The process-wide cache used by `verifyRequestProof` and the CLI unless another is given. */
export const defaultPreparedCache: PreparedCache = new PreparedCache();
