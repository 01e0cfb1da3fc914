/**
 * What the API's plugins share (server.ts builds it once per app): the store, the proof cache, the
 * write sequencer (and the slot registries' write lock), the token rule, the configurations `POST /v1/verify` serves, the signing key, and
 * the two helpers every route of a name uses (`nameOf`, `checkpointOf`).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { SsgkrError } from "../errors.js";
import { nameBytes } from "../registry/mapping.js";
import { mappingOf, type AnyStore } from "../counterparty/prove.js";
import { signCheckpoint, type SigningKey } from "../registry/checkpoint/signing-key.js";
import type { BearerAuth } from "./auth.js";
import type { ProofCache } from "./cache.js";
import { HttpError } from "./errors.js";
import type { ServedConfigs } from "./served-configs.js";
import type { WriteLock } from "./write-lock.js";
import type { Sequencer } from "../registry/sequencer/sequencer.js";
import type { ProverPool } from "../proving/pool.js";

/** The shared state of one app's plugins (fastify plugin options: each plugin reads what it needs). */
export interface HttpContext {
  readonly store: AnyStore;
  /** `mappingOf(store)`: `"name-keyed"` or `"slot"`. */
  readonly mapping: ReturnType<typeof mappingOf>;
  readonly auth: BearerAuth;
  readonly cache: ProofCache;
  readonly lock: WriteLock;
  /** The write sequencer (name-keyed registries served with a token): every write goes through it. */
  readonly sequencer: Sequencer | undefined;
  readonly served: ServedConfigs;
  readonly signingKey: SigningKey | undefined;
  /** Stored signed checkpoints by size (a mirror's), served instead of signing; undefined: none. */
  readonly checkpoints: ((size: number) => string | undefined) | undefined;
  /** The `mirror` section of `GET /v1/status`; undefined: none. */
  readonly mirrorStatus: (() => Record<string, unknown>) | undefined;
  /** Allowed CORS origin (`*` for any); undefined: CORS off. */
  readonly cors: string | undefined;
  /** Longest request URL in bytes. */
  readonly maxUrl: number;
  /** Requests per minute per client address; 0: no rate limit. */
  readonly rateLimit: number;
  /** Largest body of `POST /v1/verify` in bytes. */
  readonly verifyBodyBytes: number;
  /** Folder of the built verifier page. */
  readonly webDir: string;
  readonly proveBlocks: boolean;
  /** The proving pool that makes every proof (undefined: proofs are made on the serving thread). */
  readonly pool: ProverPool | undefined;
  /** Bytes of proofs and block.json texts a page of `GET /v1/consistency` holds at most. */
  readonly consistencyPageBytes: number;
  readonly logger: boolean;
  /**
   * Spends a client's request budget (throws HttpError 429 `RATE_LIMITED` past it); set by the
   * guards plugin when rate limiting is on, read by the framework-error answer (error-handling.ts).
   */
  spendBudget: ((req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined;
}

/** The fields of an `HttpContext` that are not derived: what `createHttpContext` is given. */
export type HttpContextInit = Omit<HttpContext, "mapping" | "spendBudget">;

/** A context with its derived fields (the store's mapping, no request budget yet). */
export function createHttpContext(init: HttpContextInit): HttpContext {
  return { ...init, mapping: mappingOf(init.store), spendBudget: undefined };
}

/**
 * The `:name` path parameter, checked as a record name.
 * @throws HttpError 400 `BAD_NAME` naming the field `name`.
 */
export function nameOf(req: FastifyRequest): string {
  const name = (req.params as { name: string }).name;
  try {
    nameBytes(name);
  } catch (err) {
    if (err instanceof SsgkrError) throw new HttpError("BAD_NAME", `path name: ${err.message}`, { field: "name" });
    throw err;
  }
  return name;
}

/**
 * The signed checkpoint of a head (batch, root in hex), when the server signs or serves stored
 * checkpoints (a mirror: the stored text of that size); otherwise undefined.
 */
export function checkpointOf(ctx: HttpContext, batch: number | undefined, root: string): string | undefined {
  if (batch === undefined) return undefined;
  if (ctx.checkpoints !== undefined) return ctx.checkpoints(batch);
  return ctx.signingKey !== undefined ? signCheckpoint(ctx.signingKey, { size: batch, root }) : undefined;
}
