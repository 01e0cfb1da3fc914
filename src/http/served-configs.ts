/**
 * The circuit configurations `POST /v1/verify` verifies: the registry's own (depth, leaf bound)
 * and the extra ones the operator enables at start-up, nothing a request chooses. Their circuits
 * (all three kinds each) are prepared once per process, before the server listens, and pinned in
 * the process-wide prepared-circuit cache, so no request prepares a circuit and none is evicted.
 * A request of any other configuration is refused (422 `CONFIG_NOT_SERVED`) before anything is
 * prepared. A profile v3 block body is refused the same way by its block.json's depth and leaf
 * bound; the v3 update circuit of a served configuration is prepared by the first block checked
 * (about 0.1 s) and kept for the process's life (src/registry/block-v3.ts), so only served
 * configurations are ever prepared.
 */
import { SsgkrError } from "../errors.js";
import { syncConfig } from "../smt/config.js";
import { defaultPreparedCache } from "../sync/prepared-cache.js";
import { parseRequest, parseRequestText, type SyncRequest } from "../sync/request.js";
import { OP_KIND_NAMES } from "../statement/types.js";
import { preparedFor } from "../counterparty/verify.js";
import { HttpError } from "./errors.js";

/** One circuit configuration: tree depth and leaf bound (`leaf_max_fields`). */
export interface VerifyConfig {
  readonly depth: number;
  readonly leafMaxFields: number;
}

/** `depth:leafMaxFields`, the form of `--verify-config`. */
export const configText = (c: VerifyConfig): string => `${c.depth}:${c.leafMaxFields}`;

/** The configurations a server verifies (its registry's first). */
export class ServedConfigs {
  readonly list: readonly VerifyConfig[];

  /**
   * @param own the registry's configuration.
   * @param extra configurations enabled at start-up (duplicates and the registry's own are merged).
   * @throws CompileError `UNSUPPORTED_CONFIG` for a configuration outside the engine's limits.
   */
  constructor(own: VerifyConfig, extra: readonly VerifyConfig[] = []) {
    const seen = new Map<string, VerifyConfig>();
    for (const c of [own, ...extra]) {
      const cfg = syncConfig({ depth: c.depth, leafMaxFields: c.leafMaxFields });
      const k = configText(cfg);
      if (!seen.has(k)) seen.set(k, Object.freeze({ depth: cfg.depth, leafMaxFields: cfg.leafMaxFields }));
    }
    this.list = Object.freeze([...seen.values()]);
  }

  /** True if (depth, leaf bound) is served. */
  has(depth: number, leafMaxFields: number): boolean {
    return this.list.some((c) => c.depth === depth && c.leafMaxFields === leafMaxFields);
  }

  /**
   * Prepares every kind of every served configuration (a no-op for those this process already
   * prepared) and pins them in `defaultPreparedCache`. Runs at start-up, before the server listens.
   * @returns the circuits prepared by this call (0 when all were prepared before).
   */
  prepareAll(): number {
    const before = defaultPreparedCache.stats.prepares;
    for (const c of this.list)
      for (const kind of OP_KIND_NAMES) defaultPreparedCache.pin(preparedFor(kind, c.depth, c.leafMaxFields));
    return defaultPreparedCache.stats.prepares - before;
  }

  /**
   * Refuses a body whose request names a configuration that is not served. The request's depth
   * and leaf bound are what a check would prepare a circuit for; a request that does not parse is
   * left to the check, which rejects it (`REQUEST_SCHEMA`, `REQUEST_JSON`) before preparing anything.
   * @throws HttpError 422 `CONFIG_NOT_SERVED`.
   */
  check(request: unknown): void {
    let r: SyncRequest;
    try {
      r = typeof request === "string" ? parseRequestText(request) : parseRequest(request);
    } catch (err) {
      if (err instanceof SsgkrError) return;
      throw err;
    }
    this.checkConfig(r.depth, r.leafMaxFields, "body.request");
  }

  /**
   * Refuses a configuration that is not served (a block body's block.json names it).
   * @param field the body field that names it, for the message.
   * @throws HttpError 422 `CONFIG_NOT_SERVED`.
   */
  checkConfig(depth: number, leafMaxFields: number, field: string): void {
    if (this.has(depth, leafMaxFields)) return;
    throw new HttpError(
      "CONFIG_NOT_SERVED",
      `${field}: depth ${depth} and leaf bound ${leafMaxFields} are not verified by this server; it verifies ${this.list.map((c) => `depth ${c.depth} with leaf bound ${c.leafMaxFields}`).join(", ")}`,
      { field, depth, leafMaxFields },
    );
  }
}
